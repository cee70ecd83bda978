"""The action path's asyncpg pool (app.store.pgpool) on the real Postgres: callers that come while
it is being opened (the first commits, arrivals and the bus at a start) share the one pool."""

from __future__ import annotations

import asyncio
from typing import Any

from app.core.config import Settings
from app.store.db import Database as Db
from app.store.pgpool import PgPool
from tests.server.harness import Database

CALLERS = 6


async def test_callers_at_once_open_one_pool(pg_db: Database) -> None:
    db = Db(Settings(database_url=pg_db.url, database_schema=pg_db.schema), pg_db.url)
    pool = PgPool(db)
    opened: list[Any] = []
    try:
        opened = await asyncio.gather(*(pool.open() for _ in range(CALLERS)))
        # One pool, the one every later statement uses (and `close` closes).
        assert len({id(p) for p in opened}) == 1
        assert opened[0] is await pool.open()
        assert await pool.fetchrow("SELECT 1 AS one") == (1,)
    finally:
        kept = await pool.open()
        for extra in {id(p): p for p in opened if p is not kept}.values():
            await extra.close()  # pools made beside the kept one (the defect): closed here
        await pool.close()
        await db.dispose()
