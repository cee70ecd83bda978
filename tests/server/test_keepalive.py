"""The server pings a WebSocket only once it has heard nothing from it for
`WS_PING_AFTER_SILENCE_SECONDS` (app.wire.frames): a page's own `ping` message every 25 s keeps
its socket from being pinged at all (uvicorn alone pings every interval, whatever the socket
says), and a socket that falls silent is pinged once that silence has passed. A real server and
a client on a plain socket that reads every frame (websockets' own sans-I/O protocol), SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable

import httpx
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from tests.server.harness import Database, ServerProcess, create_table

ServerFactory = Callable[..., ServerProcess]
SILENCE = 3.0  # the server's setting here
TALK_EVERY = 0.2  # far within it, so that a busy machine cannot stretch a gap to it
TALK_FOR = 2 * SILENCE


async def test_a_socket_that_talks_is_not_pinged_and_one_that_falls_silent_is(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db, WS_PING_AFTER_SILENCE_SECONDS=str(SILENCE))
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
    loop = asyncio.get_running_loop()
    protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}"))
    sock = socket.socket()
    sock.setblocking(False)
    pings: list[float] = []  # when each WebSocket ping arrived (this process's clock)
    pongs = 0  # answers to our `ping` messages
    pinged, hello = asyncio.Event(), asyncio.Event()

    async def read() -> None:
        nonlocal pongs
        with contextlib.suppress(ConnectionError):
            while data := await loop.sock_recv(sock, 65536):
                protocol.receive_data(data)
                for event in protocol.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.PING:
                        pings.append(time.monotonic())
                        pinged.set()
                    elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        pongs += json.loads(bytes(event.data))["type"] == "pong"
                        hello.set()  # the first message: the socket is open
                # The protocol answers a ping with a pong, as a browser does.
                await loop.sock_sendall(sock, b"".join(protocol.data_to_send()))

    async def say(message: dict[str, str]) -> None:
        protocol.send_text(json.dumps(message).encode())
        await loop.sock_sendall(sock, b"".join(protocol.data_to_send()))

    try:
        await loop.sock_connect(sock, ("127.0.0.1", server.port))
        protocol.send_request(protocol.connect())
        await loop.sock_sendall(sock, b"".join(protocol.data_to_send()))
        reader = asyncio.create_task(read())
        await asyncio.wait_for(hello.wait(), 10)
        talked_until = time.monotonic() + TALK_FOR
        while time.monotonic() < talked_until:
            await say({"type": "ping"})
            last_said = time.monotonic()
            await asyncio.sleep(TALK_EVERY)
        assert pings == [], "a socket that keeps talking was pinged"
        assert pongs > 0  # the socket was open and answered all along
        # Silent from now on: pinged once the silence has passed (measured from what the
        # server received, which is after this process sent it, on the server's loop clock,
        # which counts whole milliseconds: a few of them early at most).
        await asyncio.wait_for(pinged.wait(), SILENCE + 15)
        assert pings[0] - last_said >= SILENCE - 0.05
        # The setting, not uvicorn's 20 s from the connect (14 s from here), set the time.
        assert pings[0] - last_said < SILENCE + 8
        reader.cancel()
    finally:
        sock.close()
