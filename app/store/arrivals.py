"""A socket's arrival and departure at a table: the seat token checked, the seat's presence and the
table's activity written, the other processes told, and (when the room holds none in memory) the
table, its seats, its game and the feed's last lines read.

Postgres (`PgArrivals`): one statement each, in one round trip on the action path's asyncpg pool,
with no ORM (reconnect storms). SQLite (`SqliteArrivals`): the same writes and several reads in
one transaction; one process, so nobody else to tell. The caller cannot tell them apart: both
answer an `Arrival` (app.store.records) with the same rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Code, ServiceError
from app.core.security import hash_token
from app.store.arrival_batch import ArrivalBatch, pg_writer, sqlite_writer
from app.store.chat import latest_lines
from app.store.db import Database
from app.store.errors import mapped
from app.store.models import GameRow, SeatRow, TableMessageRow, TableRow
from app.store.pgpool import PgPool
from app.store.records import (
    Arrival,
    GameRef,
    Line,
    Noted,
    SeatRec,
    TableRec,
    TableRows,
    record_of,
)
from app.store.tables import seat_rows, table_row

# The table, its seats and its game as JSON (null where there is none). Read in the same
# snapshot as the statement's writes, so a seat written here shows its previous presence: the
# caller sets it.
_TABLE = """
(SELECT row_to_json(x) FROM tables x WHERE x.id = $1) AS table_json,
(SELECT json_agg(y ORDER BY y.seat) FROM seats y WHERE y.table_id = $1) AS seats_json,
(SELECT json_build_object('id', g.id, 'winner', g.winner) FROM games g
 WHERE g.table_id = $1) AS game_json
"""

_ARRIVE = """
WITH s AS (
    UPDATE seats SET away_since = NULL, seen_at = $3
    WHERE token_hash = $2 AND table_id = $1
    RETURNING id, seat, name
), t AS (
    UPDATE tables SET updated_at = $3 FROM s WHERE tables.id = $1
)
SELECT s.id, s.seat, s.name,
       EXISTS (SELECT 1 FROM games WHERE table_id = $1) AS has_game,
       (SELECT max(seq) FROM table_messages WHERE table_id = $1) AS chat_last,
       CASE WHEN $7 > 0 THEN (SELECT json_agg(m ORDER BY m.seq) FROM (
           SELECT seq, channel, seat, name, text, kind, data, created_at FROM table_messages
           WHERE table_id = $1 ORDER BY seq DESC LIMIT $7) m) END AS chat_json,
       CASE WHEN $4 THEN pg_notify($5, $6) END AS told,
       {table}
FROM s
"""
_ARRIVE_READ = _ARRIVE.format(table=_TABLE)
_ARRIVE_ALONE = _ARRIVE.format(table="NULL AS table_json, NULL AS seats_json, NULL AS game_json")

# Why a token matched no seat of this table.
_WHY = """
SELECT EXISTS (SELECT 1 FROM tables WHERE id = $1) AS table_exists,
       (SELECT table_id FROM seats WHERE token_hash = $2) AS seat_table
"""

_LOOK = f"""
SELECT EXISTS (SELECT 1 FROM games WHERE table_id = $1) AS has_game,
       (SELECT max(seq) FROM table_messages WHERE table_id = $1) AS chat_last, {_TABLE}
