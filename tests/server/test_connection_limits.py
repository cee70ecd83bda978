"""One address cannot lock everyone out with idle or trickling connections
(app.edge.accept). Real servers (`dragonstones serve`), raw TCP clients, SQLite.

- 1,100 connections from one address, half silent and half sending a request head a byte at a
  time, at the common open-file limit of 1,024: a client from another address still gets
  `/healthz` and its seat's socket at once; every one of the 1,100 is closed within the header
  timeout (refused at accept beyond the cap per address, 429; the others when the timer runs out);
- a request head sent too slowly is answered 408, one too large 431, garbage 400, while a client
  that keeps its connection and sends whole requests is never cut;
- a reverse proxy in `TRUSTED_PROXIES` carries many clients: it is not held to the cap.

The attacker is 127.0.0.2, the other client 127.0.0.3 (all of 127/8 is loopback on Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import resource
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
import websockets

from tests.server.harness import Database, ServerProcess, create_table, join

ServerFactory = Callable[..., ServerProcess]
ATTACKER = "127.0.0.2"
OTHER = "127.0.0.3"
PROXY = "127.0.0.4"
ATTACK = 1100
# The production cap, MAX_CONNECTIONS_PER_ADDRESS's default (the harness raises it for the other
# tests, whose clients all call from 127.0.0.1).
PER_ADDRESS = 64
HEADER_TIMEOUT = 3.0  # shortened from the default 10 s, so the test need not wait as long
# What a busy machine may add to a timer before the server gets to it.
MARGIN = 10.0


def _open_files_at_least(count: int) -> None:
    """This test process holds every attacking connection: raise its own limit if it must."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= count:
        return
    if hard != resource.RLIM_INFINITY and hard < count:
        pytest.skip(f"the open-file limit is {hard}; this test holds {count} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


def _like_a_common_server(pid: int) -> None:
    """The server process as most machines start it: 1,024 open files at most (after its own
    start, which raises the soft limit to the hard one)."""
    with contextlib.suppress(OSError, AttributeError):
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (1024, 1024))


@dataclass
class Outcome:
    trickled: bool
    opened: float
    closed: float | None = None
    received: bytes = b""


async def _attacker(port: int, trickle: bool, connected: asyncio.Event) -> Outcome:
    """One connection from ATTACKER: silent, or a request head a byte at a time (every 0.5 s,
    well within any idle timer); read until the server closes it."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    try:
        sock.bind((ATTACKER, 0))
        await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", port)), 60)
        outcome = Outcome(trickle, time.monotonic())
        connected.set()

        async def read() -> None:
            with contextlib.suppress(ConnectionError):
                while chunk := await loop.sock_recv(sock, 4096):
                    outcome.received += chunk
            outcome.closed = time.monotonic()

        reader = asyncio.create_task(read())
        try:
            if trickle:
                with contextlib.suppress(ConnectionError):
                    await loop.sock_sendall(sock, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                    while not reader.done():
                        await asyncio.wait({reader}, timeout=0.5)
                        if not reader.done():
                            await loop.sock_sendall(sock, b"z")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), HEADER_TIMEOUT + MARGIN)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        return outcome
    finally:
        sock.close()


async def _other_client_is_served(server: ServerProcess, seat_url: str) -> None:
    """From another address, within 1 s each: /healthz, and the seat's socket (its hello)."""
    transport = httpx.AsyncHTTPTransport(local_address=OTHER)
    async with httpx.AsyncClient(base_url=server.http, transport=transport, timeout=1) as http:
        assert (await http.get("/healthz")).status_code == 200
    ws = await asyncio.wait_for(
        websockets.connect(seat_url, local_addr=(OTHER, 0), close_timeout=2, open_timeout=1), 1
    )
    try:
        assert json.loads(await asyncio.wait_for(ws.recv(), 1))["type"] == "hello"
    finally:
        await ws.close()


