"""A queued player over real HTTP and a real queue socket, for the matchmaking queue's tests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import track

# Short settings: passes and polls every fraction of a second, a grace of a few seconds.
QUEUE_SETTINGS = {
    "QUEUE_MATCH_SECONDS": "0.2",
    "QUEUE_POLL_SECONDS": "0.1",
    "QUEUE_GRACE_SECONDS": "3",
    "QUEUE_MAX_PER_ADDRESS": "1000",
}


@dataclass(eq=False)
class Queued:
    """One player in the queue: the ticket, and (once opened) its socket's messages."""

    http: str
    ws_base: str
    name: str
    ticket: str = ""
    token: str = ""
    joined: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    ws: Any = None
    close_code: int | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def join(self, size: int | str = "any", bots_after: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "size": size}
        if bots_after is not None:
            body["bots_after"] = bots_after
        async with httpx.AsyncClient(base_url=self.http, timeout=20) as http:
            r = await http.post("/api/queue", json=body)
        assert r.status_code == 201, r.text
        self.joined = r.json()
        self.ticket, self.token = self.joined["ticket"], self.joined["token"]
        return self.joined

    async def call(self, method: str, path: str = "") -> httpx.Response:
        async with httpx.AsyncClient(base_url=self.http, timeout=20) as http:
            return await http.request(method, f"/api/queue/{self.ticket}{path}", headers=self.auth)

    async def read(self) -> dict[str, Any]:
        r = await self.call("GET")
        assert r.status_code == 200, r.text
        return dict(r.json())

    async def connect(self, ws_base: str | None = None) -> None:
        url = f"{ws_base or self.ws_base}/ws/queue?ticket={self.ticket}&token={self.token}"
        await self.close()  # a socket from before (a reload) is released first
        ws = await websockets.connect(url, close_timeout=2)
        self.ws = track(f"the queue socket of {self.name}", ws)

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        try:
            raw = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed as exc:
            self.close_code = exc.rcvd.code if exc.rcvd else None
            raise
        message = json.loads(raw)
        self.messages.append(message)
        return dict(message)

    async def wait_for(self, kind: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """The next message of this type (with these fields), skipping the others."""
        deadline = time.monotonic() + timeout
        for m in self.messages:
            if m["type"] == kind and all(m.get(k) == v for k, v in fields.items()):
                return m
        while True:
            m = await self.recv(max(0.01, deadline - time.monotonic()))
            if m["type"] == kind and all(m.get(k) == v for k, v in fields.items()):
                return m

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


async def seated_names(http_base: str, table_id: str) -> list[tuple[int, str, bool]]:
    async with httpx.AsyncClient(base_url=http_base, timeout=20) as http:
        table = (await http.get(f"/api/tables/{table_id}")).json()
    return [(p["seat"], p["name"], p["bot"]) for p in table["players"]]
