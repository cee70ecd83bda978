"""Benchmark: the CPU a finished game's recording costs (app.lobby.history), in two parts.

    .venv/bin/python bench/recording.py [--games 200]

1. What the server computes: the places from the final state and the OpenSkill update
   (app.lobby.ratings), per game, for 4-seat games of two people and two bots.
2. The whole recording through the store on a fresh SQLite file: the game, its placements and the
   ratings it moves written in one transaction, per game (the process's CPU time, not wall time).
Prints the median and the 99th percentile of each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
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
    print(f"{label}: median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms ({len(ms)} games)")


async def through_store(ended: list[Ended], workdir: Path) -> list[float]:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}")
    await asyncio.to_thread(migrate.upgrade, "head", settings)
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
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
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
    with tempfile.TemporaryDirectory() as tmp:
        summary("recorded through the store (SQLite)", asyncio.run(through_store(ended, Path(tmp))))


if __name__ == "__main__":
    main()
