"""A game's persistence: load it, commit one action under the version guard, read what another
process committed.

The commit is the only write of the action path. On Postgres it is one statement, sent as one
round trip in autocommit: it moves the game row from the expected version to the next (the guard),
appends the action with its events (what makes the action durable), closes the table when the game
ends, and sends the NOTIFY that tells other processes, carrying the action itself when it fits,
which Postgres delivers only if the statement commits. On SQLite (one process) the same writes run
as one Core transaction.

The game row's `state` is a snapshot, not the current state: it is written at the start, when the
version is a multiple of SNAPSHOT_EVERY, and when the game ends, with `snapshot_version` saying
which version it holds. Loading reads the snapshot and the action log and replays the actions after
the snapshot with the engine, which is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg
import orjson
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

import engine
from app.core.errors import DATABASE_ERRORS
from app.store.db import Database
from app.store.models import ActionRow, GameRow, SeatRow, TableRow, as_utc, utcnow
from app.store.pgpool import PgPool
from app.store.seat_clocks import SeatClocks


class StaleVersion(Exception):
    """The game's version in the database is not the one the action was applied to."""


class DuplicateActionId(Exception):
    """This seat's action_id is already committed (by another process, a moment ago)."""


class StoreUnavailable(Exception):
    """The database failed mid-commit: the action may or may not be committed."""


@dataclass
class StoredGame:
    """A game as read from the database: the latest snapshot and every action's log row."""

    id: str
    table_id: str
    players: int
    seed: str
    state: str  # engine.dumps text of the snapshot (version `snapshot_version`)
    version: int
    over: bool
    opening: list[dict[str, Any]] | None
    turn_seconds: int | None
    bots: list[tuple[int, str | None, str | None]]  # (seat, kind, seed), stand-ins included
    # One entry per version after 0: (version, seat, action_id, raw events).
    actions: list[tuple[int, int, str, list[dict[str, Any]]]]
    # -- timers and absent players (issue 8) --
    choose_seconds: int | None = None
    deadline_at: datetime | None = None  # the open prompt's stored deadline
    deadline_key: str | None = None
    # -- snapshots (issue 17) --
    snapshot_version: int | None = None  # None: `state` is the state of `version`
    # (seat, action) of every version after the snapshot's, in order: replayed on load.
    replay: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def current_state(self) -> Any:
        """The state of `version`: the snapshot, then the actions after it (the engine is
        deterministic)."""
        state = engine.loads(self.state)
        for seat, action in self.replay:
            state, _events = engine.apply(state, seat, action)
        return state


@dataclass(frozen=True, slots=True)
class Commit:
    """One action to commit: the game moves from `version - 1` to `version`."""

    game_id: str
    table_id: str
    version: int
    seat: int
    action: dict[str, Any]
    action_id: str
    events: list[dict[str, Any]]
    state: str | None  # engine.dumps of the new state when this version is a snapshot
    winner: int | None
    over: bool
    now: datetime = field(default_factory=utcnow)
    # The deadline of the prompt open after this action (app.table.clock), null: none.
    deadline_at: datetime | None = None
    deadline_key: str | None = None

    @property
    def status(self) -> str:
        return "over" if self.over else "playing"


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


class GameStore(SeatClocks):
    def __init__(self, db: Database, channel: str) -> None:
        self.db = db
        self.channel = channel  # the NOTIFY channel of this database schema
        # Postgres: the action path's own asyncpg pool (app.store.pgpool): each commit is one
        # statement in autocommit.
        self.pool = PgPool(db)

    async def open(self) -> None:
        if not self.db.sqlite:
            await self.pool.open()

    async def close(self) -> None:
        await self.pool.close()

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

    async def since(
        self, game_id: str, after: int
    ) -> list[tuple[int, int, str, dict[str, Any], list[dict[str, Any]]]]:
        """What another process committed after version `after`, in order: (version, seat,
        action_id, action, raw events) of each new action. One query, no snapshot: the room
        replays the actions with the engine, which is deterministic."""
        if self.db.sqlite:
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
        records = await self.pool.fetch(_PG_SINCE, game_id, after)
        return [(r[0], r[1], r[2], orjson.loads(r[3]), orjson.loads(r[4])) for r in records]

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
            if self.db.sqlite:
                await self._commit_sqlite(c)
            else:
                await self._commit_pg(c)
        except (IntegrityError, asyncpg.UniqueViolationError) as exc:
            if "version" in str(getattr(exc, "orig", exc)):
                raise StaleVersion from None
            raise DuplicateActionId from None
        except DATABASE_ERRORS as exc:
            raise StoreUnavailable(repr(exc)) from None

    async def _commit_pg(self, c: Commit) -> None:
        action_text = orjson.dumps(c.action).decode()
        events_text = orjson.dumps(c.events).decode()
        committed = await self.pool.fetchrow(
            _PG_COMMIT,
            c.state,
            c.version,
            c.status,
            c.winner,
            c.now,
            c.now if c.over else None,
            c.game_id,
            c.seat,
            action_text,
            c.action_id,
            events_text,
            c.table_id,
            self.channel,
            c.deadline_at,
            c.deadline_key,
            notify_payload(c, action_text, events_text),
        )
        if committed is None:  # no row: the guard found another version
            raise StaleVersion

    async def _commit_sqlite(self, c: Commit) -> None:
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
