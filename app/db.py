"""Async database engine and sessions for Postgres (asyncpg) and SQLite (aiosqlite)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from app.config import Settings


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    url = url or settings.resolved_database_url()
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if is_sqlite(url):
        kwargs = {"connect_args": {"timeout": settings.sqlite_busy_timeout_ms / 1000}}
    elif settings.database_schema:
        kwargs["connect_args"] = {"server_settings": {"search_path": settings.database_schema}}
    engine = create_async_engine(url, **kwargs)
    if is_sqlite(url):
        _tune_sqlite(engine, settings)
    return engine


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
