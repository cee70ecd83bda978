"""Read-only sessions in autocommit for the players' pages (app.store.history, players,
leagues): a page's few reads need no transaction of their own, and a transaction's BEGIN and
ROLLBACK cost two round trips and about a fifth of such a request's server CPU on Postgres."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncSession

from app.store.db import Database


@contextlib.asynccontextmanager
async def reading(db: Database) -> AsyncIterator[AsyncSession]:
    """An ORM session on a connection in autocommit, for reads only (nothing it adds is kept)."""
    async with db.engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        async with AsyncSession(bind=conn, expire_on_commit=False) as session:
            yield session
