"""One live WebSocket: an outgoing queue drained by its own task, so a slow reader never holds up
a game, and messages leave in the order the game produced them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

from pydantic import BaseModel
from starlette.websockets import WebSocket, WebSocketState

log = logging.getLogger("dragonstones.ws")

# WebSocket close codes used by the server.
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008  # floods, bad token
CLOSE_TOO_BIG = 1009
CLOSE_RESTART = 1012  # server shutting down: reconnect later
CLOSE_TRY_AGAIN = 1013  # too far behind: reconnect with the last version
CLOSE_NOT_FOUND = 4404  # no such table


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    table_id: str
    seat: int | None  # None: a spectator
    name: str | None
    queue_limit: int
    queue: asyncio.Queue[str | tuple[int, str]] = field(default_factory=asyncio.Queue)
    closing: bool = False
    sent_frames: int = 0

    def send(self, message: BaseModel) -> None:
        """Queue a message; never blocks. A connection too far behind is closed instead."""
        if self.closing:
            return
        if self.queue.qsize() >= self.queue_limit:
            log.warning(
                "closing a socket of table %s: %d messages unread",
                self.table_id,
                self.queue.qsize(),
            )
            # Drop what it will never read: it reconnects with its last version and catches up.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.close(CLOSE_TRY_AGAIN, "too far behind; reconnect with your last version")
            return
        self.queue.put_nowait(message.model_dump_json())

    def close(self, code: int, reason: str = "") -> None:
        """Close after what is already queued has been sent."""
        if self.closing:
            return
        self.closing = True
        self.queue.put_nowait((code, reason))

    async def run_writer(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if isinstance(item, tuple):
                    code, reason = item
                    if self.ws.application_state == WebSocketState.CONNECTED:
                        with contextlib.suppress(Exception):
                            await self.ws.close(code=code, reason=reason[:120])
                    return
                if self.ws.application_state != WebSocketState.CONNECTED:
                    return
                await self.ws.send_text(item)
                self.sent_frames += 1
        except Exception:  # the peer went away mid-send: the reader notices and cleans up
            self.closing = True


class RateLimiter:
    """Token bucket: `rate` messages per second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
