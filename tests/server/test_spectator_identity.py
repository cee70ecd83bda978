"""A spectator's identity. The viewer key (which lets a socket speak under a
spectator's label) stays out of the log, is not honoured from another address while its owner is
connected, and is not needed to keep one's label: one address is one spectator at a table. A chat
line that shows nothing (U+2800) is empty. Real servers and sockets, SQLite and Postgres.

Spectators come from several loopback addresses (127.0.0.1, .2, .3: all of 127/8 is loopback on
Linux), each client socket bound to its source address.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import websockets

from tests.server.harness import Database, ServerProcess, create_table, join
from tests.server.test_chat import ChatClient

ServerFactory = Callable[..., ServerProcess]
FAST_CHAT = {"CHAT_LINES_PER_WINDOW": "1000"}


async def _watch(
    server: ServerProcess, table_id: str, source: str, viewer: str | None = None
) -> ChatClient:
    """A spectator's socket from `source`, with a viewer key or none, once its chat came."""
    client = ChatClient(server.ws, table_id, None, None, viewer=viewer)
    client.ws = await websockets.connect(
        client.url(None), local_addr=(source, 0), max_size=2**22, close_timeout=2
    )
    await client.wait_for(lambda m: m["type"] == "chat_lines")
    return client


def _told(client: ChatClient) -> dict[str, Any]:
    """The label and key the server gave this socket."""
    return next(m for m in client.messages if m["type"] == "viewer")


async def _table(server: ServerProcess) -> str:
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        return await create_table(http, 3)


async def _said(client: ChatClient, text: str) -> dict[str, Any]:
    """Say a line: the line as it came back, or the error."""
    await client.say(text)
    return await client.wait_for(
        lambda m: m["type"] == "error" or (m["type"] == "chat" and m["line"]["seat"] is None)
    )


async def test_the_viewer_key_is_not_written_to_the_log(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    table_id = await _table(server)
    first = await _watch(server, table_id, "127.0.0.1")
    key = _told(first)["viewer"]
    await first.close()
    again = await _watch(server, table_id, "127.0.0.1", viewer=key)  # the same browser, back
    assert _told(again)["name"] == _told(first)["name"]
    await again.close()
    log = server.log()
    assert "viewer=<hidden>" in log  # the handshake is logged, its key is not
    assert key not in log and key[4:] not in log


async def test_a_key_from_another_address_does_not_speak_beside_its_owner(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **FAST_CHAT)
    table_id = await _table(server)
    owner = await _watch(server, table_id, "127.0.0.1")
    label, key = _told(owner)["name"], _told(owner)["viewer"]
    # The key copied to another address while its owner is connected: another label there.
    thief = await _watch(server, table_id, "127.0.0.2", viewer=key)
    assert _told(thief)["name"] != label
    line = await _said(thief, "I am the owner")
    assert line["type"] == "chat" and line["line"]["name"] == _told(thief)["name"], line
    # The owner's own second tab (same address) keeps the label.
    tab = await _watch(server, table_id, "127.0.0.1", viewer=key)
    assert _told(tab)["name"] == label
    for c in (owner, tab):
        await c.close()
    # Once the owner is gone, the key is the owner's wherever they are now (a phone that moved
    # from its Wi-Fi to its mobile network).
    moved = await _watch(server, table_id, "127.0.0.3", viewer=key)
    assert _told(moved)["name"] == label
    for c in (thief, moved):
        await c.close()


async def test_a_spectator_without_its_key_keeps_its_label(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **FAST_CHAT)
    table_id = await _table(server)
    labels = []
    for _ in range(3):  # reconnecting without the key, as a script or a private window does
        watcher = await _watch(server, table_id, "127.0.0.2")
        labels.append(_told(watcher)["name"])
        line = await _said(watcher, "still me")
        assert line["type"] == "chat" and line["line"]["name"] == labels[0], line
        await watcher.close()
    assert labels == [labels[0]] * 3, labels
    # Another address is another spectator, with a label of its own.
    other = await _watch(server, table_id, "127.0.0.3")
    assert _told(other)["name"] != labels[0]
    await other.close()


async def test_a_chat_line_that_shows_nothing_is_empty(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    player = ChatClient(server.ws, table_id, ann.token, ann.seat)
    await player.connect()
    await player.wait_for(lambda m: m["type"] == "chat_lines")
    watcher = await _watch(server, table_id, "127.0.0.1")
    for blank in ("\u2800", "\u2800 \u2800\u2800", " \ufffc\U0001d159 ", "\u3164\u2800"):
        for client in (player, watcher):
            await client.say(blank)
            error = await client.wait_error()
            assert error["code"] == "chat_empty", (blank, error)
    # Braille art keeps its blank pattern inside a line; blanks around a line go.
    art = await _said(watcher, "\u2801\u2800\u2801")
    assert art["type"] == "chat" and art["line"]["text"] == "\u2801\u2800\u2801", art
    trimmed = await _said(watcher, "\u2800hi\u2800")
    assert trimmed["type"] == "chat" and trimmed["line"]["text"] == "hi", trimmed
    # Nothing blank was stored: the spectators' channel holds these two lines only.
    lines = [x["text"] for x in player.lines() + watcher.lines() if x["channel"] != "notices"]
    assert sorted(set(lines)) == ["hi", "\u2801\u2800\u2801"], lines
    for c in (player, watcher):
        await c.close()
