"""Tables and seats as the lobby writes them: one write transaction per lobby operation
(app.lobby.tables, rematch, quickplay), whose statements the lobby calls as methods of
`SqlTableWrite` and which commits when its block ends; a join's write is one call of its own
(`take_seat`), a single statement on Postgres.

The same SQL runs on both databases; Postgres adds an advisory lock where SQLite's single writer
already serialises (`PgTableWrite.serialize_address`). The guards are in the statements: the unique
seat of a table, the `open` status, a rematch not yet linked.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Code, ServiceError
from app.store.db import Database
from app.store.errors import mapped, translated
from app.store.models import GameRow, SeatRow, TableRow, as_utc, utcnow
from app.store.pgpool import PgPool
from app.store.records import GameStart, SeatRec, TableRec, record_of


async def table_row(session: AsyncSession, table_id: str) -> TableRow:
    row = await session.get(TableRow, table_id)
    if row is None:
        raise ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
    return row


async def seat_rows(session: AsyncSession, table_id: str) -> list[SeatRow]:
    result = await session.scalars(
        select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
    )
    return list(result)


@mapped
class SqlTableWrite:
    """The statements of a lobby write transaction (app.store.lobby_ports.TableWrite), SQLite's."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def table(self, table_id: str) -> TableRec:
        return record_of(TableRec, await table_row(self.session, table_id))

    async def seats(self, table_id: str) -> list[SeatRec]:
        return [record_of(SeatRec, s) for s in await seat_rows(self.session, table_id)]

    async def seat_holding(self, table_id: str, token_hash: str) -> int | None:
        return await self.session.scalar(
            select(SeatRow.seat).where(
                SeatRow.table_id == table_id, SeatRow.token_hash == token_hash
            )
        )

    async def add_table(self, table: TableRec) -> None:
        self.session.add(TableRow(**dataclasses.asdict(table)))
        await self.session.flush()  # the table row first: seats refer to it

    async def add_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        *,
        token_hash: str | None = None,
        bot_kind: str | None = None,
        bot_seed: str | None = None,
        away_since: datetime | None = None,
    ) -> None:
        self.session.add(
            SeatRow(
                table_id=table_id,
                seat=seat,
                name=name,
                token_hash=token_hash,
                bot=token_hash is None,
                bot_kind=bot_kind,
                bot_seed=bot_seed,
                away_since=away_since,
            )
        )

    async def update_seat(self, seat_id: int, **values: Any) -> None:
        await self.session.execute(update(SeatRow).where(SeatRow.id == seat_id).values(**values))

    async def games_count(self) -> int:
        return int(await self.session.scalar(select(func.count()).select_from(GameRow)) or 0)

    async def remove_seat(self, seat_id: int) -> None:
        await self.session.execute(delete(SeatRow).where(SeatRow.id == seat_id))

    async def remove_bot(self, table_id: str, seat: int) -> bool:
        result = await self.session.execute(
            delete(SeatRow).where(
                SeatRow.table_id == table_id, SeatRow.seat == seat, SeatRow.bot.is_(True)
            )
        )
        return one_row(result)

    async def mark_open_table(self, table_id: str, now: datetime) -> bool:
        """The table is changed now, if it is still open (False: it is not)."""
        result = await self.session.execute(
            update(TableRow)
            .where(TableRow.id == table_id, TableRow.status == "open")
            .values(updated_at=now)
        )
        return one_row(result)

    async def update_table(self, table_id: str, **values: Any) -> None:
        await self.session.execute(
            update(TableRow).where(TableRow.id == table_id).values(**values, updated_at=utcnow())
        )

    async def start_game(self, start: GameStart) -> bool:
        """Store the game at version 0 and move the table from open to playing; False when the
        table was no longer open (another process started it)."""
        self.session.add(
            GameRow(
                id=start.game_id,
                table_id=start.table_id,
                players=start.players,
                seed=start.seed,
                seed_commitment=start.seed_commitment,
                state=start.state,
                snapshot_version=0,
                opening_events=start.opening,
                version=0,
                status="playing",
                deadline_at=start.deadline_at,
                deadline_key=start.deadline_key,
            )
        )
        # Guarded so that two processes cannot both start the table.
        result = await self.session.execute(
            update(TableRow)
            .where(TableRow.id == start.table_id, TableRow.status == "open")
            .values(status="playing", updated_at=utcnow())
        )
        return one_row(result)

    async def link_rematch(self, table_id: str, rematch_id: str) -> bool:
        result = await self.session.execute(
            update(TableRow)
            .where(TableRow.id == table_id, TableRow.rematch_id.is_(None))
            .values(rematch_id=rematch_id)
        )
        return one_row(result)

    async def serialize_address(self, address: str) -> None:
        """SQLite: its one writer at a time (app.store.db) serialises already."""

    async def empty_tables_of(self, address: str, listed: timedelta) -> tuple[int, datetime | None]:
        person = select(SeatRow.id).where(SeatRow.table_id == TableRow.id, SeatRow.bot.is_(False))
        count, oldest = (
            await self.session.execute(
                select(func.count(), func.min(TableRow.updated_at)).where(
                    TableRow.creator_address == address,
                    TableRow.status == "open",
                    TableRow.updated_at >= utcnow() - listed,
                    ~person.exists(),
                )
            )
        ).one()
        return int(count), as_utc(oldest) if oldest is not None else None


