"""What one address could still do, refused. Real servers with the production limits
(where a test aims at one), real sockets, SQLite and Postgres.

- a reconnect storm is refused past `SOCKET_RATE_BURST` (close 4429, `socket_rate_limited`);
- chat limits survive reconnection (per seat; per address for spectators);
- spectators' labels are the server's, unique at the table, and cannot be forged;
- invalid UTF-8 and other malformed frames: one log line per socket, no traceback, counted;
- leaving the queue is never rate-limited; numbers are JSON integers on every route.

The second client address is 127.0.0.2 (all of 127/8 is loopback on Linux).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import struct
import time
from collections.abc import Callable
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import Database, ServerProcess, bearer, create_table, join, until
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued
from tests.server.test_chat import ChatClient

ServerFactory = Callable[..., ServerProcess]
OTHER_ADDRESS = "127.0.0.2"
# The production limits of what these tests aim at (the harness raises them for other tests).
PRODUCTION_SOCKET_RATE = {"SOCKET_RATE_PER_SECOND": "2", "SOCKET_RATE_BURST": "20"}
PRODUCTION_CHAT = {"CHAT_LINES_PER_WINDOW": "5", "CHAT_WINDOW_SECONDS": "10"}


async def _first(url: str, source: str = "127.0.0.1") -> tuple[dict[str, Any], int | None]:
    """Open a socket, read its first message, close it: (message, close code if refused)."""
    ws = await websockets.connect(url, local_addr=(source, 0), close_timeout=2)
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if first.get("type") != "error":
            return first, None
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            return first, exc.rcvd.code if exc.rcvd else None
        raise AssertionError("a refused socket stayed open")
    finally:
        await ws.close()


# -- a reconnect storm ----------------------------------------------------------------------------


async def test_a_reconnect_storm_is_refused_past_the_limit(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **PRODUCTION_SOCKET_RATE)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    url = f"{server.ws}/ws/tables/{table_id}?token={ann.token}"
    started = time.monotonic()
    outcomes = [await _first(url) for _ in range(60)]
    elapsed = time.monotonic() - started
    admitted = [m for m, code in outcomes if code is None]
    refused = [(m, code) for m, code in outcomes if code is not None]
    assert all(m["type"] == "hello" for m in admitted)
    # The burst, and what the bucket refilled meanwhile (2 a second); nothing beyond.
    assert 20 <= len(admitted) <= 20 + 2 * elapsed + 1, (len(admitted), elapsed)
    assert refused, "no reconnection was refused"
    for message, code in refused:
        assert code == 4429, code
        assert message["code"] == "socket_rate_limited", message
        assert "try again" in message["message"]
    # Queue sockets draw on the same allowance (what refilled meanwhile is spent first).
    queued = Queued(server.http, server.ws, "Quinn")
    await queued.join()
    queue_url = f"{server.ws}/ws/queue?ticket={queued.ticket}&token={queued.token}"
    tries = [await _first(queue_url) for _ in range(8)]
    assert ("socket_rate_limited", 4429) in [(m.get("code"), code) for m, code in tries], tries
    # Another address is not held back, and the refusals left no traceback.
    message, closed = await _first(url, source=OTHER_ADDRESS)
    assert message["type"] == "hello" and closed is None
    assert "Traceback" not in server.log()


# -- chat ---------------------------------------------------------------------------------------


async def _chat(server: ServerProcess, table_id: str, token: str | None, seat: int | None,
                source: str = "127.0.0.1", viewer: str | None = None) -> ChatClient:  # fmt: skip
    client = ChatClient(server.ws, table_id, token, seat, viewer=viewer)
    client.ws = await websockets.connect(
        client.url(None), local_addr=(source, 0), max_size=2**22, close_timeout=2
    )
    await client.wait_for(lambda m: m["type"] == "chat_lines")
    return client


async def _said(client: ChatClient, text: str) -> str:
    """Say a line: 'ok' once it comes back, else the error's code."""
    await client.say(text)
    m = await client.wait_for(
        lambda m: m["type"] == "error" or (m["type"] == "chat" and m["line"]["text"] == text)
    )
    return "ok" if m["type"] == "chat" else str(m["code"])


