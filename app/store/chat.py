"""A table feed's persistence: append a line under the next per-table number, read lines back.

A line's number (`seq`) is the table's highest plus one, taken in the insert statement itself. On
Postgres a line is first numbered, written and told in one statement (one round trip: a line
alone, as nearly every one is); if another writer of the table took that number meanwhile, the
unique (table_id, seq) refuses it and it takes the careful way: the writers of one table take
turns on a transaction-scoped advisory lock, so each reads the number its predecessor committed;
should two ever read the same highest anyway, the second takes the next number. So a committed
line n always follows a committed n - 1, and reading "after n" never skips a line committed later.
On Postgres the line's statement or transaction sends `NOTIFY <channel>, '<table_id>:chat:<seq>'`
(app.store.bus), delivered when it commits (`PgFeeds`); SQLite has one writer at a time and one
process to tell.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import orjson
from sqlalchemy import JSON, DateTime, Integer, String, Text, func, insert, literal, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store.db import Database
from app.store.errors import mapped
from app.store.models import SeatRow, TableMessageRow, utcnow
from app.store.pgpool import PgPool
from app.store.records import CHANNELS, Line

# Postgres, a line alone (no other writer of its table at that moment): numbered, written and
# told in one statement in autocommit, one round trip.
_PG_APPEND = """
WITH line AS (
    INSERT INTO table_messages (table_id, seq, channel, seat, name, text, kind, data, created_at)
    SELECT $1::text, COALESCE(max(seq), 0) + 1, $2, $3, $4, $5, $6, $7::json, $8
    FROM table_messages WHERE table_id = $1::text
    RETURNING seq
)
SELECT seq, pg_notify($9, $1::text || ':chat:' || seq) FROM line
"""

_COLUMNS = (
    TableMessageRow.seq,
    TableMessageRow.channel,
    TableMessageRow.seat,
    TableMessageRow.name,
    TableMessageRow.text,
    TableMessageRow.kind,
    TableMessageRow.data,
    TableMessageRow.created_at,
)


def _line(row: Any) -> Line:
    return Line(*row)


async def latest_lines(
    conn: AsyncConnection | AsyncSession,
    table_id: str,
    limit: int,
    channels: tuple[str, ...] = CHANNELS,
    after: int = 0,
    upto: int | None = None,
) -> list[Line]:
    """The last `limit` lines of these channels numbered in (after, upto], in order."""
    query = select(*_COLUMNS).where(
        TableMessageRow.table_id == table_id,
        TableMessageRow.seq > after,
        TableMessageRow.channel.in_(channels),
    )
    if upto is not None:
        query = query.where(TableMessageRow.seq <= upto)
    query = query.order_by(TableMessageRow.seq.desc()).limit(limit)
    rows = [_line(r) for r in await conn.execute(query)]
    rows.reverse()
    return rows


@mapped
class SqliteFeeds:
    """Tables' feeds (app.store.ports.FeedStore), SQLite's."""

    def __init__(self, db: Database, channel: str) -> None:
        self.db = db
        self.channel = channel  # the NOTIFY channel of this database schema (Postgres)

    async def append(
        self,
        table_id: str,
        *,
        channel: str,
        seat: int | None = None,
        name: str | None = None,
        text_: str | None = None,
        kind: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Line:
        """Store one line under the table's next number; returns it once committed."""
        assert channel in CHANNELS
        now = utcnow()
        taken = select(func.max(TableMessageRow.seq)).where(TableMessageRow.table_id == table_id)
        statement = (
            insert(TableMessageRow)
            .from_select(
                [
                    "table_id", "seq", "channel", "seat", "name", "text", "kind", "data",
                    "created_at",
                ],
                select(
                    literal(table_id, String(32)),
                    func.coalesce(taken.scalar_subquery(), 0) + 1,
                    literal(channel, String(16)),
                    literal(seat, Integer()),
                    literal(name, String(64)),
                    literal(text_, Text()),
                    literal(kind, String(32)),
                    literal(data, JSON()),
                    literal(now, DateTime(timezone=True)),
                ),
            )
            .returning(TableMessageRow.seq)
        )  # fmt: skip
        for _attempt in range(8):
            try:
                async with self.db.write_core() as conn:
                    await self._take_turn(conn, table_id)
                    seq = (await conn.execute(statement)).scalar_one()
                    await self._tell(conn, table_id, seq)
                return Line(seq, channel, seat, name, text_, kind, data, now)
            except IntegrityError as exc:
                if "seq" not in str(exc.orig):
                    raise  # not the number (the table is gone): no second try helps
                # Another process took this number a moment ago: take the next one.
                continue
        raise IntegrityError("table_messages", None, Exception("no free line number"))

    async def _take_turn(self, conn: AsyncConnection, table_id: str) -> None:
        """Before a line is numbered: SQLite has one writer at a time already."""

    async def _tell(self, conn: AsyncConnection, table_id: str, seq: int) -> None:
        """With the line, in its transaction: SQLite's one process delivers its lines itself."""

    async def after(
        self, table_id: str, after: int, channels: tuple[str, ...] = CHANNELS, limit: int = 500
    ) -> list[Line]:
        """Lines numbered above `after`, in order (the first `limit` of them)."""
        query = (
            select(*_COLUMNS)
            .where(
                TableMessageRow.table_id == table_id,
                TableMessageRow.seq > after,
                TableMessageRow.channel.in_(channels),
            )
            .order_by(TableMessageRow.seq)
            .limit(limit)
        )
        async with self.db.engine.connect() as conn:
            return [_line(r) for r in await conn.execute(query)]

    async def latest(
        self,
        table_id: str,
        limit: int,
        channels: tuple[str, ...] = CHANNELS,
        after: int = 0,
        upto: int | None = None,
    ) -> list[Line]:
        """The last `limit` lines of these channels numbered in (after, upto], in order."""
        async with self.db.engine.connect() as conn:
            return await latest_lines(conn, table_id, limit, channels, after, upto)

    async def last_ids(self, table_ids: list[str]) -> dict[str, int]:
        """The highest line number of each of these tables (tables without lines: absent)."""
        if not table_ids:
            return {}
        query = (
            select(TableMessageRow.table_id, func.max(TableMessageRow.seq))
            .where(TableMessageRow.table_id.in_(table_ids))
            .group_by(TableMessageRow.table_id)
        )
        async with self.db.engine.connect() as conn:
            return {t: int(m) for t, m in await conn.execute(query)}

    async def seat_name(self, table_id: str, seat: int) -> str | None:
        query = select(SeatRow.name).where(SeatRow.table_id == table_id, SeatRow.seat == seat)
        async with self.db.engine.connect() as conn:
            return (await conn.execute(query)).scalar_one_or_none()

    async def seat_names(self, table_id: str) -> list[str]:
        """The names of the table's seats (players and bots)."""
        query = select(SeatRow.name).where(SeatRow.table_id == table_id)
        async with self.db.engine.connect() as conn:
            return [name for (name,) in await conn.execute(query) if name]

    async def spectator_names(self, table_id: str) -> set[str]:
        """Every label that has spoken on this table's spectators' channel."""
        query = (
            select(TableMessageRow.name)
            .where(TableMessageRow.table_id == table_id, TableMessageRow.channel == "spectators")
            .distinct()
        )
        async with self.db.engine.connect() as conn:
            return {name for (name,) in await conn.execute(query) if name}


