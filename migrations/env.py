"""Alembic environment (async): the same migrations run on Postgres (asyncpg) and SQLite."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from app.core.config import get_settings
from app.store.db import make_engine
from app.store.models import Base

config = context.config
# Programmatic runs (app.store.migrate) configure logging themselves and set this attribute.
if config.config_file_name is not None and not config.attributes.get("skip_logging_config"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata
# Postgres advisory-lock key: two servers starting together must not both migrate.
MIGRATION_LOCK_KEY = 0x64726167


def database_url() -> str:
    return config.attributes.get("database_url") or get_settings().resolved_database_url()


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Batch mode rebuilds a table by copying it and dropping the old one; with foreign keys
        # on, that DROP deletes every row referencing it (tables -> seats, games -> actions...).
        # Off for this connection (it must be said before any transaction), as Alembic advises.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    # SQLite cannot ALTER most things; batch mode rebuilds tables instead.
    context.configure(
        connection=connection, target_metadata=target_metadata, render_as_batch=sqlite
    )
    with context.begin_transaction():
        if not sqlite:
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        context.run_migrations()


async def run_async_migrations() -> None:
    url = database_url()
    engine = make_engine(get_settings(), url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
