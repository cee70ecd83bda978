"""The store on its own, in process, against the real SQLite and Postgres: it raises its own
errors, never a driver's (a seat another writer took first is `StoreConflict`; a database that
does not answer is `StoreUnavailable`), whichever database is behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.exc import SQLAlchemyError

from app.core.config import Settings
from app.core.errors import StoreConflict, StoreUnavailable
from app.core.security import hash_token, new_id
from app.store.db import make_engine
from app.store.models import Base
from app.store.ports import Stores
from app.store.records import TableRec
from app.store.stores import open_stores
from tests.ports import free_port
from tests.server.harness import Database


def _settings(db: Database) -> Settings:
    return Settings(database_url=db.url, database_schema=db.schema)


@pytest.fixture
async def stores(database: Database) -> AsyncIterator[Stores]:
    settings = _settings(database)
    engine = make_engine(settings, database.url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
    finally:
        await engine.dispose()
    opened = open_stores(settings)
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_seat_another_writer_took_is_a_conflict(stores: Stores) -> None:
    table_id = new_id()
    async with stores.tables.write() as tx:
        await tx.add_table(TableRec(id=table_id, seats=3))
        await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token("a"))
    with pytest.raises(StoreConflict):
        async with stores.tables.write() as tx:
            await tx.add_seat(table_id, 0, "Bea", token_hash=hash_token("b"))
            await tx.update_table(table_id)
    rows = await stores.reads.table(table_id)
    assert [(s.seat, s.name) for s in rows.seats] == [(0, "Ann")]


async def test_a_database_that_does_not_answer_is_unavailable(tmp_path: Path) -> None:
    # Nothing listens on the Postgres port; the SQLite file's folder does not exist.
    for url in (
        f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/none",
        f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'db.sqlite3'}",
    ):
        stores = open_stores(Settings(database_url=url))
        try:
            with pytest.raises(StoreUnavailable) as raised:
                await stores.reads.table(new_id())
            assert not isinstance(raised.value, SQLAlchemyError | OSError)
            with pytest.raises(StoreUnavailable):
                async with stores.tables.write() as tx:
                    await tx.add_table(TableRec(id=new_id(), seats=3))
            with pytest.raises(StoreUnavailable):
                await stores.presence.arrive(new_id(), 1)
            with pytest.raises(StoreUnavailable):
                await stores.feeds.last_ids([new_id()])
            assert await stores.health.problem(2.0) is not None
        finally:
            await stores.close()
