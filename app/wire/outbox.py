"""One live WebSocket's outgoing side: a small queue drained on the event loop's next turn, so a slow
reader never holds up a game, and messages leave in the order the game produced them. What is due
is written by a callback when the socket takes frames at once (the usual case), else by the
socket's own writer task, which waits for a slow reader, sends through the ASGI interface when the
protocol is not ours, and closes.

A socket that falls behind does not pile up every version: the queue holds at most one pending
`state` and one pending `table`, each rendered only when the writer reaches it (so it carries the
latest version and every event since the last state this socket was sent), plus the answers that
must not be dropped (acks, errors, pongs), whose number is bounded. A socket whose writer has been
stuck on one send for `send_timeout` seconds is closed and its memory freed.

A socket the server gives up on still gets a close frame with its code (1013) after the frames
already handed to the transport (always whole frames), so a slow but honest client reads a clean
close and reconnects with its last version; only a peer that has not read even that within a
further `send_timeout` is cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from websockets.frames import Close, Frame, Opcode

from app.wire.codes import CLOSE_TRY_AGAIN
from app.wire.frames import GuardedWebSockets
from app.wire.transport import PROTOCOL_KEY, TRANSPORT_KEY

log = logging.getLogger("dragonstones.ws")

# Queue markers: rendered when the writer reaches them, so they are always current.
STATE = "\x00state"
TABLE = "\x00table"


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    table_id: str
    seat: int | None  # None: a spectator
    name: str | None
    queue_limit: int
    send_timeout: float = 10.0
    # Set by the room on connect: the frame of the current state for this socket since the
    # version it was last sent (None when there is no game yet), and the table's frame.
    render_state: Callable[[Connection], str | None] | None = None
    render_table: Callable[[], str | None] | None = None
    sent_version: int | None = None  # the last version this socket was sent
    deltas: bool = False  # the client asked for `delta` frames (app.table.live_game)
    queue: deque[str | tuple[int, str]] = field(default_factory=deque)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    state_pending: bool = False
    table_pending: bool = False
    closing: bool = False
    sent_frames: int = 0
    sending_since: float | None = None  # monotonic time the frame being sent was handed over
    seat_row: int | None = None  # the seat's database id (its presence is written there)
    writer: asyncio.Task[None] | None = None  # the task running run_writer
    # The writer's protocol when frames can be written without it (app.wire.frames), and the
    # writer waiting for work: what is due is then written from a callback of the loop's next
    # turn instead of waking the task (`_flush`).
    direct: GuardedWebSockets | None = None
    parked: bool = False
    flush_soon: bool = False
    loop: asyncio.AbstractEventLoop | None = None
    protocol_errors: int = 0  # frames refused as malformed: only the first is logged
    address: str = ""  # the client's address (app.edge.ratelimit.client_address), for the log

    def send(self, message: BaseModel) -> None:
        """Queue a message that must not be dropped; never blocks."""
        self.send_text(message.model_dump_json())

    def send_text(self, frame: str) -> None:
        if self.closing:
            return
        if len(self.queue) >= self.queue_limit:
            # Only answers pile up here (states and tables coalesce): a client that sends
            # without ever reading. It reconnects with its last version and catches up.
            log.warning(
                "closing a socket of table %s: %d messages unread", self.table_id, len(self.queue)
            )
            self.queue.clear()
            self.close(CLOSE_TRY_AGAIN, "too far behind; reconnect with your last version")
            return
        self.queue.append(frame)
        self._wake()

    def push_state(self) -> None:
        """The game moved on: this socket gets a state (one, however far it falls behind)."""
        if not self.closing and not self.state_pending:
            self.state_pending = True
            self.queue.append(STATE)
            self._wake()

    def push_table(self) -> None:
        if not self.closing and not self.table_pending:
            self.table_pending = True
            self.queue.append(TABLE)
            self._wake()

    def _wake(self) -> None:
        """Something is due: written on the loop's next turn, by a callback while the writer
        waits and the socket takes frames at once (no task step and no wait objects made again
        per frame, bench/RESULTS.md), else by the writer."""
        if self.parked and self.direct is not None and self.loop is not None:
            if not self.flush_soon:
                self.flush_soon = True
                self.loop.call_soon(self._flush)
        else:
            self.wakeup.set()

    def _flush(self) -> None:
        """Write what is due now, up to a close, if the socket takes it at once; anything else
        (a close, a slow reader, a socket not open) is the writer's."""
        self.flush_soon = False
        direct = self.direct
        if not self.parked or not self.queue:
            return  # the writer took over meanwhile
        if (
            direct is None
            or isinstance(self.queue[0], tuple)
            or self.ws.application_state != WebSocketState.CONNECTED
            or not direct.ready_now()
        ):
            self.wakeup.set()
            return
        try:
            frames = self._due()
            if frames:
                direct.write_texts(frames)
                self.sent_frames += len(frames)
        except Exception as exc:
            # As in the writer, which then ends: the peer went away (the reader notices), or a
            # frame failed to render (the socket is closed).
            if isinstance(exc, OSError | RuntimeError):
                self._drop()
            else:
                self._failed()
            if self.writer is not None:
                self.writer.cancel()
            return
        if self.queue:
            self.wakeup.set()  # a close waits behind them: the writer's

    def _drop(self) -> None:
        """Nothing more is sent on this socket: what is queued goes."""
        self.closing = True
        self.queue.clear()

    def close(self, code: int, reason: str = "") -> None:
        """Close after what is already queued has been sent."""
        if self.closing:
            return
        self.closing = True
        self.queue.append((code, reason))
        self.wakeup.set()

    def _render(self, item: str) -> str | None:
        if item is STATE:
            self.state_pending = False
            return self.render_state(self) if self.render_state else None
        if item is TABLE:
            self.table_pending = False
            return self.render_table() if self.render_table else None
        return item

    def _due(self) -> list[str]:
        """Everything queued up to a close, rendered now, in order."""
        frames: list[str] = []
        queue = self.queue
        while queue and not isinstance(queue[0], tuple):
            frame = self._render(queue.popleft())  # type: ignore[arg-type]
            if frame is not None:
                frames.append(frame)
        return frames

    async def run_writer(self) -> None:
        self.writer = asyncio.current_task()
        self.loop = asyncio.get_running_loop()
        # uvicorn's protocol of this socket when it is ours (app.wire.frames): what is due goes
        # out in one write; otherwise each frame through the ASGI `send`.
        protocol = self.ws.scope.get(PROTOCOL_KEY)
        self.direct = protocol if isinstance(protocol, GuardedWebSockets) else None
        batched = self.direct.send_texts if self.direct is not None else None
        try:
            while True:
                if not self.queue:
                    self.wakeup.clear()
                    self.parked = True
                    try:
                        await self.wakeup.wait()
                    finally:
                        self.parked = False
                    continue
                head = self.queue[0]
                if isinstance(head, tuple):
                    await self._close_socket(*head)
                    return
                if self.ws.application_state != WebSocketState.CONNECTED:
                    return
                frames = self._due()
                if not frames:
                    continue
                # Watched by `stuck` (a timer per send would cost more than the send).
                self.sending_since = time.monotonic()
                if batched is not None:
                    await batched(frames)
                else:
                    for frame in frames:
                        await self.ws.send_text(frame)
                self.sending_since = None
                self.sent_frames += len(frames)
        except (OSError, RuntimeError, WebSocketDisconnect):
            # The peer went away mid-send (or the socket is closing): the reader notices.
            self._drop()
        except Exception:
            self._failed()

    def _failed(self) -> None:
        """Anything but the peer going away (a frame that failed to render) would leave the
        socket open with nothing ever sent again, the client waiting forever: it is closed
        instead, and the client reconnects with its last version."""
        log.exception("socket of table %s: its writer failed", self.table_id)
        self._drop()
        self._give_up(CLOSE_TRY_AGAIN, "server error; reconnect with your last version")

    def stuck(self, now: float) -> bool:
        """Close this socket if one frame has waited for the client longer than send_timeout
        (the hub asks every socket every few seconds). True if it was closed."""
        since = self.sending_since
        if since is None or now - since < self.send_timeout:
            return False
        log.warning("closing a socket of table %s: not read for %.0f s", self.table_id, now - since)
        self._drop()
        # The stuck send has not reached the transport yet: drop it, so nothing follows the
        # close frame.
        if self.writer is not None and self.writer is not asyncio.current_task():
            self.writer.cancel()
        self._give_up(CLOSE_TRY_AGAIN, "too far behind; reconnect with your last version")
        return True

    async def _close_socket(self, code: int, reason: str) -> None:
        if self.ws.application_state != WebSocketState.CONNECTED:
            return
        try:
            async with asyncio.timeout(2.0):
                await self.ws.close(code=code, reason=reason[:120])
        except Exception:
            self._give_up(code, reason)

    def _give_up(self, code: int, reason: str) -> None:
        """End a connection whose client does not keep up: a close frame after what the transport
        already holds (whole frames: the server writes each frame in one piece), then the
        transport closes once that is read; a peer that reads none of it within send_timeout
        is cut."""
        transport = self._transport()
        if transport is None or transport.is_closing():
            self._abort()
            return
        close = Frame(Opcode.CLOSE, Close(code, reason[:120]).serialize())
        with contextlib.suppress(Exception):
            transport.write(close.serialize(mask=False))  # type: ignore[attr-defined]
            transport.close()
        asyncio.get_running_loop().call_later(self.send_timeout, self._abort)

    def _transport(self) -> asyncio.BaseTransport | None:
        transport: asyncio.BaseTransport | None = self.ws.scope.get(TRANSPORT_KEY)
        return transport

    def _abort(self) -> None:
        """Drop the TCP connection of a peer that does not read (a close frame would wait
        behind everything it has not read)."""
        transport = self._transport()
        if transport is not None:
            with contextlib.suppress(Exception):
                transport.abort()  # type: ignore[attr-defined]

    def cap_kernel_buffer(self, size: int) -> None:
        """Cap what the kernel holds for this socket: unread frames would otherwise pile up
        there (megabytes per socket, out of sight of RSS) long before a send blocks and the
        stuck-socket watch can see it."""
        transport = self._transport()
        sock = transport.get_extra_info("socket") if transport is not None else None
        if sock is not None and size > 0:
            # ValueError: the peer already went away (uvloop's socket has no descriptor).
            with contextlib.suppress(OSError, ValueError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
