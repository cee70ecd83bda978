"""`alembic upgrade head` / `downgrade base` and `dragonstones db ...` on SQLite and Postgres, from
any working directory; the migrated schema matches the models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.core.config import Settings
from app.store import player_rows
from app.store.db import make_engine
from app.store.models import Base
from tests.server.harness import REPO, Database, db_rows

TABLES = {"tables", "seats", "games", "actions"}
TABLES |= {"queue_entries"}  # the matchmaking queue (issue 8)
TABLES |= {"table_messages"}  # table chat (issue 8)
TABLES |= {"analyses", "analysis_decisions"}  # the analysis of finished games
# Players who come back: identity, history and ratings (app.store.player_rows).
TABLES |= {"players", "player_secrets", "player_claims", "game_results", "game_placements"}
TABLES |= {"ratings", "leagues", "league_members"}
assert player_rows.PlayerRow.metadata is Base.metadata  # the drift check sees those rows too


def run(args: list[str], db: Database, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **db.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done


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
    alembic = [sys.executable, "-m", "alembic", "-c", str(REPO / "app" / "alembic.ini")]
    run([*alembic, "upgrade", "head"], database, REPO)
    assert await tables(database) == TABLES
    assert await schema_drift(database) == []
    run([*alembic, "downgrade", "base"], database, REPO)
    assert await tables(database) == set()
    # Again, through the command line tool, from another working directory.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cli = [sys.executable, "-m", "app.cli", "db"]
    run([*cli, "upgrade"], database, elsewhere)
    assert await tables(database) == TABLES
    assert "(head)" in run([*cli, "current"], database, elsewhere).stdout
    # Step by step down and up again.
    run([*cli, "downgrade", "0001"], database, elsewhere)
    assert "0001" in run([*cli, "current"], database, elsewhere).stdout
    run([*cli, "upgrade"], database, elsewhere)
    assert await schema_drift(database) == []
    run([*cli, "downgrade"], database, elsewhere)
    assert await tables(database) == set()
    run([*cli, "upgrade", "head"], database, elsewhere)
    assert await tables(database) == TABLES
    if database.path is not None:
        assert not (elsewhere / "dragonstones.sqlite3").exists()


def test_default_database_is_a_sqlite_file_in_the_working_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATABASE_SCHEMA")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "upgrade"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dragonstones.sqlite3").is_file()