@mapped
class PgTableWrite(SqlTableWrite):
    """Postgres's: a transaction-scoped advisory lock where SQLite has its single writer."""

    async def serialize_address(self, address: str) -> None:
        await self.session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"empty-tables:{address}"}
        )


def one_row(result: Any) -> bool:
    """The statement changed exactly one row (its guard held)."""
    return bool(result.rowcount == 1)


@mapped
class SqlTables:
    """Tables and seats (app.store.lobby_ports.TableStore), SQLite's."""

    write_class: type[SqlTableWrite] = SqlTableWrite

    def __init__(self, db: Database) -> None:
        self.db = db

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[SqlTableWrite]:
        with translated():
            async with self.db.write() as session:
                yield self.write_class(session)

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        now: datetime,
        tell: str | None = None,
    ) -> bool:
        async with self.write() as tx:  # `tell`: None from SQLite's bus (app.store.bus)
            if not await tx.mark_open_table(table_id, now):
                return False
            await tx.add_seat(table_id, seat, name, token_hash=token_hash, away_since=now)
        return True

    async def begin_game(self, start: GameStart) -> bool:
        with contextlib.suppress(_NotStarted):
            async with self.write() as tx:
                table = await tx.table(start.table_id)
                if table.status != "open" or len(await tx.seats(start.table_id)) < table.seats:
                    raise _NotStarted
                for seat_id, bot_seed in start.bot_seeds.items():
                    await tx.update_seat(seat_id, bot_seed=bot_seed)
                if not await tx.start_game(start):
                    raise _NotStarted  # the game's row goes with the rollback
                return True
        return False


class _NotStarted(Exception):
    """The table was no longer open: the write is rolled back."""


# A join's write on Postgres, one statement: the table row's update (which waits for, and then
# sees, a start under way in another process) guards the seat's insert, and the seat's insert the
# lobby's notice to the other processes ($7 on channel $6, when given), sent at the commit.
_TAKE_SEAT = """
WITH t AS (
    UPDATE tables SET updated_at = $5 WHERE id = $1 AND status = 'open' RETURNING id
), s AS (
    INSERT INTO seats (table_id, seat, name, token_hash, bot, stand_in, joined_at, away_since)
    SELECT t.id, $2, $3, $4, false, false, $5, $5 FROM t
    RETURNING id
)
SELECT s.id, CASE WHEN $7::text IS NOT NULL THEN pg_notify($6, $7) END AS told FROM s
"""


# A start's write on Postgres, one statement: the table row's update, only while the table is open
# with every seat taken (it waits for, and then sees, a join or a start under way in another
# process), guards the bots' seeds, the game's insert and the game's notice ($14 on channel $13,
# when given), sent at the commit.
_BEGIN_GAME = """
WITH t AS (
    UPDATE tables SET status = 'playing', updated_at = $10
    WHERE id = $2 AND status = 'open'
      AND (SELECT count(*) FROM seats WHERE seats.table_id = $2) = tables.seats
    RETURNING id
), b AS (
    UPDATE seats SET bot_seed = v.bot_seed
    FROM t, unnest($11::bigint[], $12::text[]) AS v(id, bot_seed)
    WHERE seats.id = v.id AND seats.table_id = t.id
), g AS (
    INSERT INTO games (id, table_id, players, seed, seed_commitment, state, snapshot_version,
                       opening_events, version, status, created_at, updated_at, deadline_at,
                       deadline_key)
    SELECT $1, t.id, $3, $4, $5, $6, 0, $7::json, 0, 'playing', $10, $10, $8, $9 FROM t
    RETURNING id
)
SELECT g.id, CASE WHEN $14::text IS NOT NULL THEN pg_notify($13, $14) END AS told FROM g
"""


@mapped
class PgTables(SqlTables):
    """Postgres's: a join and a start in one statement each on the action path's pool (no ORM,
    no transaction of its own); the other lobby writes as SQLite's, with `PgTableWrite`."""

    write_class = PgTableWrite

    def __init__(self, db: Database, pool: PgPool, channel: str) -> None:
        super().__init__(db)
        self.pool = pool
        self.channel = channel  # the NOTIFY channel of this database schema

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        now: datetime,
        tell: str | None = None,
    ) -> bool:
        row = await self.pool.fetchrow(
            _TAKE_SEAT, table_id, seat, name, token_hash, now, self.channel, tell
        )
        return row is not None

    async def begin_game(self, start: GameStart) -> bool:
        row = await self.pool.fetchrow(
            _BEGIN_GAME,
            start.game_id,
            start.table_id,
            start.players,
            start.seed,
            start.seed_commitment,
            start.state,
            orjson.dumps(start.opening).decode(),
            start.deadline_at,
            start.deadline_key,
            start.now,
            list(start.bot_seeds),
            list(start.bot_seeds.values()),
            self.channel,
            start.tell,
        )
        return row is not None