@mapped
class PgFeeds(SqliteFeeds):
    """Postgres's: a line is first tried in one statement (`_PG_APPEND`); if another writer of
    the table took its number (or anything else refused it), it is written as SQLite's is, the
    writers of one table taking turns on an advisory lock (many at once would otherwise mostly
    collide on the number), the line's NOTIFY in the same transaction."""

    def __init__(self, db: Database, channel: str, pool: PgPool) -> None:
        super().__init__(db, channel)
        self.pool = pool

    async def append(
        self,
        table_id: str,
        *,
        channel: str,
        seat: int | None = None,
        name: str | None = None,
        text_: str | None = None,
        kind: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Line:
        assert channel in CHANNELS
        now = utcnow()
        try:
            row = await self.pool.fetchrow(
                _PG_APPEND, table_id, channel, seat, name, text_, kind,
                None if data is None else orjson.dumps(data).decode("utf-8"), now, self.channel,
            )  # fmt: skip
        except asyncpg.IntegrityConstraintViolationError:
            # The number taken meanwhile, or the table gone: the careful way says which.
            return await super().append(
                table_id, channel=channel, seat=seat, name=name, text_=text_, kind=kind, data=data
            )
        return Line(row["seq"], channel, seat, name, text_, kind, data, now)

    async def _take_turn(self, conn: AsyncConnection, table_id: str) -> None:
        await conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
            {"key": f"dragonstones-chat:{table_id}"},
        )

    async def _tell(self, conn: AsyncConnection, table_id: str, seq: int) -> None:
        await conn.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {"channel": self.channel, "payload": f"{table_id}:chat:{seq}"},
        )
