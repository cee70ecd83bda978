"""Migration 0009 (snapshots) on real data, on SQLite and Postgres: the upgrade records that each
row's state is its version's; the downgrade, which may not replay actions (a migration imports
no engine), brings a game being played back to its last snapshot and leaves a finished one
whole."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from app.core.config import Settings
from app.store.db import make_engine
from tests import zygote
from tests.server.harness import REPO, Database, db_rows


def db(command: str, revision: str, database: Database, workdir: Path) -> str:
    """`dragonstones db <command> <revision>` in a process of its own (warm-started:
    tests/zygote.py); its log."""
    env = {**os.environ, **database.env(), "PYTHONPATH": str(REPO)}
    code, log = zygote.run(["db", command, revision], env, REPO, workdir / "db.log")
    assert code == 0, log
    return log


def rows(database: Database, sql: str, **params: object) -> list[tuple[object, ...]]:
    return [tuple(r) for r in asyncio.run(db_rows(database, sql, **params))]


async def insert_game(
    database: Database, game_id: str, version: int, snapshot: int, status: str
) -> None:
    """The game's table, row and actions, in one transaction."""
    now = datetime.now(UTC)
    engine = make_engine(
        Settings(database_url=database.url, database_schema=database.schema), database.url
    )
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO tables (id, seats, public, status, created_at, updated_at) "
                    "VALUES (:t, 3, true, 'playing', :now, :now)"
                ),
                {"t": f"t-{game_id}", "now": now},
            )
            await conn.execute(
                text(
                    "INSERT INTO games (id, table_id, players, seed, seed_commitment, state, "
                    "version, status, created_at, updated_at, deadline_at, deadline_key, "
                    "snapshot_version) VALUES (:g, :t, 3, '7', 'c', :state, :v, :status, :now, "
                    ":now, :now, 'key', :s)"
                ),
                {
                    "g": game_id,
                    "t": f"t-{game_id}",
                    "state": f"state of {game_id} at {snapshot}",
                    "v": version,
                    "status": status,
                    "now": now,
                    "s": snapshot,
                },
            )
            await conn.execute(
                text(
                    "INSERT INTO actions (game_id, version, seat, action, action_id, events, "
                    "created_at) VALUES (:g, :v, 0, '{}', :a, '[]', :now)"
                ),
                [{"g": game_id, "v": v, "a": f"a{v}", "now": now} for v in range(1, version + 1)],
            )
    finally:
        await engine.dispose()


def add_game(database: Database, game_id: str, version: int, snapshot: int, status: str) -> None:
    asyncio.run(insert_game(database, game_id, version, snapshot, status))


def test_the_downgrade_goes_back_to_the_last_snapshot_without_the_engine(
    database: Database, tmp_path: Path
) -> None:
    db("upgrade", "0009", database, tmp_path)
    add_game(database, "live", version=57, snapshot=50, status="playing")
    add_game(database, "done", version=63, snapshot=63, status="finished")
    # From the newest schema down, as an operator going back to an older release would.
    db("upgrade", "head", database, tmp_path)

    log = db("downgrade", "0008", database, tmp_path)
    assert "1 game(s) being played go back to their last snapshot (7 move(s)" in log
    games = rows(
        database,
        "SELECT id, version, state, deadline_key, deadline_at IS NULL FROM games ORDER BY id",
    )
    assert games == [
        ("done", 63, "state of done at 63", "key", False),
        ("live", 50, "state of live at 50", None, True),
    ]
    actions = rows(database, "SELECT game_id, MAX(version), COUNT(*) FROM actions GROUP BY game_id")
    assert sorted(actions) == [("done", 63, 63), ("live", 50, 50)]

    # And up again: each row's state is its version's.
    db("upgrade", "0009", database, tmp_path)
    snapshots = rows(database, "SELECT id, version, snapshot_version FROM games ORDER BY id")
    assert snapshots == [("done", 63, 63), ("live", 50, 50)]
