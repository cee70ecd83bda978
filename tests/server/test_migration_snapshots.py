"""Migration 0009 (snapshots) on real data, on SQLite and Postgres: the upgrade records that each
row's state is its version's; the downgrade, which may not replay actions (a migration imports
no engine), brings a game being played back to its last snapshot and leaves a finished one
whole."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime

from tests.server.harness import REPO, Database, db_execute, db_rows


def db(command: str, revision: str, database: Database) -> str:
    """`dragonstones db <command> <revision>` in a process of its own; its log."""
    env = {**os.environ, **database.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "db", command, revision],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def execute(database: Database, sql: str, **params: object) -> None:
    asyncio.run(db_execute(database, sql, **params))


def rows(database: Database, sql: str, **params: object) -> list[tuple[object, ...]]:
    return [tuple(r) for r in asyncio.run(db_rows(database, sql, **params))]


def add_game(database: Database, game_id: str, version: int, snapshot: int, status: str) -> None:
    now = datetime.now(UTC)
    execute(
        database,
        "INSERT INTO tables (id, seats, public, status, created_at, updated_at) "
        "VALUES (:t, 3, true, 'playing', :now, :now)",
        t=f"t-{game_id}",
        now=now,
    )
    execute(
        database,
        "INSERT INTO games (id, table_id, players, seed, seed_commitment, state, version, status, "
        "created_at, updated_at, deadline_at, deadline_key, snapshot_version) VALUES "
        "(:g, :t, 3, '7', 'c', :state, :v, :status, :now, :now, :now, 'key', :s)",
        g=game_id,
        t=f"t-{game_id}",
        state=f"state of {game_id} at {snapshot}",
        v=version,
        status=status,
        now=now,
        s=snapshot,
    )
    for v in range(1, version + 1):
        execute(
            database,
            "INSERT INTO actions (game_id, version, seat, action, action_id, events, created_at) "
            "VALUES (:g, :v, 0, '{}', :a, '[]', :now)",
            g=game_id,
            v=v,
            a=f"a{v}",
            now=now,
        )


def test_the_downgrade_goes_back_to_the_last_snapshot_without_the_engine(
    database: Database,
) -> None:
    db("upgrade", "0009", database)
    add_game(database, "live", version=57, snapshot=50, status="playing")
    add_game(database, "done", version=63, snapshot=63, status="finished")
    # From the newest schema down, as an operator going back to an older release would.
    db("upgrade", "head", database)

    log = db("downgrade", "0008", database)
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
    db("upgrade", "0009", database)
    snapshots = rows(database, "SELECT id, version, snapshot_version FROM games ORDER BY id")
    assert snapshots == [("done", 63, 63), ("live", 50, 50)]