async def test_the_chat_limit_survives_reconnection(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, **PRODUCTION_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    # A spectator: five lines, then a new socket (and a new viewer key) each time: refused.
    first = await _chat(server, table_id, None, None, viewer="spam-key-0001")
    assert [await _said(first, f"spam {i}") for i in range(5)] == ["ok"] * 5
    await first.close()
    for n in range(3):
        again = await _chat(server, table_id, None, None, viewer=f"spam-key-{n + 2:04d}")
        assert await _said(again, f"more spam {n}") == "chat_rate_limited"
        await again.close()
    # A player: the allowance is the seat's, across sockets and reconnections.
    a1 = await _chat(server, table_id, ann.token, ann.seat)
    assert [await _said(a1, f"ann {i}") for i in range(5)] == ["ok"] * 5
    a2 = await _chat(server, table_id, ann.token, ann.seat)
    assert await _said(a2, "second tab") == "chat_rate_limited"
    await a1.close()
    await a2.close()
    a3 = await _chat(server, table_id, ann.token, ann.seat)
    assert await _said(a3, "reconnected") == "chat_rate_limited"
    # Someone else (another address) still talks; a newcomer sees at most five spam lines.
    other = await _chat(server, table_id, None, None, source=OTHER_ADDRESS)
    assert await _said(other, "hello from elsewhere") == "ok"
    texts = [x["text"] for x in other.lines() if x["channel"] != "notices"]
    assert sum(t.startswith(("spam", "more spam")) for t in texts) == 5, texts
    for c in (a3, other):
        await c.close()


async def test_spectators_labels_are_the_servers_and_unique(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, CHAT_LINES_PER_WINDOW="1000")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
    # Spectators choosing keys (the same one, or one each) get labels of the server's choosing.
    # Each from an address of its own: one address is one spectator.
    watchers = [
        await _chat(server, table_id, None, None, f"127.0.1.{n}", viewer="the-same-chosen-key")
        for n in range(12)
    ]
    told = [next(m for m in w.messages if m["type"] == "viewer") for w in watchers]
    labels = [t["name"] for t in told]
    assert all(re.fullmatch(r"Spectator [0-9a-f]{4}", x) for x in labels), labels
    assert len(set(labels)) == len(labels), labels  # unique at the table
    for w, label in zip(watchers, labels, strict=True):
        await w.say(f"I am {label}")
        line = await w.wait_line(lambda x, label=label: x.get("text") == f"I am {label}")
        assert line["name"] == label
    # The key the server gave keeps the label across a reconnection (the same browser)...
    back = await _chat(server, table_id, None, None, "127.0.1.0", viewer=told[0]["viewer"])
    assert next(m for m in back.messages if m["type"] == "viewer")["name"] == labels[0]
    # ...and no other key gives it: another spectator's tag with a made-up signature, the key
    # of another table, or the hash of the old client-chosen key.
    victim_tag = labels[1].split()[1]
    forged = [
        victim_tag + "0" * 20,
        victim_tag + told[1]["viewer"][4:-1] + ("0" if told[1]["viewer"][-1] != "0" else "1"),
        told[1]["viewer"][:4] + told[2]["viewer"][4:],
    ]
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        elsewhere = await create_table(http, 3)
    stranger = await _chat(server, elsewhere, None, None, "127.0.1.0")
    forged.append(next(m for m in stranger.messages if m["type"] == "viewer")["viewer"])
    for n, key in enumerate(forged):
        thief = await _chat(server, table_id, None, None, f"127.0.2.{n}", viewer=key)
        name = next(m for m in thief.messages if m["type"] == "viewer")["name"]
        assert name not in labels, (key, name)
        await thief.close()
    for c in (*watchers, back, stranger):
        await c.close()


# -- protocol errors ----------------------------------------------------------------------------


def _masked(payload: bytes, opcode: int = 1) -> bytes:
    """One client frame (masked, as clients must), built by hand: no client library sends text
    that is not UTF-8."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _raw_socket(port: int, path: str, frames: list[bytes]) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    # As a client would: it reads what the server says on connect, then misbehaves.
    received = b""
    while b"chat_lines" not in received:
        received += await asyncio.wait_for(reader.read(65536), 10)
    for frame in frames:
        try:
            writer.write(frame)
            await writer.drain()
        except ConnectionError:
            break  # the server closed the socket: the rest is never sent
        await asyncio.sleep(0.02)
    try:
        while chunk := await asyncio.wait_for(reader.read(65536), 5):
            received += chunk
    except (TimeoutError, ConnectionError):
        pass
    writer.close()
    return received


def _protocol_lines(server: ServerProcess) -> list[str]:
    return [
        line for line in server.log().splitlines() if "protocol_error" in line or "UTF-8" in line
    ]


async def _logged(server: ServerProcess, lines: int) -> None:
    """The log holds `lines` protocol lines (once the server has written them), and no more."""

    async def written() -> bool:
        return len(_protocol_lines(server)) >= lines

    await until(written, what=f"{lines} protocol lines in the log")
    assert len(_protocol_lines(server)) == lines, _protocol_lines(server)


async def test_bad_frames_log_one_line_per_socket_and_are_counted(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        # 30 frames that are not UTF-8: the first closes the socket with 1007.
        await _raw_socket(server.port, f"/ws/tables/{table_id}", [_masked(b"\xff\xfe\xfd")] * 30)
        await _logged(server, 1)
        # 29 malformed messages, then invalid UTF-8, on one more socket: one more line.
        garbage = [_masked(b"{not json")] * 10 + [_masked(b'{"type": "dance"}')] * 10
        garbage += [_masked(b'{"type": "action", "action": 3}')] * 9 + [_masked(b"\xc3\x28")]
        await _raw_socket(server.port, f"/ws/tables/{table_id}", garbage)
        await _logged(server, 2)
        log = server.log()
        assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]
        metrics = (await http.get("/metrics")).text
    counted = {
        code: float(value)
        for code, value in re.findall(
            r'dragonstones_protocol_errors_total\{code="(\w+)"\} ([0-9.]+)', metrics
        )
    }
    assert counted == {"invalid_utf8": 2.0, "malformed_json": 10.0, "unknown_type": 10.0,
                       "invalid_message": 9.0}, counted  # fmt: skip


# -- the queue and numbers ----------------------------------------------------------------------


async def test_leaving_the_queue_is_never_rate_limited(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(
        sqlite_db, **QUEUE_SETTINGS, HTTP_RATE_BURST="3", HTTP_RATE_PER_SECOND="0.01"
    )
    queued = Queued(server.http, server.ws, "Lea")
    await queued.join()
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        codes = [(await http.post("/api/tables", json={"seats": 3})).status_code for _ in range(4)]
        assert codes[-1] == 429, codes  # this address has nothing left for changes
    left = await queued.call("DELETE")
    assert left.status_code == 200 and left.json()["status"] == "left", left.text


async def test_numbers_are_integers_on_every_route(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        ann = await join(http, table_id, "Ann")
        refused: list[tuple[str, str, dict[str, Any]]] = [
            ("POST", "/api/tables", {"seats": 3.0}),
            ("POST", "/api/tables", {"seats": 4.0}),
            ("POST", "/api/tables", {"seats": "3"}),
            ("POST", "/api/tables", {"seats": True}),
            ("POST", "/api/tables", {"seats": 3, "turn_seconds": 30.0}),
            ("POST", "/api/tables", {"seats": 3, "choose_seconds": 30.0}),
            ("POST", "/api/tables", {"seats": 3, "grace_seconds": 60.0}),
            ("POST", "/api/quickplay", {"name": "Bea", "seats": 3.0}),
            ("POST", "/api/queue", {"name": "Bea", "size": 4.0}),
            ("POST", "/api/queue", {"name": "Bea", "bots_after": 60.0}),
            ("POST", f"/api/tables/{table_id}/bots", {"count": 1.0}),
            ("PATCH", f"/api/tables/{table_id}", {"turn_seconds": 30.0}),
            ("PATCH", f"/api/tables/{table_id}", {"grace_seconds": True}),
        ]
        for method, path, body in refused:
            r = await http.request(method, path, json=body, headers=bearer(ann))
            assert r.status_code == 422, (method, path, body, r.text)
            assert r.json()["detail"]["code"] == "invalid_request", (body, r.text)
        # Integers pass.
        r = await http.patch(
            f"/api/tables/{table_id}", json={"turn_seconds": 30}, headers=bearer(ann)
        )
        assert r.status_code == 200, r.text
        assert (
            await http.post("/api/tables", json={"seats": 3, "grace_seconds": 60})
        ).status_code == 201
