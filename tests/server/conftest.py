"""Fixtures for the server tests: real databases and a real server process."""

from __future__ import annotations

import asyncio
import contextlib
import glob
import inspect
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import require_service
from tests.ports import free_port
from tests.server.harness import Database, ServerProcess, open_client_sockets

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (--dist loadgroup), the tests of a module that share its server run on
    one worker, in order, as they would alone: one server start, and what one test leaves on it
    the next one sees exactly as without workers."""
    for item in items:
        if isinstance(item, pytest.Function) and "shared_server" in item.fixturenames:
            item.add_marker(pytest.mark.xdist_group(f"shared_server:{item.module.__name__}"))


@pytest.fixture(autouse=True)
def _client_sockets_closed(request: pytest.FixtureRequest) -> None:
    """Every async test closes each client socket it opened (checked on its own event loop)."""
    if inspect.iscoroutinefunction(getattr(request, "function", None)):
        request.getfixturevalue("client_sockets_closed")


@pytest.fixture
async def client_sockets_closed() -> AsyncIterator[None]:
    """Fails a test that leaves a SeatClient socket open (a socket that outlives its event loop
    raises a ResourceWarning later, in whichever test the collector runs), after closing them."""
    open_client_sockets()
    yield
    left = open_client_sockets()
    for _, ws in left:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 5)
    if left:
        who = "; ".join(who for who, _ in left)
        pytest.fail(f"the test left client sockets open: {who}", pytrace=False)


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
def shared_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One SQLite server for the tests of a module that do not restart it, with the module's
    `SHARED_SERVER_SETTINGS` (e.g. TEST_SEED, for a test that names its game's seed)."""
    workdir = tmp_path_factory.mktemp("server")
    db = Database(
        url=f"sqlite+aiosqlite:///{workdir / 'shared.sqlite3'}", path=workdir / "shared.sqlite3"
    )
    server = ServerProcess(db, workdir, **getattr(request.module, "SHARED_SERVER_SETTINGS", {}))
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[object]:
    """Start servers with given settings; every one is stopped at the end of the test."""
    started: list[ServerProcess] = []

    def make(db: Database, **settings: str) -> ServerProcess:
        server = ServerProcess(db, tmp_path, **settings)
        started.append(server)
        server.start()
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
async def http(shared_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as client:
        yield client


class PrivatePostgres:
    """A throwaway Postgres cluster of one test, run as the `postgres` user on 127.0.0.1 and a
    free port: a test may stop and start it without touching the machine's shared Postgres."""

    def __init__(self, bindir: Path, root: Path) -> None:
        self.bindir = bindir
        self.root = root
        self.data = root / "data"
        self.sockets = root / "sockets"
        self.port = free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        command = list(args)
        if os.geteuid() == 0:  # Postgres refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")

    def init(self) -> None:
        self.sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            shutil.chown(self.sockets, "postgres")
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-w",
            "-l", str(self.root / "postgres.log"), "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


def _postgres_bindir() -> Path | None:
    found = sorted(
        Path(p).parent
        for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")
        if Path(p).with_name("pg_ctl").exists()
    )
    return found[-1] if found else None


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    """A private Postgres cluster (initdb in a temporary directory, trust auth), started; stopped
    and removed at the end, even when the test fails."""
    bindir = _postgres_bindir()
    require_service(bindir is not None, "Postgres server binaries (initdb, pg_ctl) are absent")
    assert bindir is not None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            require_service(False, "running as root and there is no postgres user")
    root = Path(tempfile.mkdtemp(prefix="dragonstones-pg-"))
    cluster = PrivatePostgres(bindir, root)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        if cluster.running():
            with contextlib.suppress(Exception):
                cluster.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
