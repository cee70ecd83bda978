"""A socket's arrival and departure at a table on Postgres, in one statement each: the seat token
checked, the seat's presence and the table's activity written, the other processes told, and (when
the room has none in memory) the table, its seats and its game read, all in one round trip on the
action path's asyncpg pool, with no ORM (issue 17: reconnect storms). SQLite keeps the general path
(app.store.queries, app.store.presence).

The rows come back as plain attribute objects shaped like the ORM rows, so that
`Queries.table_out` builds the same `TableOut` from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

import orjson

from app.core.errors import Code, ServiceError
from app.core.security import hash_token
from app.store.feeds import Line
from app.store.games import GameStore

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


@dataclass
class TableRows:
    """A table as stored: the table row, its seats in seat order, its game (id, winner)."""

    table: Any
    seats: list[Any]
    game: Any | None
    read_at: float  # monotonic time of the read


@dataclass
class Arrival:
    seat_id: int | None  # None: a spectator
    seat: int | None
    name: str | None
    has_game: bool
    rows: TableRows | None  # None when not asked for
    chat_last: int = 0  # the table feed's last line number (app.table.feed), 0: none yet
    # Its last lines (as many as asked for, all channels), when asked for.
    chat: list[Line] | None = None


_STAMPS = ("created_at", "updated_at", "joined_at", "away_since", "seen_at")


def _row(data: dict[str, Any]) -> SimpleNamespace:
    for key in _STAMPS:
        if isinstance(data.get(key), str):
            data[key] = datetime.fromisoformat(data[key])
    return SimpleNamespace(**data)


def _rows(record: Any, read_at: float) -> TableRows | None:
    if record["table_json"] is None:
        return None
    seats = orjson.loads(record["seats_json"]) if record["seats_json"] else []
    game = record["game_json"]
    return TableRows(
        table=_row(orjson.loads(record["table_json"])),
        seats=[_row(s) for s in seats],
        game=SimpleNamespace(**orjson.loads(game)) if game else None,
        read_at=read_at,
    )


def _chat(record: Any) -> list[Line] | None:
    if record["chat_json"] is None:
        return None if record["chat_last"] else []
    return [
        Line(m["seq"], m["channel"], m["seat"], m["name"], m["text"], m["kind"], m["data"],
             datetime.fromisoformat(m["created_at"]))
        for m in orjson.loads(record["chat_json"])
    ]  # fmt: skip


async def arrive(
    store: GameStore,
    table_id: str,
    token: str,
    now: datetime,
    want_table: bool,
    tell: str | None,
    read_at: float,
    chat_lines: int = 0,
) -> Arrival:
    """A seat's socket arrives: check its token (a ServiceError as Queries.seat_for_token
    raises), write it online and the table active, NOTIFY `tell` on the store's channel when
    given, read the table when `want_table` and the feed's last `chat_lines` lines."""
    digest = hash_token(token)
    record = await store.pool.fetchrow(
        _ARRIVE_READ if want_table else _ARRIVE_ALONE,
        table_id, digest, now, tell is not None, store.channel, tell or "", chat_lines,
    )  # fmt: skip
    if record is None:
        why = await store.pool.fetchrow(_WHY, table_id, digest)
        if not why["table_exists"]:
            raise ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
        if why["seat_table"] is None:
            raise ServiceError(Code.INVALID_TOKEN, "this token holds no seat")
        raise ServiceError(Code.NOT_SEATED, "this token holds a seat at another table")
    rows = _rows(record, read_at) if want_table else None
    if rows is not None:
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


async def look(store: GameStore, table_id: str, read_at: float) -> Arrival:
    """A spectator's socket arrives at a table the room does not hold in memory: read it."""
    record = await store.pool.fetchrow(_LOOK, table_id)
    rows = _rows(record, read_at)
    if rows is None:
        raise ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
    return Arrival(None, None, None, record["has_game"], rows, record["chat_last"] or 0)


async def depart(store: GameStore, table_id: str, seat_id: int, now: datetime, tell: str) -> None:
    """A seat's last socket here closed: write it away and the table active, and tell the
    other processes (`tell` on the store's channel)."""
    await store.pool.execute(_DEPART, table_id, seat_id, now, store.channel, tell)
