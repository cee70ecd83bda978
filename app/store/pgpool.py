"""The action path's own pool of asyncpg connections on Postgres: one statement per call, in
autocommit, and a connection the server ended while it sat idle in the pool replaced instead of
failing the call.

Lean on purpose. Each statement here is a few tens of microseconds of client CPU, and asyncpg's
own pool added about as much again to each: its release runs in a task of its own (under
`asyncio.shield`) and every acquire and release cancels and re-arms an inactivity timer. Here an
acquire takes the connection last given back (or opens one, up to `DB_POOL_SIZE`, or waits for
one in turn) and a release gives it to the next caller waiting or keeps it, with no task and no
timer. A connection that failed other than by a statement the server refused is closed, never
given to the next caller.

When Postgres shuts down (or restarts, or ends idle sessions), every idle connection receives the
server's error with no operation running; asyncpg reads it, sets the connection aside in its
"error consume" state and learns that the connection is gone only when the end of the stream
arrives, a moment later. A statement started on it in between fails with asyncpg's
`InternalClientError("cannot switch to state 12; another operation (2) is in progress")`, which
reads like two operations sharing one connection but is not (asyncpg's own guard against that is an
`InterfaceError`). Nothing ran then (asyncpg refuses before it sends the statement's execution), so
the statement is safe to run again, even a commit: the connection is dropped, the pool's other
connections (which the server ended too) are closed (the ones in use when they come back), and the
statement runs once more on a new connection. If the database is really gone, that attempt fails as
an outage does (connection refused, shutting down).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any

import asyncpg

from app.store.db import ENDED_MESSAGE, Database, ended_while_idle

# Opened at start (the first commits need no connect of their own).
WARM = 2

# SQLSTATE classes after which the connection itself is gone: connection exceptions, and the
# server shutting down or ending the session (57P01, 57P02, 57P03...).
_CONNECTION_GONE = ("08", "57")


class PgPool:
    """Statements on the action path's pool (commit, catch-up, a socket's arrival)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.size = max(1, db.settings.db_pool_size)
        self._idle: list[asyncpg.Connection] = []  # the last given back is taken first
        self._open = 0  # connections open or being opened
        self._waiting: deque[asyncio.Future[asyncpg.Connection | None]] = deque()
        self._generation = 0  # connections of an earlier one are closed when they come back
        self._born: dict[asyncpg.Connection, int] = {}
        self._ready = False
        self._opening = asyncio.Lock()

    @property
    def connections(self) -> int:
        """Connections open or being opened."""
        return self._open

    async def open(self) -> None:
        """Open the first connections once; callers that come meanwhile (the first commits,
        arrivals and the bus at start) wait for them instead of opening their own."""
        if self._ready:
            return
        async with self._opening:
            if self._ready:
                return
            warm: list[asyncpg.Connection] = []
            try:
                for _ in range(min(WARM, self.size) - self._open):
                    warm.append(await self._connect())
            finally:
                for conn in warm:
                    self._release(conn, healthy=True)
            self._ready = True

    async def close(self) -> None:
        """Close the connections: the idle ones now, those in use when they come back."""
        self._ready = False
        self._generation += 1
        idle, self._idle = self._idle, []
        for conn in idle:
            if self._born.pop(conn, None) is not None:
                self._open -= 1
            with contextlib.suppress(Exception):  # a goodbye to the server, not a dropped socket
                await conn.close(timeout=2)

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        return await self._run("fetchrow", sql, args)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        rows: list[Any] = await self._run("fetch", sql, args)
        return rows

    async def execute(self, sql: str, *args: Any) -> str:
        status: str = await self._run("execute", sql, args)
        return status

    async def _run(self, method: str, sql: str, args: tuple[Any, ...]) -> Any:
        if not self._ready:
            await self.open()
        for attempt in range(2):
            conn = await self._acquire()
            healthy = False
            try:
                result = await getattr(conn, method)(sql, *args)
                healthy = True
                return result
            except asyncpg.PostgresError as exc:
                # The server refused the statement (autocommit: nothing of it stays); the
                # connection serves on unless the server is ending it.
                healthy = not str(getattr(exc, "sqlstate", "") or "").startswith(_CONNECTION_GONE)
                raise
            except asyncpg.InternalClientError as exc:
                if not ended_while_idle(exc):
                    raise
                self._expire()
                if attempt:
                    raise asyncpg.ConnectionDoesNotExistError(ENDED_MESSAGE) from None
            finally:
                self._release(conn, healthy)
        raise AssertionError("unreachable")

    async def _connect(self) -> asyncpg.Connection:
        """A new connection, counted while it opens (a failure frees its place)."""
        self._open += 1
        try:
            dsn, server_settings = self.db.asyncpg_dsn()
            conn = await asyncpg.connect(dsn, server_settings=server_settings)
        except BaseException:
            self._open -= 1
            self._hand_on(None)
            raise
        self._born[conn] = self._generation
        return conn

    async def _acquire(self) -> asyncpg.Connection:
        while True:
            while self._idle:
                conn = self._idle.pop()
                if not conn.is_closed():
                    return conn
                self._forget(conn)
            if self._open < self.size:
                return await self._connect()
            waiter: asyncio.Future[asyncpg.Connection | None]
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            try:
                given = await waiter
            except asyncio.CancelledError:
                # Given something just as it was cancelled: hand it on.
                if waiter.done() and not waiter.cancelled():
                    late = waiter.result()
                    if late is None:
                        self._hand_on(None)
                    else:
                        self._release(late, healthy=True)
                raise
            if given is not None:
                return given
            # None: a place was freed, to open a connection in (or one was given back idle).

    def _release(self, conn: asyncpg.Connection, healthy: bool) -> None:
        if not healthy or conn.is_closed() or self._born.get(conn) != self._generation:
            self._forget(conn)
            return
        if not self._hand_on(conn):
            self._idle.append(conn)

    def _hand_on(self, conn: asyncpg.Connection | None) -> bool:
        """Give a connection, or the place of one closed (None), to the first caller still
        waiting. False if nobody waits."""
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return True
        return False

    def _forget(self, conn: asyncpg.Connection) -> None:
        """Close a connection (at once, without a goodbye) and free its place."""
        with contextlib.suppress(Exception):  # asyncpg may have closed it already
            conn.terminate()
        if self._born.pop(conn, None) is not None:
            self._open -= 1
            self._hand_on(None)

    def _expire(self) -> None:
        """The server ended this process's connections: close the idle ones now, those in use
        when they come back."""
        self._generation += 1
        idle, self._idle = self._idle, []
        for conn in idle:
            self._forget(conn)
