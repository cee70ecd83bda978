"""Group commit on Postgres: the actions of several games that are ready while earlier commits are
still under way are committed together, in one statement and one transaction, and each is
acknowledged only once that transaction has committed.

Alone (no commit waiting), an action takes the one-row statement as before and waits for nothing.
While `IN_FLIGHT` statements are under way, further actions wait for one of them to end and then
go together, up to `GROUP_COMMIT_MAX` (one game at most once in a statement: a game's next action
waits for the previous one's acknowledgement anyway). One transaction writes one WAL record to
flush and does the statement's planning and protocol work once: on this machine Postgres spent
0.19-0.26 ms of CPU per action committed alone, 0.05 ms in statements of 8 (bench/RESULTS.md).

Each row keeps its own version guard: a game another process moved on is simply not written, and
that action alone is answered `StaleVersion`. The statement locks its games in the order of their
ids, so that two processes' statements sharing games never deadlock. A unique violation (an action
id used twice, a version written by another process in between) fails the whole statement: its
actions are then committed one by one, each with its own answer. A driver error fails every action
of the statement, as it would have failed each alone (maybe committed: the rooms read what was).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg

from app.store.pgpool import PgPool
from app.store.ports import StaleVersion
from app.store.records import Commit

# Statements under way at once before actions wait to go together (the pool also serves the
# arrivals and the bus's NOTIFY).
IN_FLIGHT = 2

# One commit as a whole: guarded update (the snapshot only when given), append, close the table,
# notify, for every row of the arrays whose guard holds. The games' rows are locked first, in the
# order of their ids (`l`: the update touches only rows `l` has locked): two processes' statements
# that share games wait for each other instead of each locking a game the other wants next, which
# Postgres ends after deadlock_timeout (1 s) by failing one of them, every action in it.
_PG_GROUP_COMMIT = """
WITH v AS (
    SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::timestamptz[],
                         $6::timestamptz[], $7::text[], $8::int[], $9::text[], $10::text[],
                         $11::text[], $12::text[], $13::timestamptz[], $14::text[], $15::text[])
        AS v(state, version, status, winner, now, finished_at, game_id, seat, action, action_id,
             events, table_id, deadline_at, deadline_key, payload)
), l AS (
    SELECT games.id FROM games WHERE games.id = ANY($7::text[]) ORDER BY games.id FOR UPDATE
), g AS (
    UPDATE games SET state = COALESCE(v.state, games.state),
                     snapshot_version = CASE WHEN v.state IS NULL
                         THEN COALESCE(games.snapshot_version, games.version) ELSE v.version END,
                     version = v.version, status = v.status, winner = v.winner,
                     updated_at = v.now, finished_at = v.finished_at,
                     deadline_at = v.deadline_at, deadline_key = v.deadline_key
    FROM v JOIN l ON l.id = v.game_id
    WHERE games.id = v.game_id AND games.version = v.version - 1
    RETURNING games.id
), a AS (
    INSERT INTO actions (game_id, version, seat, action, action_id, events, created_at)
    SELECT v.game_id, v.version, v.seat, v.action::json, v.action_id, v.events::json, v.now
    FROM v JOIN g ON g.id = v.game_id
    RETURNING game_id, version
), t AS (
    UPDATE tables SET status = 'over', updated_at = v.now
    FROM a JOIN v ON v.game_id = a.game_id
    WHERE tables.id = v.table_id AND v.status = 'over'
)
SELECT a.game_id, pg_notify($16, v.payload) FROM a JOIN v ON v.game_id = a.game_id
"""

# (the commit, its action and events as JSON text, its NOTIFY payload)
Row = tuple[Commit, str, str, str]


class GroupCommit:
    """The commits of one process on the action path's pool."""

    def __init__(self, pool: PgPool, channel: str, single: str, most: int) -> None:
        self.pool = pool
        self.channel = channel
        self.single = single  # the one-row statement (app.store.games)
        self.most = max(1, most)
        self.running = 0
        self.grouped = 0  # actions sent in statements of several
        self.waiting: list[tuple[Row, asyncio.Future[None]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def commit(self, row: Row) -> None:
        """Commit one action; returns once it is durable, raises as the one-row statement
        would (StaleVersion, a unique violation, a driver error)."""
        if self.most == 1 or (self.running < IN_FLIGHT and not self.waiting):
            self.running += 1
            try:
                await self._one(row)
            finally:
                self.running -= 1
                self._start()
            return
        done = asyncio.get_running_loop().create_future()
        self.waiting.append((row, done))
        await done

    def _start(self) -> None:
        """Start statements for the actions waiting, while fewer than IN_FLIGHT run."""
        while self.waiting and self.running < IN_FLIGHT:
            group: list[tuple[Row, asyncio.Future[None]]] = []
            later: list[tuple[Row, asyncio.Future[None]]] = []
            games: set[str] = set()
            for item in self.waiting:
                if item[1].done():  # its caller went away (cancelled)
                    continue
                game_id = item[0][0].game_id
                if len(group) < self.most and game_id not in games:
                    games.add(game_id)
                    group.append(item)
                else:
                    later.append(item)
            self.waiting = later
            if not group:
                return
            self.running += 1
            task = asyncio.create_task(self._run(group))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, group: list[tuple[Row, asyncio.Future[None]]]) -> None:
        try:
            if len(group) == 1:
                await _settle(group[0][1], self._one(group[0][0]))
                return
            self.grouped += len(group)
            try:
                committed = await self._many([row for row, _done in group])
            except asyncpg.UniqueViolationError:
                # One of them is refused: each alone says which.
                for row, done in group:
                    await _settle(done, self._one(row))
                return
            except Exception as exc:
                for _row, done in group:
                    if not done.done():
                        done.set_exception(exc)
                return
            for row, done in group:
                if not done.done():
                    if row[0].game_id in committed:
                        done.set_result(None)
                    else:  # its guard found another version
                        done.set_exception(StaleVersion())
        finally:
            self.running -= 1
            self._start()

    async def _one(self, row: Row) -> None:
        c, action_text, events_text, payload = row
        committed = await self.pool.fetchrow(
            self.single,
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
            payload,
        )
        if committed is None:  # no row: the guard found another version
            raise StaleVersion

    async def _many(self, rows: list[Row]) -> set[str]:
        """One statement for all of them: the ids of the games whose action was committed."""
        commits = [r[0] for r in rows]
        records = await self.pool.fetch(
            _PG_GROUP_COMMIT,
            [c.state for c in commits],
            [c.version for c in commits],
            [c.status for c in commits],
            [c.winner for c in commits],
            [c.now for c in commits],
            [c.now if c.over else None for c in commits],
            [c.game_id for c in commits],
            [c.seat for c in commits],
            [r[1] for r in rows],
            [c.action_id for c in commits],
            [r[2] for r in rows],
            [c.table_id for c in commits],
            [c.deadline_at for c in commits],
            [c.deadline_key for c in commits],
            [r[3] for r in rows],
            self.channel,
        )
        return {r[0] for r in records}


async def _settle(done: asyncio.Future[None], work: Any) -> None:
    """Run one commit and hand its outcome to the action waiting for it."""
    try:
        await work
    except Exception as exc:
        if not done.done():
            done.set_exception(exc)
        return
    with contextlib.suppress(asyncio.InvalidStateError):
        done.set_result(None)
