"""A game's persistence: load it, commit one action under the version guard, read what another
process committed.

The commit is the only write of the action path. On Postgres it is one statement, sent as one
round trip in autocommit: it moves the game row from the expected version to the next (the guard),
appends the action with its events (what makes the action durable), closes the table when the game
ends, and sends the NOTIFY that tells other processes, carrying the action itself when it fits,
which Postgres delivers only if the statement commits (`PgGames`, on the action path's own asyncpg
pool). On SQLite (one process) the same writes run as one Core transaction (`SqliteGames`).

The game row's `state` is a snapshot, not the current state: it is written at the start, when the
version is a multiple of SNAPSHOT_EVERY, and when the game ends, with `snapshot_version` saying
which version it holds. Loading reads the snapshot and the action log and replays the actions after
the snapshot with the engine, which is deterministic.

The game and seat rows also keep what the clock and the stand-ins need: the deadline of the
prompt that is open, and which seats a bot plays for.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import orjson
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

import engine
from app.core.errors import StoreUnavailable
from app.store.db import Database
from app.store.errors import DRIVER_ERRORS, mapped
from app.store.group_commit import GroupCommit
from app.store.models import ActionRow, GameRow, SeatRow, TableRow, as_utc, utcnow
from app.store.pgpool import PgPool
from app.store.ports import DuplicateActionId, StaleVersion
from app.store.records import Commit, StoredGame

# What a commit's guard raises: the version taken (StaleVersion) or the seat's action_id.
_DUPLICATES = (IntegrityError, asyncpg.UniqueViolationError)


# One statement, one round trip: guarded update (the snapshot only when $1 is given), append,
# close the table, notify. A row written before snapshots (snapshot_version null) holds the state
# of its version, which the first action without a snapshot records.
_PG_COMMIT = """
WITH g AS (
    UPDATE games SET state = COALESCE($1, state),
                     snapshot_version = CASE WHEN $1::text IS NULL
                         THEN COALESCE(snapshot_version, version) ELSE $2 END,
                     version = $2, status = $3, winner = $4, updated_at = $5,
                     finished_at = $6, deadline_at = $14, deadline_key = $15
    WHERE id = $7 AND version = $2 - 1
    RETURNING id
), a AS (
    INSERT INTO actions (game_id, version, seat, action, action_id, events, created_at)
    SELECT id, $2, $8, $9::json, $10, $11::json, $5 FROM g
    RETURNING version
), t AS (
    UPDATE tables SET status = 'over', updated_at = $5
    FROM a WHERE tables.id = $12 AND $3 = 'over'
)
SELECT a.version, pg_notify($13, $16) FROM a
"""

_PG_DEADLINE = "SELECT version, deadline_at, deadline_key FROM games WHERE id = $1"

_PG_VERSIONS = "SELECT table_id, version FROM games WHERE table_id = ANY($1::text[])"

# NOTIFY payloads must stay under 8000 bytes; an action that does not fit is announced by its
# version only, and the other processes read it back.
NOTIFY_LIMIT = 7900


def notify_payload(c: Commit, action_text: str, events_text: str) -> str:
    """`'<table_id>:<version>:[seat, action_id, action, events, deadline_at, deadline_key]'`
    (app.store.bus), or
    `'<table_id>:<version>'` when that is too long for NOTIFY."""
    head = f"{c.table_id}:{c.version}"
    action_id = orjson.dumps(c.action_id).decode()
    deadline = orjson.dumps(
        [c.deadline_at.timestamp() if c.deadline_at else None, c.deadline_key]
    ).decode()[1:]
    # [seat, action_id, action, events, deadline_at, deadline_key] (app.store.bus.Carried):
    # the action and events as already encoded for the insert.
    payload = f"{head}:[{c.seat},{action_id},{action_text},{events_text},{deadline}"
    return payload if len(payload.encode("utf-8")) <= NOTIFY_LIMIT else head


_PG_SINCE = """
SELECT version, seat, action_id, action::text, events::text FROM actions
WHERE game_id = $1 AND version > $2 ORDER BY version
"""


# Every action's version and its row (app.store.ports.GameStore.since).
Since = list[tuple[int, int, str, engine.Action, list[dict[str, Any]]]]


@mapped
class SqliteGames:
    """A game's persistence (app.store.ports.GameStore), SQLite's."""

    def __init__(self, db: Database, channel: str) -> None:
        self.db = db
        self.channel = channel  # the NOTIFY channel of this database schema

    async def open(self) -> None:
        """Nothing to open: the engine's pool connects when first used."""

    async def load(self, table_id: str) -> StoredGame | None:
        """The table's game: its last snapshot and its whole action log (the actions after the
        snapshot to replay), or None before the start."""
        async with self.db.sessions() as session:
            game = await session.scalar(select(GameRow).where(GameRow.table_id == table_id))
            if game is None:
                return None
            table = await session.get(TableRow, table_id)
            seats = await session.execute(
                select(SeatRow.seat, SeatRow.bot_kind, SeatRow.bot_seed).where(
                    SeatRow.table_id == table_id, SeatRow.bot.is_(True) | SeatRow.stand_in
                )
            )
            snapshot = game.version if game.snapshot_version is None else game.snapshot_version
            rows = (
                await session.execute(
                    select(
                        ActionRow.version,
                        ActionRow.seat,
                        ActionRow.action_id,
                        ActionRow.events,
                        ActionRow.action,
                    )
                    # Not beyond the version just read: another process may commit meanwhile,
                    # and its actions are caught up from that version on.
                    .where(ActionRow.game_id == game.id, ActionRow.version <= game.version)
                    .order_by(ActionRow.version)
                )
            ).all()
            return StoredGame(
                id=game.id,
                table_id=table_id,
                players=game.players,
                seed=game.seed,
                state=game.state,
                version=game.version,
                over=game.status == "over",
                opening=game.opening_events,
                turn_seconds=table.turn_seconds if table else None,
                bots=[(s, k, b) for s, k, b in seats],
                actions=[(v, s, a, e) for v, s, a, e, _act in rows],
                choose_seconds=table.choose_seconds if table else None,
                deadline_at=as_utc(game.deadline_at) if game.deadline_at else None,
                deadline_key=game.deadline_key,
                snapshot_version=snapshot,
                replay=[(s, act) for v, s, _a, _e, act in rows if v > snapshot],
            )

    async def since(self, game_id: str, after: int) -> Since:
        """What another process committed after version `after`, in order: (version, seat,
        action_id, action, raw events) of each new action. One query, no snapshot: the room
        replays the actions with the engine, which is deterministic."""
        async with self.db.engine.connect() as conn:
            rows = await conn.execute(
                select(
                    ActionRow.version,
                    ActionRow.seat,
                    ActionRow.action_id,
                    ActionRow.action,
                    ActionRow.events,
                )
                .where(ActionRow.game_id == game_id, ActionRow.version > after)
                .order_by(ActionRow.version)
            )
            return [(v, s, a, act, e) for v, s, a, act, e in rows]

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        """The committed version of each of these tables' games (the safety sweep)."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(GameRow.table_id, GameRow.version).where(GameRow.table_id.in_(table_ids))
            )
            return {t: v for t, v in rows.all()}

    async def playing_tables(self) -> list[str]:
        async with self.db.sessions() as session:
            return list(
                await session.scalars(select(GameRow.table_id).where(GameRow.status == "playing"))
            )

    async def commit(self, c: Commit) -> None:
        """Commit `c.version` (the game must be at `c.version - 1`): raises StaleVersion,
        DuplicateActionId or StoreUnavailable; returns only once the action is durable."""
        try:
            await self._commit(c)
        except _DUPLICATES as exc:
            if "version" in str(getattr(exc, "orig", exc)):
                raise StaleVersion from None
            raise DuplicateActionId from None
        except DRIVER_ERRORS as exc:  # maybe committed: the room reads what was
            raise StoreUnavailable(repr(exc)) from None

    async def _commit(self, c: Commit) -> None:
        values: dict[str, Any] = {
            "version": c.version,
            "status": c.status,
            "winner": c.winner,
            "updated_at": c.now,
            "finished_at": c.now if c.over else None,
            "deadline_at": c.deadline_at,
            "deadline_key": c.deadline_key,
        }
        if c.state is not None:
            values.update(state=c.state, snapshot_version=c.version)
        else:  # a row written before snapshots holds the state of its version
            values["snapshot_version"] = func.coalesce(GameRow.snapshot_version, GameRow.version)
        async with self.db.write_core() as conn:
            result = await conn.execute(
                update(GameRow)
                .where(GameRow.id == c.game_id, GameRow.version == c.version - 1)
                .values(**values)
            )
            if result.rowcount != 1:
                raise StaleVersion  # rolls the transaction back
            await conn.execute(
                insert(ActionRow).values(
                    game_id=c.game_id,
                    version=c.version,
                    seat=c.seat,
                    action=c.action,
                    action_id=c.action_id,
                    events=c.events,
                    created_at=c.now,
                )
            )
            if c.over:
                await conn.execute(
                    update(TableRow)
                    .where(TableRow.id == c.table_id)
                    .values(status="over", updated_at=c.now)
                )

    # -- what the clock and the stand-ins keep in the game and seat rows --

    async def deadline(self, game_id: str) -> tuple[int, datetime | None, str | None] | None:
        """The game's version and the deadline stored with it (another process's commit)."""
        async with self.db.sessions() as session:
            row = (
                await session.execute(
                    select(GameRow.version, GameRow.deadline_at, GameRow.deadline_key).where(
                        GameRow.id == game_id
                    )
                )
            ).first()
        if row is None:
            return None
        return row[0], as_utc(row[1]) if row[1] else None, row[2]

    async def save_deadline(
        self, game_id: str, version: int, at: datetime, key: str
    ) -> tuple[datetime, str] | None:
        """Store the deadline of a prompt that opened without one (the start): only if the game
        is still at `version` and has none. Returns the deadline the database holds then (maybe
        another process's), or None when the game moved on."""
        async with self.db.write_core() as conn:
            await conn.execute(
                update(GameRow)
                .where(
                    GameRow.id == game_id,
                    GameRow.version == version,
                    GameRow.deadline_key.is_(None),
                )
                .values(deadline_at=at, deadline_key=key)
            )
            row = (
                await conn.execute(
                    select(GameRow.deadline_at, GameRow.deadline_key).where(
                        GameRow.id == game_id, GameRow.version == version
                    )
                )
            ).first()
        if row is None or row[1] is None:
            return None
        return as_utc(row[0]) if row[0] else utcnow(), row[1]

    async def extend_deadline(self, game_id: str, version: int, key: str, at: datetime) -> bool:
        """Move the open prompt's deadline to `at` (more time asked for), if the game is still
        at `version` with the deadline `key`; False when it moved on."""
        async with self.db.write_core() as conn:
            done = await conn.execute(
                update(GameRow)
                .where(
                    GameRow.id == game_id,
                    GameRow.version == version,
                    GameRow.deadline_key == key,
                )
                .values(deadline_at=at)
            )
        return bool(done.rowcount)

    async def stand_ins(self, table_id: str) -> list[tuple[int, str | None, str | None]]:
        """(seat, kind, seed) of every bot seat and stand-in of the table."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(SeatRow.seat, SeatRow.bot_kind, SeatRow.bot_seed).where(
                    SeatRow.table_id == table_id, SeatRow.bot.is_(True) | SeatRow.stand_in
                )
            )
            return [(s, k, b) for s, k, b in rows]

    async def set_stand_in(
        self, table_id: str, seat: int, on: bool, kind: str | None = None, seed: str | None = None
    ) -> bool:
        """A bot (kind, seed) starts or stops playing for a person's seat; False when the seat
        already was so (another caller, another process) or is a bot's."""
        values: dict[str, Any] = {"stand_in": on}
        if on:
            values.update(bot_kind=kind, bot_seed=seed)
        async with self.db.write_core() as conn:
            result = await conn.execute(
                update(SeatRow)
                .where(
                    SeatRow.table_id == table_id,
                    SeatRow.seat == seat,
                    SeatRow.bot.is_(False),
                    SeatRow.stand_in.is_(not on),
                )
                .values(**values)
            )
            if result.rowcount == 1:
                await conn.execute(
                    update(TableRow).where(TableRow.id == table_id).values(updated_at=utcnow())
                )
        return bool(result.rowcount == 1)


@mapped
class PgGames(SqliteGames):
    """Postgres's: the commit and the catch-up are one statement each on the action path's own
    asyncpg pool (app.store.pgpool), shared with the arrivals and the bus's NOTIFY."""

    def __init__(self, db: Database, channel: str, pool: PgPool) -> None:
        super().__init__(db, channel)
        self.pool = pool
        self.group = GroupCommit(pool, channel, _PG_COMMIT, db.settings.group_commit_max)

    async def open(self) -> None:
        await self.pool.open()

    async def since(self, game_id: str, after: int) -> Since:
        records = await self.pool.fetch(_PG_SINCE, game_id, after)
        return [(r[0], r[1], r[2], orjson.loads(r[3]), orjson.loads(r[4])) for r in records]

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        # One statement with one array parameter: the sweep asks for every room's table, a
        # thousand of them on a busy process (the ORM's IN list renders a parameter for each).
        records = await self.pool.fetch(_PG_VERSIONS, table_ids)
        return {r[0]: r[1] for r in records}

    async def deadline(self, game_id: str) -> tuple[int, datetime | None, str | None] | None:
        # One statement on the action path's pool: a room that read another process's actions
        # back (a version its notification did not carry) reads this after them.
        row = await self.pool.fetchrow(_PG_DEADLINE, game_id)
        return None if row is None else (row[0], row[1], row[2])

    async def _commit(self, c: Commit) -> None:
        action_text = orjson.dumps(c.action).decode()
        events_text = orjson.dumps(c.events).decode()
        payload = notify_payload(c, action_text, events_text)
        await self.group.commit((c, action_text, events_text, payload))
