"""`alembic upgrade head` / `downgrade base` and `dragonstones db ...` on SQLite and Postgres, from
any working directory; the migrated schema matches the models."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.core.config import Settings
from app.store import player_rows, push_rows
from app.store.db import make_engine
from app.store.models import Base
from tests import zygote
from tests.server.harness import REPO, Database, db_rows

TABLES = {"tables", "seats", "games", "actions"}
TABLES |= {"queue_entries"}  # the matchmaking queue
TABLES |= {"table_messages"}  # table chat
TABLES |= {"analyses", "analysis_decisions"}  # the analysis of finished games
# Players who come back: identity, history and ratings (app.store.player_rows).
TABLES |= {"players", "player_secrets", "player_claims", "game_results", "game_placements"}
TABLES |= {"ratings", "leagues", "league_members"}
TABLES |= {"league_ratings", "league_pairs"}  # a league's stored standings
TABLES |= {"push_keys", "push_subscriptions", "push_sent"}  # Web Push (app.store.push_rows)
assert player_rows.PlayerRow.metadata is Base.metadata  # the drift check sees those rows too
assert push_rows.PushKeyRow.metadata is Base.metadata


def run(program: str, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> str:
    """`<program> <argv>` in a process of its own, warm-started (tests/zygote.py) as a server
    is: `dragonstones` runs `app.cli.main` and `alembic` runs `python -m alembic`; its output."""
    env = {**env, "PYTHONPATH": str(REPO)}
    code, output = zygote.run(argv, env, cwd, log, program)
    assert code == 0, output
    return output


def dragonstones(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    """From `cwd`, a folder of the test's own (the log goes next to it)."""
    return run("dragonstones", argv, env, cwd, cwd.parent / "dragonstones.log")


async def tables(db: Database) -> set[str]:
    if db.backend == "sqlite":
        rows = await db_rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = await db_rows(
            db,
            "SELECT table_name FROM information_schema.tables WHERE table_schema = :s",
            s=db.schema,
        )
    return {r[0] for r in rows} - {"alembic_version"}


async def schema_drift(db: Database) -> list[Any]:
    engine = make_engine(Settings(database_url=db.url, database_schema=db.schema), db.url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), Base.metadata)
            )
    finally:
        await engine.dispose()


async def test_alembic_upgrade_and_downgrade(database: Database, tmp_path: Path) -> None:
    env = {**os.environ, **database.env()}
    alembic = ["-c", str(REPO / "app" / "alembic.ini")]
    run("alembic", [*alembic, "upgrade", "head"], env, REPO, tmp_path / "alembic.log")
    assert await tables(database) == TABLES
    assert await schema_drift(database) == []
    run("alembic", [*alembic, "downgrade", "base"], env, REPO, tmp_path / "alembic.log")
    assert await tables(database) == set()
    # Again, through the command line tool, from another working directory.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dragonstones(["db", "upgrade"], env, elsewhere)
    assert await tables(database) == TABLES
    assert "(head)" in dragonstones(["db", "current"], env, elsewhere)
    # Step by step down and up again.
    dragonstones(["db", "downgrade", "0001"], env, elsewhere)
    assert "0001" in dragonstones(["db", "current"], env, elsewhere)
    dragonstones(["db", "upgrade"], env, elsewhere)
    assert await schema_drift(database) == []
    dragonstones(["db", "downgrade"], env, elsewhere)
    assert await tables(database) == set()
    dragonstones(["db", "upgrade", "head"], env, elsewhere)
    assert await tables(database) == TABLES
    if database.path is not None:
        assert not (elsewhere / "dragonstones.sqlite3").exists()


def test_default_database_is_a_sqlite_file_in_the_working_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATABASE_SCHEMA")}
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    dragonstones(["db", "upgrade"], env, workdir)
    assert (workdir / "dragonstones.sqlite3").is_file()
