"""The action path's own asyncpg pool on Postgres: one statement per call, in autocommit, and a
connection the server ended while it sat idle in the pool replaced instead of failing the call.

When Postgres shuts down (or restarts, or ends idle sessions), every idle connection receives the
server's error with no operation running; asyncpg reads it, sets the connection aside in its
"error consume" state and learns that the connection is gone only when the end of the stream
arrives, a moment later. A statement started on it in between fails with asyncpg's
`InternalClientError("cannot switch to state 12; another operation (2) is in progress")`, which
reads like two operations sharing one connection but is not (asyncpg's own guard against that is an
`InterfaceError`). Nothing ran then (asyncpg refuses before it sends the statement's execution), so
the statement is safe to run again, even a commit: the connection is dropped, the pool's other
connections (which the server ended too) are replaced on their next use, and the statement runs
once more on a new connection. If the database is really gone, that attempt fails as an outage
does (connection refused, shutting down).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg

from app.store.db import ENDED_MESSAGE, Database, ended_while_idle


async def _keep_session(_conn: Any) -> None:
    """Single statements in autocommit change no session state: nothing to reset when a
    connection goes back (asyncpg's default reset would cost a round trip per action; a
    connection left in a transaction is still rolled back)."""


class PgPool:
    """Statements on the action path's pool (commit, catch-up, a socket's arrival)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def open(self) -> asyncpg.Pool:
        """SQLAlchemy's pool and its greenlet bridge would only add CPU to single statements."""
        pool = self._pool
        if pool is not None:
            return pool
        # Callers that come while the pool is being made (the first commits, arrivals and the
        # bus at start) wait for that one: each would otherwise make a pool of its own, and all
        # but the last would stay open, unused and never closed.
        async with self._opening:
            if self._pool is None:
                dsn, server_settings = self.db.asyncpg_dsn()
                size = self.db.settings.db_pool_size
                self._pool = await asyncpg.create_pool(
                    dsn,
                    min_size=min(2, size),
                    max_size=size,
                    server_settings=server_settings,
                    reset=_keep_session,
                )
            return self._pool

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        return await self._run("fetchrow", sql, args)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        rows: list[Any] = await self._run("fetch", sql, args)
        return rows

    async def execute(self, sql: str, *args: Any) -> str:
        status: str = await self._run("execute", sql, args)
        return status

    async def _run(self, method: str, sql: str, args: tuple[Any, ...]) -> Any:
        pool = await self.open()
        for attempt in range(2):
            async with pool.acquire() as conn:
                try:
                    return await getattr(conn, method)(sql, *args)
                except asyncpg.InternalClientError as exc:
                    if not ended_while_idle(exc):
                        raise
                    with contextlib.suppress(asyncpg.InterfaceError):  # asyncpg may be first
                        conn.terminate()
                    await pool.expire_connections()
                    if attempt:
                        raise asyncpg.ConnectionDoesNotExistError(ENDED_MESSAGE) from None
        raise AssertionError("unreachable")
