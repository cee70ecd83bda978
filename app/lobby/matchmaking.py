"""The matchmaking queue in the database: join, leave, read a ticket, accept bots, keep an entry
alive, and the matching pass that forms tables (app.lobby.queue_rule says who plays with whom).

Any process may match anyone: the pass runs in one transaction that first takes the queue's lock
(Postgres: a transaction-scoped advisory lock, so passes of all processes run one after another;
SQLite: its single writer) and then locks the waiting rows it reads (`FOR UPDATE`). Each entry
moves from `waiting` to `matched` through a guarded update (`WHERE status = 'waiting'`, one row
or the whole transaction is rolled back), in the same transaction as the new table and its seats:
no player is seated twice, no table is formed from a player who left or was seated elsewhere.
The game is then started through the lobby's own start, with the first seat's token (its host).
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.config import Settings
from app.core.errors import Code, ServiceError
from app.core.schemas import TicketOut
from app.core.security import hash_token, new_id, new_seed, new_token
from app.lobby import queue_rule
from app.lobby.tables import Lobby
from app.lobby.tickets import QueueMessage, queue_message, ticket_out
from app.store.db import Database
from app.store.models import QueueEntryRow, SeatRow, TableRow, as_utc, utcnow

log = logging.getLogger("dragonstones.queue")

Q = QueueEntryRow
# A table formed by the queue and not started this long after (its process died between the
# two steps) is started by the next pass.
_RESTART_AFTER = timedelta(seconds=5)


@dataclass(frozen=True)
class Formed:
    table_id: str
    host_token: str  # the first seat's: the lobby starts a table for a seated token
    tickets: tuple[str, ...]


def _advisory_key(schema: str | None) -> int:
    """One lock per schema: queues of other schemas on the same database stay apart."""
    return zlib.crc32(f"dragonstones-queue:{schema or ''}".encode())


class Matchmaker:
    def __init__(self, db: Database, lobby: Lobby, settings: Settings) -> None:
        self.db = db
        self.lobby = lobby
        self.settings = settings
        self.grace = timedelta(seconds=settings.queue_grace_seconds)
        self._lock_key = _advisory_key(settings.database_schema)

    # -- the queue's lock and who is alive -------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _locked(self) -> AsyncIterator[AsyncSession]:
        async with self.db.write() as session:
            if not self.db.sqlite:
                await session.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": self._lock_key}
                )
            yield session

    def _live(self, now: datetime) -> ColumnElement[bool]:
        """Waiting, a socket open (or just joined), refreshed within the grace: may be matched."""
        return and_(
            Q.status == "waiting", Q.closed_at.is_(None), Q.heartbeat_at >= now - self.grace
        )

    async def _live_entries(
        self, session: AsyncSession, now: datetime, lock: bool = True
    ) -> list[QueueEntryRow]:
        query = select(Q).where(self._live(now)).order_by(Q.created_at, Q.id)
        if lock:
            query = query.with_for_update()
        return list(await session.scalars(query))

    # -- a player's calls ------------------------------------------------------------------------

    async def join(
        self, *, name: str, size: int | None, bots_after: int | None, address: str
    ) -> TicketOut:
        token = new_token()
        now = utcnow()
        async with self.db.write() as session:
            waiting = await session.scalar(
                select(func.count()).where(Q.address == address, Q.status == "waiting")
            )
            if (waiting or 0) >= self.settings.queue_max_per_address:
                raise ServiceError(
                    Code.TOO_MANY_TICKETS,
                    f"at most {self.settings.queue_max_per_address} players from one address "
                    "may wait in the queue",
                )
            entry = Q(
                id=new_id(),
                token_hash=hash_token(token),
                name=name,
                size=size,
                bots_after=(
                    self.settings.queue_bots_after_seconds if bots_after is None else bots_after
                ),
                address=address[:64],
                status="waiting",
                created_at=now,
                heartbeat_at=now,
                bots=0,
            )
            session.add(entry)
        # Whoever joins may complete a table: match now, not at the next periodic pass.
        try:
            await self.match()
        except Exception as exc:  # the periodic pass will try again
            log.warning("matching pass after a join failed: %r", exc)
        out = await self.ticket(entry.id, token)
        out.token = token
        return out

    async def _own(
        self, session: AsyncSession, ticket: str, token: str | None, lock: bool = False
    ) -> QueueEntryRow:
        if not token:
            raise ServiceError(
                Code.MISSING_TOKEN, "send your ticket's token (Authorization: Bearer ...)"
            )
        query = select(Q).where(Q.id == ticket)
        if lock:
            query = query.with_for_update()
        entry = await session.scalar(query)
        if entry is None:
            raise ServiceError(Code.TICKET_NOT_FOUND, "there is no such ticket in the queue")
        if not hmac.compare_digest(entry.token_hash, hash_token(token)):
            raise ServiceError(Code.INVALID_TOKEN, "this token is not the ticket's")
        return entry

    async def ticket(self, ticket: str, token: str | None) -> TicketOut:
        async with self.db.sessions() as session:
            entry = await self._own(session, ticket, token)
            counts = await self._waiting_by_size(session, utcnow())
        return ticket_out(entry, counts, self.grace)

    async def leave(self, ticket: str, token: str | None) -> TicketOut:
        now = utcnow()
        async with self.db.write() as session:
            entry = await self._own(session, ticket, token)
            # Guarded: a pass that seated this entry meanwhile wins, and the player is told.
            result = await session.execute(
                update(Q)
                .where(Q.id == ticket, Q.status == "waiting")
                .values(status="left", left_reason="left", ended_at=now)
            )
            if result.rowcount != 1:  # type: ignore[attr-defined]
                await session.refresh(entry)
                self._refuse_unless_waiting(entry)
            await session.refresh(entry)
        return ticket_out(entry, Counter(), self.grace)

    @staticmethod
    def _refuse_unless_waiting(entry: QueueEntryRow) -> None:
        if entry.status == "matched":
            raise ServiceError(
                Code.ALREADY_MATCHED, "this ticket already has a seat; read it with GET"
            )
        if entry.status != "waiting":
            raise ServiceError(Code.LEFT_QUEUE, "this ticket has left the queue")

    async def accept_bots(
        self, ticket: str, token: str | None, kind: str = "heuristic"
    ) -> TicketOut:
        """A table of the player's size (any: 4) now: the player, the waiting players who fit,
        and bots in the other seats."""
        now = utcnow()
        async with self._locked() as session:
            entry = await self._own(session, ticket, token, lock=True)
            self._refuse_unless_waiting(entry)
            left = as_utc(entry.created_at) + timedelta(seconds=entry.bots_after) - now
            if left.total_seconds() > 0:
                raise ServiceError(
                    Code.BOTS_NOT_YET,
                    f"bots may be accepted in {left.total_seconds():.0f} s (the wait you chose)",
                )
            size = entry.size or queue_rule.DEFAULT_BOTS_SIZE
            others = [e for e in await self._live_entries(session, now) if e.id != entry.id]
            group = queue_rule.gather(entry, size, others)
            group.sort(key=lambda e: (as_utc(e.created_at), e.id))
            formed = await self._form(session, size, group, now, bot_kind=kind)
            await session.refresh(entry)
        await self._start(formed)
        return ticket_out(entry, Counter(), self.grace)

    # -- sockets keep entries alive ----------------------------------------------------------------

    async def heartbeat(self, tickets: Sequence[str]) -> None:
        if not tickets:
            return
        async with self.db.write() as session:
            await session.execute(
                update(Q)
                .where(Q.id.in_(list(tickets)), Q.status == "waiting")
                .values(heartbeat_at=utcnow(), closed_at=None)
            )

    async def socket_closed(self, ticket: str) -> None:
        """The last socket of this ticket here closed: not matched until one comes back; it
        leaves after the grace (a page reload comes back sooner)."""
        async with self.db.write() as session:
            await session.execute(
                update(Q).where(Q.id == ticket, Q.status == "waiting").values(closed_at=utcnow())
            )

    # -- the matching pass -------------------------------------------------------------------------

    async def anyone_waiting(self) -> bool:
        """One cheap read: whether a matching pass has anything to do."""
        async with self.db.sessions() as session:
            found = await session.scalar(select(Q.id).where(Q.status == "waiting").limit(1))
        return found is not None

    async def match(self) -> list[Formed]:
        """Expire entries whose sockets are gone, form every table the queue can fill, start
        them, start any queue table a crashed process left unstarted, and delete the entries
        ended long ago."""
        now = utcnow()
        formed: list[Formed] = []
        async with self._locked() as session:
            await self._expire(session, now)
            for size, group in queue_rule.plan(await self._live_entries(session, now)):
                formed.append(await self._form(session, size, group, now))
            stranded = await self._stranded(session, now)
        for table in formed:
            await self._start(table)
        for table_id, host_token in stranded:
            await self._start(Formed(table_id, host_token, ()), quiet=True)
        return formed

    async def _expire(self, session: AsyncSession, now: datetime) -> None:
        cutoff = now - self.grace
        await session.execute(
            update(Q)
            .where(Q.status == "waiting", or_(Q.heartbeat_at < cutoff, Q.closed_at < cutoff))
            .values(status="left", left_reason="expired", ended_at=now)
        )
        keep = timedelta(minutes=self.settings.queue_keep_minutes)
        await session.execute(delete(Q).where(Q.status != "waiting", Q.ended_at < now - keep))

    async def _stranded(self, session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
        rows = await session.execute(
            select(Q.table_id, Q.seat_token)
            .join(TableRow, TableRow.id == Q.table_id)
            .where(
                Q.status == "matched",
                Q.seat == 0,
                Q.ended_at < now - _RESTART_AFTER,
                TableRow.status == "open",
            )
        )
        return [(t, s) for t, s in rows.all() if t and s]

    async def _form(
        self,
        session: AsyncSession,
        size: int,
        group: list[QueueEntryRow],
        now: datetime,
        bot_kind: str | None = None,
    ) -> Formed:
        """A public table of `size`: the group's players in queue order, bots in the rest."""
        table_id = new_id()
        session.add(
            TableRow(
                id=table_id,
                seats=size,
                public=True,
                status="open",
                **self.settings.default_limits(),
            )
        )
        await session.flush()  # the table row first: the seats refer to it
        host_token = ""
        bots = size - len(group)
        for seat, entry in enumerate(group):
            token = new_token()
            host_token = host_token or token
            session.add(
                SeatRow(
                    table_id=table_id,
                    seat=seat,
                    name=entry.name,
                    token_hash=hash_token(token),
                    bot=False,
                )
            )
            result = await session.execute(
                update(Q)
                .where(Q.id == entry.id, Q.status == "waiting")
                .values(
                    status="matched",
                    table_id=table_id,
                    seat=seat,
                    seat_token=token,
                    bots=bots,
                    ended_at=now,
                )
            )
            if result.rowcount != 1:  # type: ignore[attr-defined]
                # Never with the queue's lock held; should it happen, nothing is kept.
                raise ServiceError(Code.CONFLICT, "the queue changed meanwhile; try again")
        for seat in range(len(group), size):
            session.add(
                SeatRow(
                    table_id=table_id,
                    seat=seat,
                    name=f"Bot {seat + 1}",
                    bot=True,
                    bot_kind=bot_kind or self.settings.default_bot_kind,
                    bot_seed=str(new_seed()),
                )
            )
        log.info(
            "queue formed table %s: %d seats, %d players, %d bots", table_id, size, len(group), bots
        )
        return Formed(table_id, host_token, tuple(e.id for e in group))

    async def _start(self, formed: Formed, quiet: bool = False) -> None:
        try:
            await self.lobby.start(table_id=formed.table_id, token=formed.host_token)
        except ServiceError as exc:
            if exc.code != Code.ALREADY_STARTED:
                log.warning("starting queue table %s failed: %s", formed.table_id, exc)
        except Exception as exc:  # the next pass starts it (see _stranded)
            if not quiet:
                log.warning("starting queue table %s failed: %r", formed.table_id, exc)

    # -- what a ticket's holder is told ------------------------------------------------------------

    async def _waiting_by_size(self, session: AsyncSession, now: datetime) -> Counter[int | None]:
        rows = await session.execute(
            select(Q.size, func.count()).where(self._live(now)).group_by(Q.size)
        )
        return Counter({size: count for size, count in rows.all()})

    async def messages(self, tickets: Sequence[str]) -> dict[str, QueueMessage]:
        """The message each ticket's sockets should show now (two queries for any number)."""
        if not tickets:
            return {}
        now = utcnow()
        async with self.db.sessions() as session:
            entries = list(await session.scalars(select(Q).where(Q.id.in_(list(tickets)))))
            counts = await self._waiting_by_size(session, now)
        return {e.id: queue_message(e, counts, self.grace) for e in entries}
