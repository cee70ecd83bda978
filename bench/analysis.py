"""The analysis of finished games (engine/analysis.py) at its default budget: CPU time per game
and the share of decisions labelled mistake or worse in games of four hard bots. Prints figures;
asserts nothing.

    .venv/bin/python bench/analysis.py [--games 3] [--seed 1] [--playouts 200] [--worlds 40]

Each game is played by four hard bots (`--playouts` per decision, no clock: the same seed plays
the same game), then analysed decision by decision; the CPU time counted is the analysis's alone.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# The repository first: bench/engine.py would otherwise stand for the engine package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import engine  # noqa: E402
from engine.analysis import DEFAULT_WORLDS, analyse_game, share_mistakes  # noqa: E402
from engine.hard import HardBot  # noqa: E402


def hard_game(seed: int, playouts: int) -> list[tuple[int, dict[str, Any]]]:
    st = engine.new_game(4, seed)
    bots = [HardBot(seed * 10 + s, playouts=playouts) for s in range(4)]
    actions: list[tuple[int, dict[str, Any]]] = []
    while not engine.is_over(st):
        seat = engine.prompts(st)[0]["seat"]
        prompt = next(p for p in engine.prompts(st, seat=seat) if p["seat"] == seat)
        action = bots[seat].act(engine.view(st, seat), prompt)
        actions.append((seat, action))
        st, _ = engine.apply(st, seat, action)
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=DEFAULT_WORLDS)
    args = parser.parse_args()
    labels: Counter[str] = Counter()
    bad = analysed = 0
    for g in range(args.games):
        seed = args.seed + g
        actions = hard_game(seed, args.playouts)
        auctions = sum(1 for _, a in actions if a["type"] == "bid") // 4
        start = time.process_time()
        decisions = analyse_game(4, seed, actions, worlds=args.worlds)
        cpu = time.process_time() - start
        share = share_mistakes(decisions)
        counted = sum(1 for d in decisions if d.label != "forced")
        analysed += counted
        bad += round(share * counted)
        labels.update(d.label for d in decisions)
        print(
            f"game seed {seed}: {len(actions)} decisions, about {auctions} auctions, "
            f"analysed in {cpu:.1f} s of CPU; mistake or worse: {share:.1%}"
        )
    print(f"all: {dict(sorted(labels.items()))}")
    print(f"mistake or worse over {analysed} analysed decisions: {bad / max(1, analysed):.1%}")


if __name__ == "__main__":
    main()
