"""Engine speed on one core, in random playouts. Prints figures; asserts nothing.

    .venv/bin/python bench/engine.py [--games 100] [--players 4] [--seed 1] [--repeat 2]

- apply only: the actions of recorded RandomBot games replayed through `engine.apply` (new_game
  included), nothing else timed. The target is 50,000 actions/s or more.
- full loop with RandomBot: prompts, the seat's view, the bot's choice, apply.
- full loop with legal_actions: prompts, the full list of legal actions, a uniform pick, apply.
- full loop with HeuristicBot, for comparison (what `dragonstones simulate` does).
- where the time goes in apply only: a cProfile top 10 by own time.

Each figure is the best of --repeat runs, in wall-clock time and in CPU time of this process (on a
busy machine the CPU figure is the steadier one).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from engine.bots import make_bot

Actions = list[tuple[int, dict[str, Any]]]
TARGET = 50_000


def record_games(games: int, players: int, seed: int) -> list[tuple[int, Actions]]:
    """Play RandomBot games; return each game's seed and its actions."""
    out = []
    for g in range(games):
        game_seed = seed * 100_003 + g
        bots = [make_bot("random", game_seed * 7 + s) for s in range(players)]
        st = engine.new_game(players, game_seed)
        actions: Actions = []
        while st.winner is None:
            for prompt in engine.prompts(st):
                seat = prompt["seat"]
                action = bots[seat].act(engine.view(st, seat), prompt)
                st, _ = engine.apply(st, seat, action)
                actions.append((seat, action))
        out.append((game_seed, actions))
    return out


def apply_only(players: int, recorded: list[tuple[int, Actions]]) -> int:
    n = 0
    apply = engine.apply
    for game_seed, actions in recorded:
        st = engine.new_game(players, game_seed)
        for seat, action in actions:
            st, _ = apply(st, seat, action)
        n += len(actions)
    return n


def loop_with_bots(players: int, seeds: list[int], kind: str) -> int:
    n = 0
    for game_seed in seeds:
        bots = [make_bot(kind, game_seed * 7 + s) for s in range(players)]
        st = engine.new_game(players, game_seed)
        while st.winner is None:
            for prompt in engine.prompts(st):
                seat = prompt["seat"]
                st, _ = engine.apply(st, seat, bots[seat].act(engine.view(st, seat), prompt))
                n += 1
    return n


def loop_with_legal_actions(players: int, seeds: list[int]) -> int:
    n = 0
    for game_seed in seeds:
        rng = random.Random(game_seed)
        st = engine.new_game(players, game_seed)
        while st.winner is None:
            for prompt in engine.prompts(st):
                seat = prompt["seat"]
                st, _ = engine.apply(st, seat, rng.choice(engine.legal_actions(st, seat)))
                n += 1
    return n


def measure(run: Callable[[], int], repeat: int) -> tuple[int, float, float]:
    """(actions, best wall seconds, best CPU seconds) over `repeat` runs."""
    best_wall = best_cpu = float("inf")
    n = 0
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        n = run()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return n, best_wall, best_cpu


def report(label: str, n: int, games: int, wall: float, cpu: float) -> float:
    rate = n / cpu if cpu > 0 else 0.0
    print(f"{label:<34} {n / wall:>10,.0f} actions/s wall  {rate:>10,.0f} actions/s CPU  "
          f"{games / cpu:>8,.1f} games/s CPU")
    return rate


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)
    recorded = record_games(args.games, args.players, args.seed)
    seeds = [s for s, _ in recorded]
    total = sum(len(a) for _, a in recorded)
    print(f"Python {sys.version.split()[0]}, {args.games} RandomBot games of {args.players} "
          f"players: {total / args.games:.0f} actions and "
          f"{sum(engine.replay(args.players, s, a).turn for s, a in recorded) / args.games:.1f} "
          f"turns per game on average")
    n, wall, cpu = measure(lambda: apply_only(args.players, recorded), args.repeat)
    apply_rate = report("apply only", n, args.games, wall, cpu)
    n, wall, cpu = measure(lambda: loop_with_bots(args.players, seeds, "random"), args.repeat)
    report("loop: view + RandomBot + apply", n, args.games, wall, cpu)
    n, wall, cpu = measure(lambda: loop_with_legal_actions(args.players, seeds), args.repeat)
    report("loop: legal_actions + pick + apply", n, args.games, wall, cpu)
    n, wall, cpu = measure(lambda: loop_with_bots(args.players, seeds, "heuristic"), args.repeat)
    report("loop: view + HeuristicBot + apply", n, args.games, wall, cpu)
    verdict = "meets" if apply_rate >= TARGET else "MISSES"
    print(f"apply only {verdict} the target of {TARGET:,} actions/s (CPU time)")

    profile = cProfile.Profile()
    profile.enable()
    apply_only(args.players, recorded)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(10)
    print("\nWhere the time goes in apply only (top 10 by own time):")
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    root = str(Path(__file__).resolve().parents[1]) + "/"
    print("\n".join(line.replace(root, "") for line in lines[start:] if line.strip()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
