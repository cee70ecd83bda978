"""The per-process loop that keeps the matchmaking queue moving: a matching pass every
`QUEUE_MATCH_SECONDS`, the heartbeat of the entries whose sockets are open here, and what each
socket is told.

Whichever process forms a table, every socket learns it from the database: each process reads
the tickets of its own sockets (two queries, however many sockets) every `QUEUE_POLL_SECONDS`, and
at once after a join or a match made here. A socket is sent a message only when what it shows
changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from app.core.clock import server_clock
from app.core.config import Settings
from app.core.errors import is_outage
from app.core.messages import MatchedOut, QueueLeftOut
from app.lobby.matchmaking import Matchmaker
from app.lobby.tables import Lobby
from app.lobby.tickets import QueueMessage
from app.store.lobby_ports import QueueStore
from app.wire.codes import CLOSE_NORMAL
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.queue")

# With nobody waiting, a full matching pass only every this many seconds.
_FULL_PASS_SECONDS = 30.0
# The database away: the loop's failures are logged once per this many seconds.
_OUTAGE_LOG_SECONDS = 30.0


class QueueService:
    """This process's queue: the matchmaker, the open queue sockets and the loop."""

    def __init__(self, settings: Settings, queue: QueueStore, lobby: Lobby) -> None:
        self.settings = settings
        self.matchmaker = Matchmaker(queue, lobby, settings)
        self.sockets: dict[str, set[Connection]] = {}
        self.shown: dict[Connection, str] = {}  # the last message each socket was sent
        self._wake = asyncio.Event()
        # The loop's heartbeat (which clears `closed_at`) and a socket's close are written one at
        # a time: a heartbeat of a list taken before a close, written after it, would make the
        # closed page look open again until its heartbeat aged out.
        self._beats = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.closed = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="queue")

    async def close(self) -> None:
        self.closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def wake(self) -> None:
        """Something changed here (a join, a match): tell the sockets now."""
        self._wake.set()

    async def _run(self) -> None:
        settings = self.settings
        last_match = last_beat = last_full = 0.0
        beat_every = max(0.2, settings.queue_grace_seconds / 4)
        # An outage fails every pass: said once in a while, not twice a second.
        outage_said = -_OUTAGE_LOG_SECONDS
        while not self.closed:
            await server_clock.wait(self._wake, settings.queue_poll_seconds)
            self._wake.clear()
            now = server_clock.monotonic()
            try:
                if (
                    settings.queue_match_seconds > 0
                    and now - last_match >= settings.queue_match_seconds
                ):
                    # A full pass (a write) when someone waits; else now and then, to delete
                    # old entries and start a table a crashed process formed.
                    if (
                        now - last_full >= _FULL_PASS_SECONDS
                        or await self.matchmaker.anyone_waiting()
                    ):
                        last_full = now
                        await self.matchmaker.match()
                    last_match = now
                if self.sockets and now - last_beat >= beat_every:
                    last_beat = now
                    async with self._beats:
                        await self.matchmaker.heartbeat(list(self.sockets))
                await self.tell(list(self.sockets))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not is_outage(exc) or now - outage_said >= _OUTAGE_LOG_SECONDS:
                    log.warning("queue loop: %r", exc)
                    outage_said = now if is_outage(exc) else outage_said

    async def socket_opened(self, ticket: str) -> None:
        """A socket of `ticket` opened here (back after a reload: matchable again)."""
        async with self._beats:
            await self.matchmaker.heartbeat([ticket])

    async def socket_closed(self, ticket: str) -> None:
        """The last socket of `ticket` here closed (already removed from `sockets`)."""
        async with self._beats:
            await self.matchmaker.socket_closed(ticket)

    async def tell(self, tickets: list[str]) -> None:
        """Send each socket of these tickets what it should show, if that changed."""
        if not tickets:
            return
        messages = await self.matchmaker.messages(tickets)
        for ticket in tickets:
            message = messages.get(ticket)
            if message is not None:
                for conn in list(self.sockets.get(ticket, ())):
                    self.show(conn, message)

    def show(self, conn: Connection, message: QueueMessage) -> None:
        frame = message.model_dump_json(exclude={"server_time"})
        if self.shown.get(conn) == frame:
            return
        self.shown[conn] = frame
        conn.send(message)
        if isinstance(message, MatchedOut | QueueLeftOut):
            conn.close(CLOSE_NORMAL, message.type)

    def add(self, ticket: str, conn: Connection) -> None:
        self.sockets.setdefault(ticket, set()).add(conn)

    def remove(self, ticket: str, conn: Connection) -> bool:
        """Forget a socket; True if it was this ticket's last here."""
        self.shown.pop(conn, None)
        conns = self.sockets.get(ticket)
        if conns is None:
            return False
        conns.discard(conn)
        if conns:
            return False
        del self.sockets[ticket]
        return True
