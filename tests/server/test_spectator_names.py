"""A spectator may choose a name: checked as a player's name, refused when it looks like a
seated player's or another spectator's at the table, shown with its spectator mark, and kept by
the server under the spectator's signed key. Real server and sockets, SQLite and Postgres."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.server.harness import Database, ServerProcess, create_table, join
from tests.server.test_chat import FAST_CHAT, ChatClient, connected
from tests.server.test_spectator_identity import _said, _told, _watch

ServerFactory = Callable[..., ServerProcess]


async def _ask(client: ChatClient, name: str) -> dict[str, Any]:
    """Ask for a name: the new `viewer` message, or the error."""
    await client.send_json({"type": "spectator_name", "name": name})
    return await client.wait_for(lambda m: m["type"] in ("viewer", "error"))


async def test_a_spectator_chooses_a_name_nobody_else_has(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    zoe = await _watch(server, table_id, "127.0.0.1")
    other = await _watch(server, table_id, "127.0.0.2")
    # A seated player's name, in any case or with look-alike letters, and another spectator's
    # label are taken; a bot's name is not a name.
    for taken in ("ANN", "\u0410nn", _told(other)["name"]):
        assert (await _ask(zoe, taken)).get("code") == "name_taken", taken
    assert (await _ask(zoe, "Bot 3")).get("code") == "invalid_name"
    told = await _ask(zoe, "Zoé")
    assert told["type"] == "viewer" and told["name"] == "Zoé (spectator)", told
    assert told["viewer"] == _told(zoe)["viewer"]  # the same signed key
    line = await _said(zoe, "hello")
    assert line["type"] == "chat" and line["line"]["name"] == "Zoé (spectator)", line
    assert (await _ask(other, "zoe")).get("code") == "name_taken"
    # The key brings the name back; a player keeps the seat's name.
    await zoe.close()
    again = await _watch(server, table_id, "127.0.0.1", viewer=told["viewer"])
    assert _told(again)["name"] == "Zoé (spectator)"
    player = await connected(server.ws, table_id, ann.token, ann.seat)
    assert (await _ask(player, "Queen")).get("code") == "invalid_name"
    for c in (again, other, player):
        await c.close()
