"""The table socket's lean path (app.edge.socket_path): past the HTTP middlewares, it still answers
its handshake with the replica header, sends hello, table and state in this order, and an unknown
WebSocket path still takes the application's own stack (refused)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.server.harness import (
    Database,
    Seat,
    ServerProcess,
    add_bots,
    create_table,
    join,
    start,
)

SHARED_SERVER_SETTINGS = {"REPLICA_NAME": "replica-7"}


async def _frames(ws: Any, count: int) -> list[dict[str, Any]]:
    return [json.loads(await asyncio.wait_for(ws.recv(), 10)) for _ in range(count)]


async def _started(server: ServerProcess) -> tuple[Seat, str]:
    """A started table of Ann and two bots: Ann's seat and her socket's address."""
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "random")
        await start(http, ann)
    return ann, f"{server.ws}/ws/tables/{table_id}?token={ann.token}"


async def test_a_table_socket_on_the_lean_path(shared_server: ServerProcess) -> None:
    ann, url = await _started(shared_server)
    table_id = ann.table_id
    async with websockets.connect(url) as ws:
        assert ws.response is not None
        assert ws.response.headers.get("X-Dragonstones-Replica") == "replica-7"
        hello, table, state = await _frames(ws, 3)
        assert (hello["type"], hello["seat"]) == ("hello", ann.seat)
        assert table["type"] == "table" and table["table"]["id"] == table_id
        assert state["type"] == "state" and state["version"] >= 0
        await ws.send(json.dumps({"type": "ping"}))
        reply = await _frames(ws, 1)
        while reply[0]["type"] != "pong":  # bots may move the game on meanwhile
            reply = await _frames(ws, 1)
    spectator = f"{shared_server.ws}/ws/tables/{table_id}"
    async with websockets.connect(spectator) as ws:
        hello, table, state = await _frames(ws, 3)
        assert (hello["seat"], table["type"], state["type"]) == (None, "table", "state")
    with pytest.raises(InvalidStatus):
        async with websockets.connect(f"{shared_server.ws}/ws/nothing-here"):
            pass


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 4096, 65535, 65536, 70000])
def test_a_text_frame_framed_by_hand_is_websockets_own(size: int) -> None:
    """The writer frames its text messages itself when no extension is negotiated
    (app.wire.frames `send_texts`): header and payload are byte for byte what websockets'
    `Frame.serialize` writes for a server (unmasked), at each length encoding's edges."""
    from websockets.frames import Frame, Opcode

    from app.wire.frames import text_header

    data = ("é" * size).encode()[:size]
    assert text_header(len(data)) + data == Frame(Opcode.TEXT, data).serialize(mask=False)


async def test_a_socket_with_permessage_deflate_takes_websockets_framing(
    database: Database, server_factory: Any
) -> None:
    """With compression on (WS_COMPRESSION) and offered by the client, the frames are compressed
    by websockets' extension, not framed by hand: the client still reads hello, table, state and
    the answer to its ping, and its socket did negotiate the extension."""
    server: ServerProcess = server_factory(database, WS_COMPRESSION="true")
    _ann, url = await _started(server)
    async with websockets.connect(url, compression="deflate") as ws:
        assert ws.response is not None
        assert "permessage-deflate" in ws.response.headers.get("Sec-WebSocket-Extensions", "")
        hello, table, state = await _frames(ws, 3)
        assert (hello["type"], table["type"], state["type"]) == ("hello", "table", "state")
        await ws.send(json.dumps({"type": "ping"}))
        reply = await _frames(ws, 1)
        while reply[0]["type"] != "pong":
            reply = await _frames(ws, 1)


async def test_messages_in_several_frames_are_each_read_whole(
    shared_server: ServerProcess,
) -> None:
    """A message may come in parts (a text frame, then continuation frames): each is read
    whole, and the next one starts afresh, in parts or not (between messages, app.wire.frames
    keeps the socket's own empty list of parts: a part left in it would join the next message,
    which would then not parse)."""
    _ann, url = await _started(shared_server)
    ping = '{"type": "ping"}'
    async with websockets.connect(url) as ws:
        await _frames(ws, 3)
        for message in ([ping[:8], ping[8:]], ping, [ping[:3], ping[3:9], ping[9:]], [ping]):
            await ws.send(message)
            reply = await _frames(ws, 1)
            while reply[0]["type"] != "pong":  # bots may move the game on meanwhile
                assert reply[0]["type"] != "error", (message, reply)
                reply = await _frames(ws, 1)
