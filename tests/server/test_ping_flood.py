"""WebSocket ping frames spend the socket's message budget (app.wire.frames).

uvicorn answers a ping inside its WebSocket protocol, before the application sees anything: a
client sending pings without end used to be answered every time, and 686,200 of them from four
sockets halved another table's game. Now each ping (and pong, and continuation frame) spends a
credit of the same bucket as a message, `RATE_PER_SECOND` / `RATE_BURST` at their production
values here: beyond, `error` `rate_limited` and close 1008, while another table plays on.
A real server, a real client writing raw ping frames as fast as it can, SQLite and Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
from collections.abc import Callable
from typing import Any

import httpx
import websockets
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    track,
)

ServerFactory = Callable[..., ServerProcess]
PRODUCTION_RATE = {"RATE_PER_SECOND": "20", "RATE_BURST": "40"}
# Pings written per batch, and at most in all (far beyond any budget).
BATCH = 500
MOST = 1_000_000


async def _flood(port: int, path: str) -> tuple[int, list[dict[str, Any]], int | None]:
    """A client on a plain socket (websockets' own sans-I/O protocol reads what it receives)
    that opens the socket, reads its hello, then writes masked, empty ping frames as fast as the
    connection takes them, never reading the pongs, until the server closes it: (pings written,
    messages received, close code)."""
    loop = asyncio.get_running_loop()
    protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}{path}"))
    sock = socket.socket()
    sock.setblocking(False)
    received: list[dict[str, Any]] = []
    hello = asyncio.Event()

    async def read() -> None:
        with contextlib.suppress(ConnectionError):
            while data := await loop.sock_recv(sock, 65536):
                protocol.receive_data(data)
                for event in protocol.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        received.append(json.loads(bytes(event.data)))
                        hello.set()
        protocol.receive_eof()

    try:
        await loop.sock_connect(sock, ("127.0.0.1", port))
        protocol.send_request(protocol.connect())
        await loop.sock_sendall(sock, b"".join(protocol.data_to_send()))
        reader = asyncio.create_task(read())
        await asyncio.wait_for(hello.wait(), 10)
        assert received[0]["type"] == "hello", received
        frames = b"".join(Frame(Opcode.PING, b"").serialize(mask=True) for _ in range(BATCH))
        sent = 0
        with contextlib.suppress(ConnectionError):
            while not reader.done() and sent < MOST:
                await loop.sock_sendall(sock, frames)
                sent += BATCH
        await asyncio.wait_for(reader, 20)
        close = protocol.close_rcvd
        return sent, received, close.code if close is not None else None
    finally:
        sock.close()


async def test_ping_frames_spend_the_message_budget(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **PRODUCTION_RATE)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        # A game with a person and two bots, played while another table's spectator floods.
        playing = await create_table(http, 3, timed=False)
        ann = await join(http, playing, "Ann")
        await add_bots(http, ann, 2)
        flooded = await create_table(http, 3)
        player = SeatClient(server.ws, playing, ann.token, ann.seat, bot_strategy("heuristic", 7))
        player.think = 0.06  # within the production message rate, as a person is
        await player.connect()
        await start(http, ann)
        game = asyncio.create_task(player.play_until_over(timeout=120))
        try:
            sent, received, code = await _flood(server.port, f"/ws/tables/{flooded}")
            # Closed as a socket sending too many messages is (the pings already on their way
            # when it closed were sent; none was answered beyond the budget).
            assert code == 1008, (code, sent)
            assert received[-1]["type"] == "error" and received[-1]["code"] == "rate_limited"
            # The other table's game went on and ends.
            await game
            assert player.over and not player.errors, player.errors
        finally:
            game.cancel()
            await player.close()
        metrics = (await http.get("/metrics")).text
    assert re.search(r'dragonstones_errors_total\{code="rate_limited"\} 1\.0', metrics), metrics
    # One line about it (no traceback, no line per ping).
    lines = [line for line in server.log().splitlines() if "frames=control" in line]
    assert len(lines) == 1, lines
    assert "Traceback" not in server.log()


async def test_a_socket_that_pings_a_little_is_answered(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    """Pings within the budget are answered as before (a browser pongs the server's pings;
    libraries ping to check the connection)."""
    server = server_factory(sqlite_db, **PRODUCTION_RATE)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
    ws = track(
        "a spectator that pings",
        await websockets.connect(f"{server.ws}/ws/tables/{table_id}", close_timeout=2),
    )
    try:
        for _ in range(10):
            await asyncio.wait_for(await ws.ping(), 10)
        await ws.send(json.dumps({"type": "ping"}))
        while (message := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] != "pong":
            assert message["type"] != "error", message
    finally:
        await ws.close()
