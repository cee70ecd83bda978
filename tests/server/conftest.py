"""Fixtures for the server tests: real databases and a real server process."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import require_service
from tests.server.harness import Database, ServerProcess

PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


def _asyncpg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


async def _pg(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(PG_URL), timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


_pg_state: dict[str, bool] = {}


def postgres_available() -> bool:
    if "ok" not in _pg_state:
        try:
            asyncio.run(_pg("SELECT 1"))
            _pg_state["ok"] = True
        except Exception:
            _pg_state["ok"] = False
    return _pg_state["ok"]


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Database:
    path = tmp_path / "dragonstones.sqlite3"
    return Database(url=f"sqlite+aiosqlite:///{path}", path=path)


@pytest.fixture
def pg_db() -> Iterator[Database]:
    """A fresh Postgres schema for one test, dropped afterwards."""
    require_service(postgres_available(), f"Postgres is not reachable at {PG_URL}")
    schema = f"t_{secrets.token_hex(6)}"
    asyncio.run(_pg(f'CREATE SCHEMA "{schema}"'))
    try:
        yield Database(url=PG_URL, schema=schema)
    finally:
        asyncio.run(_pg(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest) -> Database:
    """Each test using this runs on SQLite and on Postgres."""
    name = "sqlite_db" if request.param == "sqlite" else "pg_db"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One SQLite server for the tests of a module that do not restart it."""
    workdir = tmp_path_factory.mktemp("server")
    db = Database(
        url=f"sqlite+aiosqlite:///{workdir / 'shared.sqlite3'}", path=workdir / "shared.sqlite3"
    )
    server = ServerProcess(db, workdir)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[object]:
    """Start servers with given settings; every one is stopped at the end of the test."""
    started: list[ServerProcess] = []

    def make(db: Database, **settings: str) -> ServerProcess:
        server = ServerProcess(db, tmp_path, **settings)
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
async def http(shared_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as client:
        yield client
