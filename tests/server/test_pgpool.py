"""The action path's pool (app.store.pgpool) on the real Postgres: callers that come while it is
being opened (the first commits, arrivals and the bus at a start) share its first connections;
statements at once never open more than DB_POOL_SIZE connections, and wait their turn for one;
a statement the server refuses leaves its connection in the pool, and a caller cancelled while it
waits takes no connection with it."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from app.core.config import Settings
from app.store.db import Database as Db
from app.store.pgpool import WARM, PgPool
from tests.server.harness import Database

CALLERS = 6
SIZE = 3


def _pool(pg_db: Database) -> tuple[Db, PgPool]:
    settings = Settings(database_url=pg_db.url, database_schema=pg_db.schema, db_pool_size=SIZE)
    db = Db(settings, pg_db.url)
    return db, PgPool(db)


@pytest.mark.postgres
async def test_callers_at_once_open_the_first_connections_once(pg_db: Database) -> None:
    db, pool = _pool(pg_db)
    try:
        await asyncio.gather(*(pool.open() for _ in range(CALLERS)))
        assert pool.connections == WARM
        assert await pool.fetchrow("SELECT 1 AS one") == (1,)
        assert pool.connections == WARM
    finally:
        await pool.close()
        await db.dispose()
    assert pool.connections == 0


@pytest.mark.postgres
async def test_statements_at_once_share_at_most_the_pool_size(pg_db: Database) -> None:
    db, pool = _pool(pg_db)
    try:
        # Twice as many sleeps as connections: each waits its turn, none opens a fourth.
        statuses = await asyncio.gather(
            *(pool.execute("SELECT pg_sleep(0.05)") for _ in range(2 * SIZE))
        )
        assert statuses == ["SELECT 1"] * (2 * SIZE)
        assert pool.connections == SIZE

        # Refused by the server: the connection stays, and serves the next statement.
        with pytest.raises(asyncpg.UndefinedTableError):
            await pool.fetch("SELECT * FROM no_such_table")
        assert pool.connections == SIZE

        # A caller cancelled while it waits for a connection takes none with it.
        busy = [asyncio.create_task(pool.execute("SELECT pg_sleep(0.2)")) for _ in range(SIZE)]
        await asyncio.sleep(0.05)
        waiting = asyncio.create_task(pool.fetchrow("SELECT 2"))
        await asyncio.sleep(0.02)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await asyncio.gather(*busy)
        assert pool.connections == SIZE
        assert await pool.fetchrow("SELECT 3") == (3,)
    finally:
        await pool.close()
        await db.dispose()