"""

_DEPART = """
WITH s AS (
    UPDATE seats SET away_since = $3 WHERE id = $2 AND away_since IS NULL
), t AS (
    UPDATE tables SET updated_at = $3 WHERE id = $1
)
SELECT pg_notify($4, $5)
"""


_STAMPS = ("created_at", "updated_at", "joined_at", "away_since", "seen_at")


def _stamped(data: dict[str, Any]) -> dict[str, Any]:
    for key in _STAMPS:
        if isinstance(data.get(key), str):
            data[key] = datetime.fromisoformat(data[key])
    return data


def _rows(record: Any, read_at: float) -> TableRows | None:
    if record["table_json"] is None:
        return None
    seats = orjson.loads(record["seats_json"]) if record["seats_json"] else []
    game = record["game_json"]
    return TableRows(
        table=record_of(TableRec, _stamped(orjson.loads(record["table_json"]))),
        seats=[record_of(SeatRec, _stamped(s)) for s in seats],
        game=record_of(GameRef, orjson.loads(game)) if game else None,
        read_at=read_at,
        tokens={s["token_hash"]: s["id"] for s in seats if s.get("token_hash")},
    )


def _chat(record: Any) -> list[Line] | None:
    if record["chat_json"] is None:
        return None if record["chat_last"] else []
    return [
        Line(m["seq"], m["channel"], m["seat"], m["name"], m["text"], m["kind"], m["data"],
             datetime.fromisoformat(m["created_at"]))
        for m in orjson.loads(record["chat_json"])
    ]  # fmt: skip


def _refused(table_exists: bool, seat_table: str | None, table_id: str) -> ServiceError:
    """Why a token holds no seat at this table (the order the read model checks in)."""
    if not table_exists:
        return ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
    if seat_table is None:
        return ServiceError(Code.INVALID_TOKEN, "this token holds no seat")
    return ServiceError(Code.NOT_SEATED, "this token holds a seat at another table")


@mapped
class PgArrivals:
    """Postgres's (app.store.ports.Arrivals): one statement each."""

    def __init__(self, pool: PgPool, channel: str) -> None:
        self.pool = pool
        self.channel = channel  # the NOTIFY channel of this database schema
        self.batch = ArrivalBatch(pg_writer(pool, channel))

    async def noted(self, noted: Noted) -> bool:
        return await self.batch.note(noted)

    async def arrive(
        self,
        table_id: str,
        token: str,
        now: datetime,
        want_table: bool,
        tell: str,
        read_at: float,
        chat_lines: int = 0,
    ) -> Arrival:
        digest = hash_token(token)
        record = await self.pool.fetchrow(
            _ARRIVE_READ if want_table else _ARRIVE_ALONE,
            table_id, digest, now, True, self.channel, tell, chat_lines,
        )  # fmt: skip
        if record is None:
            why = await self.pool.fetchrow(_WHY, table_id, digest)
            raise _refused(why["table_exists"], why["seat_table"], table_id)
        rows = _rows(record, read_at) if want_table else None
        if rows is not None:  # read before the statement's own writes
            rows.table.updated_at = now
            for seat in rows.seats:
                if seat.id == record["id"]:
                    seat.away_since, seat.seen_at = None, now
        return Arrival(
            record["id"],
            record["seat"],
            record["name"],
            record["has_game"],
            rows,
            record["chat_last"] or 0,
            _chat(record) if chat_lines > 0 else None,
        )

    async def look(self, table_id: str, read_at: float) -> Arrival:
        record = await self.pool.fetchrow(_LOOK, table_id)
        rows = _rows(record, read_at)
        if rows is None:
            raise ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
        return Arrival(None, None, None, record["has_game"], rows, record["chat_last"] or 0)

    async def depart(self, table_id: str, seat_id: int, now: datetime, tell: str) -> None:
        await self.pool.execute(_DEPART, table_id, seat_id, now, self.channel, tell)


@mapped
class SqliteArrivals:
    """SQLite's (app.store.ports.Arrivals): the same writes and reads in one transaction; its one
    process delivers what it changes itself, so `tell` goes nowhere."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.batch = ArrivalBatch(sqlite_writer(db))

    async def noted(self, noted: Noted) -> bool:
        return await self.batch.note(noted)

    async def arrive(
        self,
        table_id: str,
        token: str,
        now: datetime,
        want_table: bool,
        tell: str,
        read_at: float,
        chat_lines: int = 0,
    ) -> Arrival:
        if not token:
            raise ServiceError(
                Code.MISSING_TOKEN, "send your seat token (Authorization: Bearer ...)"
            )
        async with self.db.write() as session:
            table = await session.get(TableRow, table_id)
            seat = await session.scalar(
                select(SeatRow).where(SeatRow.token_hash == hash_token(token))
            )
            if table is None or seat is None or seat.table_id != table_id:
                raise _refused(table is not None, seat.table_id if seat else None, table_id)
            await session.execute(
                update(SeatRow).where(SeatRow.id == seat.id).values(away_since=None, seen_at=now)
            )
            await session.execute(
                update(TableRow).where(TableRow.id == table_id).values(updated_at=now)
            )
            arrival = await self._read(session, table_id, seat, want_table, read_at)
            if chat_lines > 0:
                arrival.chat = await latest_lines(session, table_id, chat_lines)
        return arrival

    async def look(self, table_id: str, read_at: float) -> Arrival:
        async with self.db.sessions() as session:
            await table_row(session, table_id)  # not_found
            return await self._read(session, table_id, None, True, read_at)

    async def depart(self, table_id: str, seat_id: int, now: datetime, tell: str) -> None:
        async with self.db.write_core() as conn:
            await conn.execute(
                update(SeatRow)
                .where(SeatRow.id == seat_id, SeatRow.away_since.is_(None))
                .values(away_since=now)
            )
            await conn.execute(
                update(TableRow).where(TableRow.id == table_id).values(updated_at=now)
            )

    @staticmethod
    async def _read(
        session: AsyncSession, table_id: str, seat: SeatRow | None, want_table: bool, read_at: float
    ) -> Arrival:
        game = await session.scalar(select(GameRow).where(GameRow.table_id == table_id))
        last = await session.scalar(
            select(func.max(TableMessageRow.seq)).where(TableMessageRow.table_id == table_id)
        )
        rows = None
        if want_table:
            seats = await seat_rows(session, table_id)
            rows = TableRows(
                record_of(TableRec, await table_row(session, table_id)),
                [record_of(SeatRec, s) for s in seats],
                GameRef(game.id, game.winner) if game is not None else None,
                read_at,
                {s.token_hash: s.id for s in seats if s.token_hash},
            )
        return Arrival(
            seat.id if seat else None,
            seat.seat if seat else None,
            seat.name if seat else None,
            game is not None,
            rows,
            last or 0,
        )
