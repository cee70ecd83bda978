"""Benchmark: the CPU a finished game's recording costs (app.lobby.history), in two parts.

    .venv/bin/python bench/recording.py [--games 200] [--rounds 1]
        [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]

1. What the server computes: the places from the final state and the OpenSkill update
   (app.lobby.ratings), per game, for 4-seat games of two people and two bots.
2. The whole recording through the store on a fresh SQLite file (with `--database-url`, a fresh
   schema of that Postgres, dropped at the end): the game, its placements and the ratings it
   moves written in one transaction, per game (the process's CPU time, not wall time, so a
   Postgres backend's own work is not in it).
Prints the median and the 99th percentile of each (`--rounds`: that many times, each on a fresh
database), with the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import engine  # noqa: E402
import engine.bots  # noqa: E402
from app.core.config import Settings  # noqa: E402
from app.lobby import ratings  # noqa: E402
from app.lobby.history import History  # noqa: E402
from app.store import migrate  # noqa: E402
from app.store.player_ports import Ended, SeatAtEnd  # noqa: E402
from app.store.stores import open_stores  # noqa: E402
from bench.common import new_schema_name, pg_execute  # noqa: E402


def finished_state(seed: int) -> str:
    """A 4-seat game played to its end by the engine's bots."""
    state = engine.new_game(players=4, seed=seed)
    bots = [engine.bots.make_bot("random", seed + s) for s in range(4)]
    while not engine.is_over(state):
        prompt = engine.prompts(state)[0]
        seat = prompt["seat"]
        action = bots[seat].act(engine.view(state, seat), engine.prompts(state, seat=seat)[0])
        state, _events = engine.apply(state, seat, action)
    return engine.dumps(state)


def seats(n: int) -> list[SeatAtEnd]:
    return [
        SeatAtEnd(0, "Ann", False, None, False, f"p{n % 50}"),
        SeatAtEnd(1, "Bea", False, None, False, f"p{(n + 7) % 50}"),
        SeatAtEnd(2, "Bot 3", True, "heuristic", False, None),
        SeatAtEnd(3, "Bot 4", True, "random", False, None),
    ]


def summary(label: str, samples: list[float]) -> None:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{label}: median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms ({len(ms)} games; "
        f"load {load})"
    )


def migrate_schema(url: str, schema: str) -> None:
    """`dragonstones db upgrade` on the schema (the migrations read it from the environment)."""
    env = {**os.environ, "DATABASE_URL": url, "DATABASE_SCHEMA": schema, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade"], env=env, check=True)


async def through_store(ended: list[Ended], workdir: Path, url: str | None) -> list[float]:
    if url is None:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}")
        await asyncio.to_thread(migrate.upgrade, "head", settings)
    else:
        schema = new_schema_name("bench_recording")
        await pg_execute(url, f'CREATE SCHEMA "{schema}"')
        await asyncio.to_thread(migrate_schema, url, schema)
        settings = Settings(database_url=url, database_schema=schema)
    stores = open_stores(settings)
    history = History(stores.history)
    costs = []
    try:
        for game in ended:
            rated, placed = ratings.placements(game)
            start = time.process_time()
            await stores.history.record(game, rated, placed, partial(ratings.advance, placed))
            costs.append(time.process_time() - start)
        await history.record_pending()
    finally:
        await stores.close()
        if url is not None:
            await pg_execute(url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--database-url", help="a Postgres URL (default: a SQLite file)")
    args = parser.parse_args()
    states = [finished_state(seed) for seed in range(8)]
    now = datetime.now(UTC)
    ended = [
        Ended(f"g{n}", f"t{n}", 4, states[n % len(states)], now, seats(n))
        for n in range(args.games)
    ]
    compute = []
    for game in ended:
        start = time.process_time()
        _rated, placed = ratings.placements(game)
        ratings.advance(placed, {})
        compute.append(time.process_time() - start)
    summary("places and OpenSkill update", compute)
    kind = "Postgres" if args.database_url else "SQLite"
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            costs = asyncio.run(through_store(ended, Path(tmp), args.database_url))
        summary(f"recorded through the store ({kind})", costs)


if __name__ == "__main__":
    main()
