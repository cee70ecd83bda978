"""A WebSocket's frames that never reach the application, counted against its message budget.

uvicorn's WebSocket protocol (websockets' sans-I/O implementation) answers a ping with a pong and
gathers a fragmented message's continuation frames before the application sees anything, so a
client could send pings (or one-byte fragments) without end and no message limit would ever see
them. Here every ping, pong and continuation frame spends one credit of the socket's token bucket
(`RATE_PER_SECOND`, bursts of `RATE_BURST`), the same bucket the table and queue sockets spend a
credit of for each message (`frame_budget` hands it to them): a socket beyond it gets an `error`
`rate_limited` and is closed with 1008, as a socket sending too many messages is. Text and binary
frames take uvicorn's own path unchanged: a normal message costs nothing more here.

The socket's place under the connection cap (app.edge.accept) is given back when it closes.

The server pings a socket only once it has heard nothing from it for uvicorn's ping interval
(`WS_PING_AFTER_SILENCE_SECONDS`, 30 s; uvicorn pings every interval regardless): a page sends a
`ping` message every 25 s, which shows the connection alive as a pong would, so a page's socket
gets no WebSocket pings at all, and a silent one is still closed after that silence and the
pong's 20 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.frames import Frame
from websockets.protocol import OPEN

from app.core.errors import Code
from app.core.messages import ErrorOut
from app.wire.buckets import TokenBucket
from app.wire.codes import CLOSE_POLICY

# The scope key under which a socket's bucket reaches the application.
FRAME_BUDGET = "dragonstones.frame_budget"
_FLOODED = ErrorOut(code=Code.RATE_LIMITED, message="too many messages; slow down")
_REASON = "rate limit exceeded"


_H16 = struct.Struct("!BBH").pack
_H64 = struct.Struct("!BBQ").pack


def text_header(size: int) -> bytes:
    """The header of a whole, unmasked text frame of `size` bytes with no extension (RFC 6455
    5.2): what websockets' `Frame.serialize` writes for a server's text message, without its
    object and checks (a fifth of the time to frame a message)."""
    if size < 126:
        return bytes((0x81, size))
    if size < 65536:
        return _H16(0x81, 126, size)
    return _H64(0x81, 127, size)


@dataclass(frozen=True)
class FrameLimits:
    rate: float
    burst: int
    release: Callable[[asyncio.BaseTransport], None]  # the connection cap's place, given back
    flooded: Callable[[str], None]  # counts and logs a socket closed for its control frames


def frame_budget(scope: Any) -> TokenBucket | None:
    """The socket's bucket, which its control frames spend too (None: not served this way)."""
    budget = scope.get(FRAME_BUDGET)
    return budget if isinstance(budget, TokenBucket) else None


class GuardedWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol whose pings, pongs and continuation frames spend credits."""

    limits: ClassVar[FrameLimits]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.budget = TokenBucket(self.limits.rate, self.limits.burst)
        self.flooded = False
        self.heard_at = self.loop.time()  # the last bytes from the peer
        # Between messages, `frames` (uvicorn's parts of the message being read) is this
        # socket's own empty list (see `send_receive_event_to_app`).
        self.no_frames: list[bytes] = []

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            cast(dict[str, Any], scope)[FRAME_BUDGET] = self.budget

    # At a human pace a socket's next message comes seconds later. An object made for each
    # message and kept until the next one outlives the young collections of the garbage
    # collector, each of which walks it (bench/RESULTS.md): so none is kept here.

    def handle_events(self) -> None:
        """uvicorn's, then websockets' own list of events put back, emptied, in place of the new
        one it swapped in to hand the events over (nothing is parsed meanwhile: parsing is in
        `receive_data`, before)."""
        conn = self.conn
        held = conn.events
        super().handle_events()
        if not conn.events and conn.events is not held:
            held.clear()
            conn.events = held

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, which leaves a new empty list as `frames` until the next message's first
        frame replaces it (`handle_text`, `handle_bytes`): the socket's own empty one instead."""
        super().send_receive_event_to_app()
        if not self.frames:
            self.no_frames.clear()  # (a message's parts are only ever added to a new list)
            self.frames = self.no_frames

    def handle_ping(self) -> None:
        if self._spend():
            super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if self._spend():
            super().handle_pong(event)

    def handle_cont(self, event: Frame) -> None:
        if self._spend():
            super().handle_cont(event)

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        if not self.flooded:
            super().data_received(data)

    def send_keepalive_ping(self) -> None:
        """uvicorn's timer, every `ping_interval`: a ping only if the peer has been silent that
        long; else the check again that long after its last bytes."""
        quiet = self.loop.time() - self.heard_at
        if self.ping_interval is not None and quiet < self.ping_interval:
            self.ping_timer = self.loop.call_later(
                self.ping_interval - quiet, self.send_keepalive_ping
            )
            return
        super().send_keepalive_ping()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.limits.release(self.transport)

    def ready_now(self) -> bool:
        """Whether text messages can be written this instant, framed here: the transport takes
        more (not paused by a slow reader), the socket is open for messages, no compression was
        negotiated and no fragmented message is under way (app.wire.outbox writes what is due
        without waking its writer task then)."""
        conn = self.conn
        return (
            self.writable.is_set()
            and not self.disconnected
            and not self.close_sent
            and self.handshake_complete
            and self.initial_response is None
            and conn.state is OPEN
            and not conn.extensions
            and not conn.expect_continuation_frame
        )

    def write_texts(self, texts: list[str]) -> None:
        """Write these text messages in order in one write to the transport, when `ready_now`:
        the same bytes as websockets' own framing, after anything it still holds to send."""
        conn = self.conn
        # websockets hands over what it holds by swapping in a new list, which would then live
        # until the socket's next frame (seconds at a human pace), one more object for every
        # young collection of the garbage collector to walk: asked only when it holds something.
        parts = conn.data_to_send() if conn.writes else []
        for text in texts:
            data = text.encode()
            parts.append(text_header(len(data)))
            parts.append(data)
        self.transport.write(b"".join(parts))

    async def send_texts(self, texts: list[str]) -> None:
        """Send these text messages in order in one write to the transport (uvicorn's `send`
        writes each message on its own, behind the ASGI layers): what a socket's writer has due
        in one turn of the event loop goes out together (app.wire.outbox)."""
        await self.writable.wait()
        if self.disconnected:
            raise ClientDisconnected()
        if self.close_sent or not self.handshake_complete or self.initial_response is not None:
            raise RuntimeError("the socket is not open for messages")
        conn = self.conn
        if self.ready_now():
            self.write_texts(texts)
            return
        try:
            for text in texts:
                conn.send_text(text.encode())
        except InvalidState:
            raise ClientDisconnected() from None
        self.transport.write(b"".join(conn.data_to_send()))

    def _spend(self) -> bool:
        if self.flooded:  # closed for it already: nothing more is answered
            return False
        if self.budget.allow():
            return True
        self._close_flooded()
        return False

    def _close_flooded(self) -> None:
        """Beyond its credits: the `error` and close 1008, then our side of the TCP connection
        is shut. What the client still sends is read and dropped unparsed (closing with unread
        data would reset the connection, and the client would never read why) until it closes
        too, or for uvicorn's close timeout at most."""
        if self.close_sent or self.transport.is_closing():
            return
        self.close_sent = self.flooded = True
        self.limits.flooded(self.client[0] if self.client else "local")
        with contextlib.suppress(Exception):  # the peer may already be closing
            self.conn.send_text(_FLOODED.model_dump_json().encode())
        with contextlib.suppress(Exception):
            self.conn.send_close(CLOSE_POLICY, _REASON)
        self.transport.write(b"".join(self.conn.data_to_send()))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        disconnect = {"type": "websocket.disconnect", "code": CLOSE_POLICY, "reason": _REASON}
        self.queue.put_nowait(disconnect)  # type: ignore[arg-type]
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)
