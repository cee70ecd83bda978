"""The matchmaking queue's storage: its entries (tickets), read and written in the transactions of
app.lobby.matchmaking, which also form tables (`SqlQueueWrite` is a `SqlTableWrite`).

The matching pass runs in one transaction that first takes the queue's lock (Postgres: a
transaction-scoped advisory lock, one per schema, so passes of all processes run one after
another; SQLite: its single writer) and then locks the waiting rows it reads (`FOR UPDATE`, which
SQLite has no need of). Each entry moves from `waiting` through a guarded update (`WHERE status =
'waiting'`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.db import Database
from app.store.errors import mapped, translated
from app.store.models import QueueEntryRow, TableRow
from app.store.records import QueueEntry, record_of
from app.store.tables import PgTableWrite, SqlTableWrite, one_row

Q = QueueEntryRow


def _live(now: datetime, grace: timedelta) -> ColumnElement[bool]:
    """Waiting, a socket open (or just joined), refreshed within the grace: may be matched."""
    return and_(Q.status == "waiting", Q.closed_at.is_(None), Q.heartbeat_at >= now - grace)


@mapped
class SqlQueueWrite(SqlTableWrite):
    """The statements of a queue transaction (app.store.lobby_ports.QueueWrite), reads included."""

    async def entry(self, ticket: str, *, lock: bool = False) -> QueueEntry | None:
        query = select(Q).where(Q.id == ticket).execution_options(populate_existing=True)
        if lock:
            query = query.with_for_update()
        row = await self.session.scalar(query)
        return None if row is None else record_of(QueueEntry, row)

    async def entries(self, tickets: Sequence[str]) -> list[QueueEntry]:
        rows = await self.session.scalars(select(Q).where(Q.id.in_(list(tickets))))
        return [record_of(QueueEntry, r) for r in rows]

    async def live(self, now: datetime, grace: timedelta, *, lock: bool = True) -> list[QueueEntry]:
        query = select(Q).where(_live(now, grace)).order_by(Q.created_at, Q.id)
        if lock:
            query = query.with_for_update()
        return [record_of(QueueEntry, r) for r in await self.session.scalars(query)]

    async def waiting_by_size(self, now: datetime, grace: timedelta) -> Counter[int | None]:
        rows = await self.session.execute(
            select(Q.size, func.count()).where(_live(now, grace)).group_by(Q.size)
        )
        return Counter({size: count for size, count in rows.all()})

    async def waiting_from(self, address: str) -> int:
        waiting = await self.session.scalar(
            select(func.count()).where(Q.address == address, Q.status == "waiting")
        )
        return int(waiting or 0)

    async def add_entry(self, entry: QueueEntry) -> None:
        self.session.add(Q(**dataclasses.asdict(entry)))

    async def leave(self, ticket: str, now: datetime) -> bool:
        result = await self.session.execute(
            update(Q)
            .where(Q.id == ticket, Q.status == "waiting")
            .values(status="left", left_reason="left", ended_at=now)
        )
        return one_row(result)

    async def matched(
        self, ticket: str, *, table_id: str, seat: int, seat_token: str, bots: int, now: datetime
    ) -> bool:
        result = await self.session.execute(
            update(Q)
            .where(Q.id == ticket, Q.status == "waiting")
            .values(
                status="matched",
                table_id=table_id,
                seat=seat,
                seat_token=seat_token,
                bots=bots,
                ended_at=now,
            )
        )
        return one_row(result)

    async def expire(self, now: datetime, grace: timedelta, keep: timedelta) -> None:
        cutoff = now - grace
        await self.session.execute(
            update(Q)
            .where(Q.status == "waiting", or_(Q.heartbeat_at < cutoff, Q.closed_at < cutoff))
            .values(status="left", left_reason="expired", ended_at=now)
        )
        await self.session.execute(delete(Q).where(Q.status != "waiting", Q.ended_at < now - keep))

    async def stranded(self, now: datetime, after: timedelta) -> list[tuple[str, str]]:
        rows = await self.session.execute(
            select(Q.table_id, Q.seat_token)
            .join(TableRow, TableRow.id == Q.table_id)
            .where(
                Q.status == "matched",
                Q.seat == 0,
                Q.ended_at < now - after,
                TableRow.status == "open",
            )
        )
        return [(t, s) for t, s in rows.all() if t and s]


@mapped
class PgQueueWrite(SqlQueueWrite, PgTableWrite):
    """Postgres's: the advisory lock of `serialize_address` too."""


def _advisory_key(schema: str | None) -> int:
    """One lock per schema: queues of other schemas on the same database stay apart."""
    return zlib.crc32(f"dragonstones-queue:{schema or ''}".encode())


@mapped
class SqlQueue:
    """The matchmaking queue (app.store.lobby_ports.QueueStore), SQLite's."""

    write_class: type[SqlQueueWrite] = SqlQueueWrite

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock_key = _advisory_key(db.settings.database_schema)

    @contextlib.asynccontextmanager
    async def write(self, *, locked: bool = False) -> AsyncIterator[SqlQueueWrite]:
        with translated():
            async with self.db.write() as session:
                if locked:
                    await self._lock(session)
                yield self.write_class(session)

    async def _lock(self, session: AsyncSession) -> None:
        """SQLite: its one writer at a time (app.store.db) is the queue's lock."""

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[SqlQueueWrite]:
        with translated():
            async with self.db.sessions() as session:
                yield self.write_class(session)

    async def heartbeat(self, tickets: Sequence[str], now: datetime) -> None:
        if not tickets:
            return
        async with self.db.write() as session:
            await session.execute(
                update(Q)
                .where(Q.id.in_(list(tickets)), Q.status == "waiting")
                .values(heartbeat_at=now, closed_at=None)
            )

    async def socket_closed(self, ticket: str, now: datetime) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(Q).where(Q.id == ticket, Q.status == "waiting").values(closed_at=now)
            )

    async def anyone_waiting(self) -> bool:
        async with self.db.sessions() as session:
            found = await session.scalar(select(Q.id).where(Q.status == "waiting").limit(1))
        return found is not None


@mapped
class PgQueue(SqlQueue):
    """Postgres's: the queue's lock is a transaction-scoped advisory lock."""

    write_class = PgQueueWrite

    async def _lock(self, session: AsyncSession) -> None:
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": self._lock_key})
