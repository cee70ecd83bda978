"""The connection layer under `dragonstones serve`: what a TCP connection may hold before it has
sent a request. uvicorn starts no timer on a new connection, has no header timeout and no cap per
address, so one address could hold every descriptor of the process with idle connections.

- **A cap per address at accept** (`MAX_CONNECTIONS_PER_ADDRESS`, an IPv6 client's /64 counting as
  one address), before a byte is parsed: beyond it the connection gets `429 too_many_connections`
  and is closed. The address is the TCP peer's: a peer in `TRUSTED_PROXIES` (a reverse proxy or a
  tunnel of one's own) carries many clients and is not held to it, only to the process's total.
- **A total** a little below the open-file limit (`RESERVED_DESCRIPTORS` stay for the database,
  the log and the workers): beyond it new connections get `503 server_full`, so a process at its
  limit keeps serving the connections it has instead of failing. At start the soft open-file limit
  is raised to the hard one.
- **A timer from accept until the request head is complete** (`HEADER_TIMEOUT_SECONDS`), and for
  each later request from its first byte: it is not reset by data, so a head sent a byte at a
  time is closed as surely as a connection that sends nothing (`408 request_timeout` for a head
  begun, a silent close for nothing at all). Between requests uvicorn's own keep-alive timer
  (`timeout_keep_alive`, 5 s) closes a silent connection.
- **A cap on the size of a request head** (`MAX_REQUEST_HEAD_BYTES`; uvicorn's httptools parser has
  none): beyond it `431 head_too_large`.

A connection upgraded to a WebSocket keeps its place under the cap until it closes
(app.wire.frames, which also counts its control frames against its message budget).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import resource
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.core.config import Settings
from app.core.errors import Code
from app.core.metrics import Metrics
from app.core.refusals import address_key
from app.edge.ratelimit import parse_proxies
from app.wire.frames import FrameLimits, GuardedWebSockets

# Descriptors kept for everything but client connections (the database pool and its listener,
# SQLite's files, the log, the hard bots' pipes, the event loop's own).
RESERVED_DESCRIPTORS = 128
# uvicorn's keep-alive timer between requests (its default), stated here since the docs name it.
KEEP_ALIVE_SECONDS = 5
_Networks = list[ipaddress.IPv4Network | ipaddress.IPv6Network]


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (often 1,024 of 4,096 or
    more); returns the soft limit in force (0: unlimited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 0 if soft == resource.RLIM_INFINITY else soft


def total_for(open_files: int) -> int:
    """The connections a process may hold with this open-file limit (0: no limit)."""
    if open_files <= 0:
        return 0
    return max(open_files - RESERVED_DESCRIPTORS, open_files // 2)


@dataclass(eq=False)
class Guard:
    """The connections this process holds: in all, and per client address."""

    per_address: int  # 0: no cap per address
    total: int  # 0: no total
    header_timeout: float  # 0: no timer
    head_bytes: int
    metrics: Metrics
    trusted: _Networks = field(default_factory=list)
    by_address: Counter[str] = field(default_factory=Counter)
    holders: dict[asyncio.BaseTransport, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.metrics.connections_open.set_function(lambda: len(self.holders))

    def admit(self, transport: asyncio.BaseTransport) -> tuple[str, str | None]:
        """(the peer's address, why it is refused or None); an admitted connection counts until
        `release`."""
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "local"
        if self.total and len(self.holders) >= self.total:
            return host, "server_full"
        key = ""
        if self.per_address and not self._trusted(host):
            key = address_key(host)
            if self.by_address[key] >= self.per_address:
                return host, "too_many_from_address"
            self.by_address[key] += 1
        self.holders[transport] = key
        return host, None

    def release(self, transport: asyncio.BaseTransport) -> None:
        key = self.holders.pop(transport, None)
        if key:
            self.by_address[key] -= 1
            if self.by_address[key] <= 0:
                del self.by_address[key]  # no entry per address ever seen

    def _trusted(self, host: str) -> bool:
        if not self.trusted:
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)


def _answer(transport: asyncio.BaseTransport, status: str, code: str, message: str) -> None:
    """Answer a connection we give up on with the usual JSON body, then close it."""
    body = json.dumps({"detail": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    with contextlib.suppress(Exception):
        transport.write(head.encode() + body)  # type: ignore[attr-defined]
    transport.close()


_REFUSALS = {
    "too_many_from_address": (
        "429 Too Many Requests",
        Code.TOO_MANY_CONNECTIONS,
        "too many connections from your address; close some and try again",
    ),
    "server_full": (
        "503 Service Unavailable",
        Code.UNAVAILABLE,
        "the server holds as many connections as it may; try again shortly",
    ),
}


class _HeadTooLarge(Exception):
    pass


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools) under the guard: capped at accept, timed until each
    request head is complete, its head's size capped."""

    guard: ClassVar[Guard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refused = False
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._too_large = False
        self._begun = False  # a request's first byte came, its head not yet complete
        self._host = ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._host, refused = self.guard.admit(transport)
        if refused is not None:
            # Before any parsing: nothing of this connection is kept.
            self._refused = True
            _answer(transport, *_REFUSALS[refused])
            self.guard.metrics.connection_dropped(refused, self._host)
            return
        super().connection_made(transport)
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return
        self._stop_head_timer()
        self.guard.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        # uvicorn's own, but for the head's size and an invalid request's log line (within the
        # address's budget, where uvicorn logs every one).
        waiting = self._head_timer is not None
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError:
            if self._too_large:
                self._give_up("head_too_large")
            else:
                self.guard.metrics.connection_dropped("invalid_request", self._host)
                self.send_400_response("Invalid HTTP request received.")
            return
        if not waiting or self._head_timer is None or self.transport.is_closing():
            return
        # Still no complete head: all of it is head.
        self._head_bytes += len(data)
        if self._head_bytes > self.guard.head_bytes:
            self._give_up("head_too_large")

    def on_headers_complete(self) -> None:
        self._stop_head_timer()
        self._begun = False
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.guard.head_bytes:
            self._too_large = True
            raise _HeadTooLarge  # the parser stops; data_received answers
        super().on_headers_complete()

    def on_message_begin(self) -> None:
        # The first byte of a request: its head is timed from here (from accept for the first
        # request; between requests uvicorn's keep-alive timer closes a silent connection).
        super().on_message_begin()
        self._begun = True
        if self._head_timer is None:
            self._await_head()

    def _await_head(self) -> None:
        self._stop_head_timer()
        self._head_bytes = 0
        if self.guard.header_timeout > 0:
            self._head_timer = self.loop.call_later(self.guard.header_timeout, self._timed_out)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if not self._begun:
            # Nothing sent at all (a browser's spare connection, or an idle one): closed quietly.
            self.guard.metrics.connection_dropped("idle", self._host, logged=False)
            self.transport.close()
            return
        self._give_up("header_timeout")

    def _give_up(self, reason: str) -> None:
        self._stop_head_timer()
        self.guard.metrics.connection_dropped(reason, self._host)
        if reason == "header_timeout":
            _answer(
                self.transport, "408 Request Timeout", Code.REQUEST_TIMEOUT,
                f"the request was not sent within {self.guard.header_timeout:g} s",
            )  # fmt: skip
        else:
            _answer(
                self.transport, "431 Request Header Fields Too Large", Code.HEAD_TOO_LARGE,
                f"a request's line and headers may hold {self.guard.head_bytes} bytes at most",
            )  # fmt: skip


def protocols(
    settings: Settings, metrics: Metrics, open_files: int
) -> tuple[type[GuardedHttp], type[GuardedWebSockets]]:
    """The HTTP and WebSocket protocol classes for uvicorn's `Config(http=..., ws=...)`, sharing
    one guard made from the settings."""
    shared = Guard(
        per_address=settings.max_connections_per_address,
        total=total_for(open_files),
        header_timeout=settings.header_timeout_seconds,
        head_bytes=settings.max_request_head_bytes,
        metrics=metrics,
        trusted=parse_proxies(settings.trusted_proxies),
    )

    def flooded(host: str) -> None:
        metrics.refused(Code.RATE_LIMITED, address=host, frames="control")

    frame_limits = FrameLimits(
        settings.rate_per_second, settings.rate_burst, shared.release, flooded
    )

    class Http(GuardedHttp):
        guard = shared

    class WebSockets(GuardedWebSockets):
        limits = frame_limits

    return Http, WebSockets
