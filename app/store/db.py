"""The database handle: the async engine (Postgres through asyncpg, SQLite through aiosqlite), its
sessions, and the one way to open a write transaction."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app.core.config import Settings


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


# asyncpg's words for a connection used after the server ended it while it sat idle (a shutdown,
# a restart, an idle timeout): the server's error arrived with no operation running and left the
# protocol in its "error consume" state (2) until the end of the stream is read. Not two operations
# on one connection: asyncpg's guard against that raises InterfaceError. (app.store.pgpool)
_ENDED_WHILE_IDLE = "another operation (2) is in progress"
ENDED_MESSAGE = "the database server ended the connection"


def ended_while_idle(exc: BaseException) -> bool:
    """`exc` (asyncpg's, or SQLAlchemy's wrapping it as `orig`) says that the server ended this
    connection while it was idle: nothing was sent."""
    driver = getattr(exc, "orig", None) or exc
    return isinstance(driver, asyncpg.InternalClientError) and _ENDED_WHILE_IDLE in str(driver)


def _json_text(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8")


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    url = url or settings.resolved_database_url()
    # orjson for the JSON columns (actions, events): several times faster than json.
    kwargs: dict[str, Any] = {"json_serializer": _json_text, "json_deserializer": orjson.loads}
    if is_sqlite(url):
        kwargs["connect_args"] = {"timeout": settings.sqlite_busy_timeout_ms / 1000}
    else:
        kwargs["pool_size"] = settings.db_pool_size
        kwargs["max_overflow"] = settings.db_max_overflow
        # No pre-ping: it would cost a round trip on every action. A connection that died with
        # the database is discarded by the failed statement, and the action is answered
        # `unavailable` (safe to resend).
        if settings.database_schema:
            kwargs["connect_args"] = {"server_settings": {"search_path": settings.database_schema}}
    engine = create_async_engine(url, **kwargs)
    if is_sqlite(url):
        _tune_sqlite(engine, settings)
    else:
        _discard_ended(engine)
    return engine


def _discard_ended(engine: AsyncEngine) -> None:
    """A pooled connection the server ended while it was idle is a disconnection: SQLAlchemy then
    drops it and the pool's older connections (the server ended those too), and the caller sees
    an outage that says so."""

    @event.listens_for(engine.sync_engine, "handle_error", retval=True)
    def _ended(context: Any) -> BaseException | None:
        if not ended_while_idle(context.original_exception):
            return None
        context.is_disconnect = True
        ended: BaseException = asyncpg.ConnectionDoesNotExistError(ENDED_MESSAGE)
        return ended


def _tune_sqlite(engine: AsyncEngine, settings: Settings) -> None:
    # WAL lets readers work while a game commits; the busy timeout makes a second writer wait
    # instead of failing; foreign keys are off by default in SQLite.
    sync_level = settings.sqlite_synchronous.upper()
    if sync_level not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
        raise ValueError(
            f"SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA, not {sync_level!r}"
        )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={sync_level}")
        cursor.execute(f"PRAGMA busy_timeout={int(settings.sqlite_busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[Any]:
    return async_sessionmaker(engine, expire_on_commit=False)


class Database:
    """The engine, its sessions, and writes: SQLite has one writer at a time, so writers queue
    here instead of in SQLite's busy-wait (which sleeps in steps of up to 100 ms)."""

    def __init__(self, settings: Settings, url: str | None = None) -> None:
        self.settings = settings
        self.engine = make_engine(settings, url)
        self.sessions: async_sessionmaker[AsyncSession] = make_sessionmaker(self.engine)
        self.sqlite = self.engine.dialect.name == "sqlite"
        self._write_lock: asyncio.Lock | None = asyncio.Lock() if self.sqlite else None

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """An ORM write transaction (the lobby): committed on exit, rolled back on error."""
        async with contextlib.AsyncExitStack() as stack:
            if self._write_lock is not None:
                await stack.enter_async_context(self._write_lock)
            session = await stack.enter_async_context(self.sessions())
            await stack.enter_async_context(session.begin())
            yield session

    @contextlib.asynccontextmanager
    async def write_core(self) -> AsyncIterator[AsyncConnection]:
        """A Core write transaction (the action path on SQLite): no ORM unit of work."""
        async with contextlib.AsyncExitStack() as stack:
            if self._write_lock is not None:
                await stack.enter_async_context(self._write_lock)
            conn = await stack.enter_async_context(self.engine.begin())
            yield conn

    def asyncpg_dsn(self) -> tuple[str, dict[str, str]]:
        """Postgres: the DSN and server settings for connections of asyncpg's own (the action
        path's pool, the listener)."""
        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        schema = self.settings.database_schema
        return dsn, ({"search_path": schema} if schema else {})

    async def dispose(self) -> None:
        await self.engine.dispose()
