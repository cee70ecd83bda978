"""Group commit on the real Postgres (app.store.group_commit): the actions of many games committed
at once go together, and each still gets its own answer: committed, a version another writer took
(`StaleVersion`) or an action id its seat already used (`DuplicateActionId`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import asyncpg
import pytest

import engine
from app.core.config import Settings
from app.core.security import hash_token, new_id
from app.store.db import make_engine
from app.store.games import PgGames
from app.store.group_commit import IN_FLIGHT
from app.store.models import Base
from app.store.ports import DuplicateActionId, StaleVersion, Stores
from app.store.records import Commit, GameStart, TableRec, utcnow
from app.store.stores import open_stores
from tests.server.harness import Database

GAMES = 12
BID: engine.BidAction = {
    "type": "bid",
    "fairy_gold": 1,
    "common_gold": 0,
    "amulet": False,
    "black_magic": False,
}


@pytest.fixture
async def stores(pg_db: Database) -> AsyncIterator[Stores]:
    settings = Settings(database_url=pg_db.url, database_schema=pg_db.schema)
    made = make_engine(settings, pg_db.url)
    try:
        async with made.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
    finally:
        await made.dispose()
    opened = open_stores(settings)
    await opened.games.open()  # as the hub does at start
    try:
        yield opened
    finally:
        await opened.close()


async def _games(stores: Stores) -> list[tuple[str, str]]:
    """(table id, game id) of GAMES started games at version 0."""
    made = []
    state, opening = engine.start(players=3, seed=5)
    for _ in range(GAMES):
        table_id, game_id = new_id(), new_id()
        async with stores.tables.write() as tx:
            await tx.add_table(TableRec(id=table_id, seats=3))
            await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token(table_id))
            await tx.start_game(
                GameStart(
                    game_id=game_id, table_id=table_id, players=3, seed="5",
                    seed_commitment="x", state=engine.dumps(state), opening=opening,
                    deadline_at=None, deadline_key=None,
                    now=utcnow(),
                )
            )  # fmt: skip
        made.append((table_id, game_id))
    return made


def _commit(table_id: str, game_id: str, version: int, action_id: str) -> Commit:
    events = [{"type": "bid_submitted", "seat": 0}]
    return Commit(
        game_id=game_id, table_id=table_id, version=version, seat=0, action=BID,
        action_id=action_id, events=events, state=None, winner=None, over=False,
    )  # fmt: skip


async def _outcome(stores: Stores, c: Commit) -> str:
    try:
        await stores.games.commit(c)
    except StaleVersion:
        return "stale"
    except DuplicateActionId:
        return "duplicate"
    return "committed"


@pytest.mark.postgres
async def test_actions_committed_together_each_get_their_own_answer(stores: Stores) -> None:
    games = await _games(stores)
    first = [_commit(t, g, 1, f"a-{i}") for i, (t, g) in enumerate(games)]
    outcomes = await asyncio.gather(*(_outcome(stores, c) for c in first))
    assert outcomes == ["committed"] * GAMES
    assert isinstance(stores.games, PgGames)
    assert stores.games.group.grouped >= GAMES - IN_FLIGHT  # all but the first went together

    # Again at once: game 0 sends version 1 again (another writer's), game 1 reuses its action
    # id, the others move on to version 2.
    second = [_commit(games[0][0], games[0][1], 1, "a-0-again")]
    second.append(_commit(games[1][0], games[1][1], 2, "a-1"))
    second += [_commit(t, g, 2, f"b-{i}") for i, (t, g) in enumerate(games) if i > 1]
    outcomes = await asyncio.gather(*(_outcome(stores, c) for c in second))
    assert outcomes == ["stale", "duplicate"] + ["committed"] * (GAMES - 2)

    for i, (_table_id, game_id) in enumerate(games):
        rows = await stores.games.since(game_id, 0)
        expected = [(1, f"a-{i}")] + ([(2, f"b-{i}")] if i > 1 else [])
        assert [(v, action_id) for v, _seat, action_id, _a, _e in rows] == expected
        assert all(a == BID for _v, _s, _id, a, _e in rows)


async def _game(stores: Stores, game_id: str) -> str:
    table_id = new_id()
    state, opening = engine.start(players=3, seed=5)
    async with stores.tables.write() as tx:
        await tx.add_table(TableRec(id=table_id, seats=3))
        await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token(table_id))
        await tx.start_game(
            GameStart(
                game_id=game_id, table_id=table_id, players=3, seed="5", seed_commitment="x",
                state=engine.dumps(state), opening=opening, deadline_at=None, deadline_key=None,
                now=utcnow(),
            )
        )  # fmt: skip
    return table_id


@pytest.mark.postgres
async def test_a_group_locks_its_games_in_the_order_of_their_ids(
    stores: Stores, pg_db: Database
) -> None:
    """Two processes' groups that share games took their row locks in the order of their rows
    (or of the table's pages): each held a game the other wanted next, and Postgres failed one
    of them after a second (110 actions answered `unavailable` in 10 s of bench/load.py with two
    processes). Here the group's rows come highest id first, in a table whose pages hold the
    highest first too; with the highest game held by another transaction, the statement must
    already hold the lowest while it waits."""
    low, high = "game-a", "game-b"
    tables = {high: await _game(stores, high), low: await _game(stores, low)}  # high written first
    assert isinstance(stores.games, PgGames)
    group = stores.games.group
    rows = [(_commit(tables[g], g, 1, f"x-{g}"), json.dumps(BID), "[]", "{}") for g in (high, low)]
    dsn, server_settings = stores.games.db.asyncpg_dsn()
    holder = await asyncpg.connect(dsn, server_settings=server_settings)
    prober = await asyncpg.connect(dsn, server_settings=server_settings)
    try:
        held = holder.transaction()
        await held.start()
        await holder.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", high)
        statement = asyncio.create_task(group._many(rows))
        # Until the statement waits for the lock the holder has (not a retry: a state awaited).
        async with asyncio.timeout(10):
            while not await prober.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
                holder.get_server_pid(),
            ):
                await asyncio.sleep(0.01)
        probe = prober.transaction()
        await probe.start()
        with pytest.raises(asyncpg.LockNotAvailableError):
            await prober.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE NOWAIT", low)
        await probe.rollback()
        await held.rollback()
        assert await asyncio.wait_for(statement, 10) == {low, high}
    finally:
        await holder.close()
        await prober.close()
