"""The stores of one database, wired once: the database's URL says Postgres or SQLite (the one
place that asks), and each store where the two differ is that database's implementation. The app
(app.main) is wired with what `open_stores` returns and sees only the protocols of
app.store.ports."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from app.core.config import Settings
from app.store.analyses import SqlAnalyses
from app.store.arrivals import PgArrivals, SqliteArrivals
from app.store.bus import PgBus, SqliteBus, channel_for
from app.store.chat import PgFeeds, SqliteFeeds
from app.store.db import Database
from app.store.games import PgGames, SqliteGames
from app.store.health import SqlHealth
from app.store.history import SqlHistory
from app.store.leagues import SqlLeagues
from app.store.pgpool import PgPool
from app.store.players import SqlPlayers
from app.store.ports import Arrivals, Bus, FeedStore, GameStore, Stores
from app.store.presence import Presence
from app.store.push import SqlPush
from app.store.queries import Queries
from app.store.queue import PgQueue, SqlQueue
from app.store.tables import PgTables, SqlTables


def _pg_bus(db: Database, pool: PgPool, channel: str, received: Callable[[], None]) -> PgBus:
    dsn, server_settings = db.asyncpg_dsn()

    async def notify(channel: str, payload: str) -> None:
        # One statement: the action path's pool (app.store.pgpool), not an ORM connection.
        await pool.execute("SELECT pg_notify($1, $2)", channel, payload)

    return PgBus(dsn, channel, server_settings, notify, received)


def open_stores(settings: Settings, received: Callable[[], None] = lambda: None) -> Stores:
    """Every store of the database `settings` name. `received`: counts each notification
    heard from other processes (Postgres)."""
    db = Database(settings)
    channel = channel_for(settings.database_schema)
    # The one place that asks which database it is.
    pool: PgPool | None = None
    games: GameStore
    arrivals: Arrivals
    feeds: FeedStore
    presence = Presence(
        db,
        heartbeat_seconds=settings.presence_heartbeat_seconds,
        idle_minutes=settings.table_idle_minutes,
        close_interval_seconds=settings.table_close_interval_seconds,
    )
    reads = Queries(
        db,
        idle_minutes=settings.table_idle_minutes,
        presence_stale=presence.stale,
        empty_listed=timedelta(seconds=settings.empty_table_listed_seconds),
    )
    bus: Bus
    if db.sqlite:
        games, arrivals = SqliteGames(db, channel), SqliteArrivals(db)
        tables, queue, feeds = SqlTables(db), SqlQueue(db), SqliteFeeds(db, channel)
        bus = SqliteBus(db.engine, settings.sqlite_watch_seconds)
    else:
        # The action path's own asyncpg pool: commits, catch-ups, arrivals, NOTIFYs.
        pool = PgPool(db)
        games, arrivals = PgGames(db, channel, pool), PgArrivals(pool, channel)
        tables, queue = PgTables(db, pool, channel), PgQueue(db)
        feeds = PgFeeds(db, channel, pool)
        bus = _pg_bus(db, pool, channel, received)

    async def close() -> None:
        if pool is not None:
            await pool.close()
        await db.dispose()

    return Stores(
        games=games,
        arrivals=arrivals,
        tables=tables,
        queue=queue,
        reads=reads,
        feeds=feeds,
        presence=presence,
        bus=bus,
        health=SqlHealth(db.engine),
        analyses=SqlAnalyses(db),
        players=SqlPlayers(db),
        history=SqlHistory(db),
        leagues=SqlLeagues(db),
        push=SqlPush(db),
        close=close,
    )