async def test_idle_and_trickling_connections_from_one_address_lock_nobody_out(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    _open_files_at_least(ATTACK + 300)
    server = server_factory(
        sqlite_db,
        MAX_CONNECTIONS_PER_ADDRESS=str(PER_ADDRESS),
        HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    _like_a_common_server(server.proc.pid)
    seat_url = f"{server.ws}/ws/tables/{table_id}?token={ann.token}"

    events = [asyncio.Event() for _ in range(ATTACK)]
    attack = [
        asyncio.create_task(_attacker(server.port, i % 2 == 1, events[i])) for i in range(ATTACK)
    ]
    try:
        # Every connection is open (the server has them, or refused them at accept).
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), 120)
        await _other_client_is_served(server, seat_url)
        outcomes = await asyncio.gather(*attack)
    finally:
        for task in attack:
            task.cancel()
        await asyncio.gather(*attack, return_exceptions=True)

    # Every one was closed by the server, within the header timeout of its opening.
    late = [
        o for o in outcomes if o.closed is None or o.closed - o.opened > HEADER_TIMEOUT + MARGIN
    ]
    assert not late, f"{len(late)} connections still open after the header timeout"
    statuses = [o.received.split(b"\r\n", 1)[0] for o in outcomes]
    assert set(statuses) <= {
        b"",
        b"HTTP/1.1 429 Too Many Requests",
        b"HTTP/1.1 408 Request Timeout",
    }
    # Refused at accept, beyond the cap; a head begun is told it took too long; a silent
    # connection is closed without a word.
    assert statuses.count(b"HTTP/1.1 429 Too Many Requests") >= ATTACK // 2
    assert any(b"request_timeout" in o.received for o in outcomes if o.trickled)
    assert any(o.received == b"" for o in outcomes if not o.trickled)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        metrics = (await http.get("/metrics")).text
    dropped = dict(
        re.findall(r'dragonstones_connections_dropped_total\{reason="(\w+)"\} (\S+)', metrics)
    )
    assert float(dropped["too_many_from_address"]) == statuses.count(
        b"HTTP/1.1 429 Too Many Requests"
    )
    assert float(dropped["header_timeout"]) >= 1 and float(dropped["idle"]) >= 1


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes
) -> bytes:
    """Send, then read one answer (head and its content-length body)."""
    writer.write(data)
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
    length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    return head + await asyncio.wait_for(reader.readexactly(length), 20)


async def test_a_slow_head_gets_408_and_whole_requests_are_never_cut(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    timeout = 1.0  # a head sent in one piece arrives within it even on a busy machine
    server = server_factory(sqlite_db, HEADER_TIMEOUT_SECONDS=str(timeout))
    # A client that keeps its connection and sends whole requests, for longer than the timeout
    # (a timer from accept that the first head did not stop would cut it).
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    started = time.monotonic()
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    while time.monotonic() - started <= timeout + 0.1:
        assert (await _exchange(reader, writer, request)).startswith(b"HTTP/1.1 200")
        await asyncio.sleep(0.2)  # idle between requests, within uvicorn's 5 s keep-alive
    assert (await _exchange(reader, writer, request)).startswith(b"HTTP/1.1 200")
    # The same connection, now sending a head that never ends: 408 once the timer runs out.
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    answer = await asyncio.wait_for(reader.read(), 20)
    assert answer.startswith(b"HTTP/1.1 408") and b'"request_timeout"' in answer, answer
    writer.close()
    assert "Traceback" not in server.log()


async def test_a_head_too_large_gets_431_and_garbage_400(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db, MAX_REQUEST_HEAD_BYTES="4096")
    # A head beyond MAX_REQUEST_HEAD_BYTES, whole or in pieces that never end it: 431.
    for pieces in ([b"a" * 5000 + b"\r\n\r\n"], [b"a" * 1000] * 5):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
        with contextlib.suppress(ConnectionError):
            for piece in pieces:
                writer.write(piece)
                await writer.drain()
        answer = b""
        with contextlib.suppress(ConnectionError):
            answer = await asyncio.wait_for(reader.read(), 20)
        assert answer.startswith(b"HTTP/1.1 431") and b'"head_too_large"' in answer, answer
        writer.close()
    # Not HTTP at all: 400, the connection closed.
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"\x16\x03\x01 hello\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), 20)).startswith(b"HTTP/1.1 400")
    writer.close()
    assert "Traceback" not in server.log()


async def test_a_trusted_proxy_is_not_held_to_the_cap(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db, MAX_CONNECTIONS_PER_ADDRESS="3", TRUSTED_PROXIES=PROXY)
    opened: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        for source in (PROXY, ATTACKER):
            for _ in range(5):
                opened.append(
                    await asyncio.open_connection("127.0.0.1", server.port, local_addr=(source, 0))
                )
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        answers = []
        for reader, writer in opened[:8]:
            answers.append((await _exchange(reader, writer, request)).split(b"\r\n", 1)[0])
        # The proxy's five are served, and the attacker's first three.
        assert answers == [b"HTTP/1.1 200 OK"] * 8, answers
        # The attacker's two beyond three were answered at accept, before sending anything: read
        # without writing (a request written to a connection the server already closed would
        # draw a reset that can drop the answer; one never refused would wait for the head timer
        # and read nothing).
        for reader, _ in opened[8:]:
            refused = await asyncio.wait_for(reader.read(), 20)
            assert refused.startswith(b"HTTP/1.1 429 Too Many Requests"), refused
    finally:
        for _, writer in opened:
            writer.close()
