"""A push service for the tests: an HTTP endpoint on 127.0.0.1 that takes what `pywebpush`
posts (one path per subscription), keeps every request, and answers 201, or the statuses a test
queues for a path (410: the subscription is gone; 503: try again later). And a browser's side of
a subscription: its P-256 key and auth secret, which decrypt what it receives (`http_ece`)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import http_ece
import httpx
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.ports import free_port
from tests.server.harness import SeatClient, ServerProcess, join


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Browser:
    """A browser's push subscription: where its push service takes pushes, and its keys."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        """As `PushSubscription.toJSON()` gives it."""
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)},
        }

    def read(self, body: bytes) -> dict[str, Any]:
        """Decrypt one push (RFC 8291, aes128gcm) and parse its JSON."""
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return dict(json.loads(plain))


@dataclass
class Request:
    headers: dict[str, str]
    body: bytes
    status: int


class PushService:
    def __init__(self) -> None:
        self.port = free_port()
        self.requests: dict[str, list[Request]] = defaultdict(list)
        self.answers: dict[str, list[int]] = defaultdict(list)  # queued statuses per path
        self.runner: web.AppRunner | None = None

    def browser(self, name: str) -> Browser:
        return Browser(f"http://127.0.0.1:{self.port}/push/{name}")

    def delivered(self, name: str) -> list[Request]:
        return [r for r in self.requests[name] if r.status < 300]

    async def _take(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        queued = self.answers[name]
        status = queued.pop(0) if queued else 201
        self.requests[name].append(Request(dict(request.headers), await request.read(), status))
        return web.Response(status=status)

    async def __aenter__(self) -> PushService:
        app = web.Application()
        app.router.add_post("/push/{name}", self._take)
        self.runner = web.AppRunner(app, shutdown_timeout=2)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


async def signed_in(server: ServerProcess, table_id: str, name: str) -> tuple[Any, Any]:
    """A browser of its own (its cookie's player) seated at the table as `name`."""
    http = httpx.AsyncClient(base_url=server.http, timeout=20)
    assert (await http.get("/api/me")).status_code == 200
    seat = await join(http, table_id, name)
    link = {"table_id": table_id, "token": seat.token}
    assert (await http.post("/api/me/seats", json=link)).status_code == 204
    return http, seat


@dataclass(eq=False)
class Player(SeatClient):
    """A person at the table who answers with the strategy, unless paused."""

    paused: bool = False

    async def maybe_act(self) -> None:
        if not self.paused:
            await super().maybe_act()


async def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait (for the sockets read meanwhile and the server's work, not for time) until
    `check()` holds."""
    ends = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < ends, f"not reached within {timeout} s: {what}"
        await asyncio.sleep(0.02)


async def read_forever(client: Player) -> None:
    """Read the client's socket and answer its prompts (unless paused) until cancelled."""
    while True:
        await client.recv(timeout=3600)
        await client.maybe_act()


def metric(text: str, name: str) -> float:
    """The sum of a /metrics text's samples whose line starts with `name`."""
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name) and not line.startswith("#")
    )
