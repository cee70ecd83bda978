"""A socket whose client never reads is closed once a frame has waited SEND_TIMEOUT_SECONDS for it,
while an honest spectator of the same game loses no version; and a socket that falls behind gets
one state for several versions instead of every one (its queue never grows)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import time
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    create_table,
    join,
    start,
    stop_tasks,
)

# Runs alone, after the parallel tests (scripts/test.sh): the slow-reader guard is a timer: a loaded machine would blur it.
pytestmark = pytest.mark.serial

# Versions the game is followed for once the slow sockets are dealt with (a 6-seat game of zero
# bids goes on for a thousand more, which would check nothing new).
MORE_VERSIONS = 100


async def stop_playing(play: asyncio.Task[None]) -> None:
    """The scripted player's part is done: it failed (raised here) or plays on (stopped)."""
    if play.done():
        play.result()
        return
    await stop_tasks(play)


def open_never_reading(port: int, table_id: str) -> socket.socket:
    """A WebSocket handshake by hand (tiny receive window); afterwards nothing is ever read."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, "closed during the handshake"
        head += chunk
    assert b" 101 " in head.split(b"\r\n", 1)[0]
    return s


def server_end_established(port: int, client_port: int) -> bool:
    """Whether the server's end of the connection from `client_port` is still ESTABLISHED."""
    want_local, want_remote = f":{port:04X}", f":{client_port:04X}"
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            if parts[1].endswith(want_local) and parts[2].endswith(want_remote):
                return parts[3] == "01"
    return False


async def test_a_client_that_never_reads_is_closed_and_the_others_lose_nothing(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db, SEND_TIMEOUT_SECONDS="2")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 6)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 5, "random")
        slow = [open_never_reading(server.port, table_id) for _ in range(3)]
        honest = SeatClient(server.ws, table_id, None, None)
        await honest.connect()
        await start(http, ann)
        # Bots and Ann (a scripted player at machine speed) play: versions come fast. Uvicorn's
        # own keepalive would close a dead socket only after 40 s: the bound below is tighter.
        player = SeatClient(server.ws, table_id, ann.token, ann.seat)
        player.strategy = lambda client, prompt: (
            {"type": "choose", "option": prompt["options"][0]["id"]}
            if prompt["kind"] == "choose"
            else {"type": prompt["kind"], "silver": 0, "amulet": False}
            if prompt["kind"] == "tiebreak"
            else {
                "type": "bid",
                "fairy_gold": 0,
                "common_gold": 0,
                "amulet": False,
                "black_magic": False,
            }
        )
        await player.connect()
        began = time.monotonic()
        play = asyncio.create_task(player.play_until_over(timeout=120))
        # The honest spectator reads all the time, as a browser does, until the game has gone
        # MORE_VERSIONS past the moment the never-reading sockets were all closed (or ended).
        until: list[int] = []
        watch = asyncio.create_task(
            honest.wait_for(
                lambda m: (
                    m["type"] == "state"
                    and (
                        m["view"]["winner"] is not None
                        or (bool(until) and m["version"] >= until[0])
                    )
                ),
                timeout=120,
            )
        )
        ports = [s.getsockname()[1] for s in slow]
        while any(server_end_established(server.port, p) for p in ports):
            assert time.monotonic() - began < 30, "a never-reading socket is still open"
            await asyncio.sleep(0.2)
        until.append((player.version or 0) + MORE_VERSIONS)
        await watch
        await stop_playing(play)
        for s in slow:
            s.close()
        await honest.close()
        await player.close()

    # The honest spectator saw every version in order: one state per version or a state
    # covering several, each continuing from the last it had, never a gap.
    states = [m for m in honest.messages if m["type"] == "state"]
    last = None
    for m in states:
        if last is not None:
            assert m["events_from"] == last and m["version"] > last and not m["resync"], m
        last = m["version"]
    assert "not read for" in server.log()


async def test_a_slow_but_honest_reader_gets_whole_frames_then_close_1013_and_reconnects(
    sqlite_db: Database, server_factory: Any
) -> None:
    """A spectator that falls behind (a busy machine, a slow phone) is given up on, but is never cut
    in the middle of a frame: it reads every frame already on its way, whole, then a close frame
    with code 1013, and reconnects with its last version."""
    # A small kernel buffer, so that a few frames fill it (the guard's size and time are its own
    # settings: this test reads slowly on purpose).
    server: ServerProcess = server_factory(
        sqlite_db, SEND_TIMEOUT_SECONDS="2", SOCKET_SEND_BUFFER_BYTES="4096"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 6)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 5, "random")
        # A small receive window, and the client library holds one message at most: not reading
        # stalls the server's sends at once, as it would for a reader far slower than the game.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        slow = await websockets.connect(
            f"{server.ws}/ws/tables/{table_id}", sock=sock, max_queue=1, close_timeout=2
        )
        player = SeatClient(server.ws, table_id, ann.token, ann.seat)
        player.strategy = _first_option
        await start(http, ann)
        await player.connect()
        play = asyncio.create_task(player.play_until_over(timeout=120))
        try:
            # The slow reader reads nothing until the server has given up on it.
            given_up = time.monotonic() + 60
            while "not read for" not in server.log():
                assert not play.done() or play.exception() is None, play.exception()
                assert time.monotonic() < given_up, "the server never gave up on the slow reader"
                await asyncio.sleep(0.05)
            messages = []
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    messages.append(json.loads(await asyncio.wait_for(slow.recv(), 20)))
            # Every frame arrived whole (each one parsed), then the close frame with its code.
            assert closed.value.rcvd is not None, f"cut without a close frame: {closed.value!r}"
            assert closed.value.rcvd.code == 1013, closed.value.rcvd
            assert "reconnect" in closed.value.rcvd.reason
            states = [m for m in messages if m["type"] == "state"]
            assert states, messages
            # Back with the last version seen: the game continues from there, nothing skipped.
            again = SeatClient(server.ws, table_id, None, None)
            await again.connect(since=states[-1]["version"])
            state = await again.wait_for(lambda m: m["type"] == "state")
            assert (state["events_from"], state["resync"]) == (states[-1]["version"], False)
            # And the game goes on (it would for hundreds of versions more).
            further = state["version"] + MORE_VERSIONS
            # (The game may have ended by then: that state, already read, says so.)
            if state["view"]["winner"] is None:
                await again.wait_for(
                    lambda m: (
                        m["type"] == "state"
                        and (m["version"] >= further or m["view"]["winner"] is not None)
                    ),
                    timeout=120,
                )
            await again.close()
            await stop_playing(play)
        finally:
            if not play.done():
                play.cancel()
            await slow.close()
            await player.close()


def _first_option(client: SeatClient, prompt: dict[str, Any]) -> dict[str, Any]:
    if prompt["kind"] == "choose":
        return {"type": "choose", "option": prompt["options"][0]["id"]}
    if prompt["kind"] == "tiebreak":
        return {"type": "tiebreak", "silver": 0, "amulet": False}
    return {"type": "bid", "fairy_gold": 0, "common_gold": 0, "amulet": False, "black_magic": False}
