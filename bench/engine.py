"""Engine speed on one core, in random playouts. Prints figures; asserts nothing.

    .venv/bin/python bench/engine.py [--games 60] [--players 3,4,6] [--seed 1] [--repeat 3]
                                     [--baseline REV] [--profile]

Loops, each run on the same games (game seeds and a random.Random per game, so two engines that
play the same rules play the same actions):

- prompts + apply (the headline): one `engine.prompts(state)` and one `engine.apply` per action;
  the acting prompt is drawn uniformly among the open ones, a choice uniformly among its options,
  a bid uniformly within the prompt's `max` (each coin count, Amulet and Black Magic alike).
- prompts + view + apply: the same, plus the acting seat's `engine.view`.
- server cost per action (engine part): the actions of the headline games replayed through
  `engine.apply`, then `engine.dumps` of the new state and one `engine.view` per seat, which is
  what the server does for each action it commits.
- apply only: the same actions through `engine.apply` alone.

Each loop is timed in CPU time of the process that runs it (on a busy machine CPU time is the
steadier one), by chunks of 5 games; each chunk counts with the fastest of --repeat runs (the one
least disturbed by other processes), the engines' runs alternating. With --baseline REV, the revision REV is checked out in a
temporary `git worktree` under /tmp, every loop is run for both engines, each in its own
subprocess (this file, imported with that engine first on sys.path), alternating, and the ratios
are printed; the worktree is removed at the end. Target: prompts + apply at 4 players at least
2.0x the baseline and at least 130,000 actions/s.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.0
TARGET_RATE = 130_000
Actions = list[tuple[int, dict[str, Any]]]
LOOPS = (
    "prompts + apply",
    "prompts + view + apply",
    "server cost (apply+dumps+views)",
    "apply only",
)


def pick(prompt: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A uniform action for `prompt`: bids within its `max`, choices among its options.
    (`int(random() * n)`: uniform enough, and cheap, so that the loop times the engine.)"""
    r = rng.random
    kind = prompt["kind"]
    if kind == "bid":
        m = prompt["max"]
        return {
            "type": "bid",
            "fairy_gold": int(r() * (m["fairy_gold"] + 1)),
            "common_gold": int(r() * (m["common_gold"] + 1)),
            "amulet": m["amulet"] and r() < 0.5,
            "black_magic": m["black_magic"] and r() < 0.5,
        }
    if kind == "tiebreak":
        m = prompt["max"]
        return {
            "type": "tiebreak",
            "silver": int(r() * (m["silver"] + 1)),
            "amulet": m["amulet"] and r() < 0.5,
        }
    options = prompt["options"]
    return {"type": "choose", "option": options[int(r() * len(options))]["id"]}


def play(
    engine: Any,
    players: int,
    seeds: list[int],
    with_view: bool,
    record: list[tuple[int, Actions]] | None = None,
) -> int:
    """The headline loop (with the acting seat's view if `with_view`); returns the actions."""
    n = 0
    prompts, apply, view = engine.prompts, engine.apply, engine.view
    for game_seed in seeds:
        rng = random.Random(game_seed)
        st = engine.new_game(players, game_seed)
        actions: Actions = []
        while True:
            open_prompts = prompts(st)
            if not open_prompts:  # [] once the game is over (CONTRACT.md)
                break
            prompt = open_prompts[int(rng.random() * len(open_prompts))]
            seat = prompt["seat"]
            if with_view:
                view(st, seat)
            action = pick(prompt, rng)
            st, _ = apply(st, seat, action)
            if record is not None:
                actions.append((seat, action))
            n += 1
        if record is not None:
            record.append((game_seed, actions))
    return n


def server_cost(engine: Any, players: int, recorded: list[tuple[int, Actions]]) -> int:
    n = 0
    apply, dumps, view = engine.apply, engine.dumps, engine.view
    seats = range(players)
    for game_seed, actions in recorded:
        st = engine.new_game(players, game_seed)
        for seat, action in actions:
            st, _ = apply(st, seat, action)
            dumps(st)
            for s in seats:
                view(st, s)
        n += len(actions)
    return n


def apply_only(engine: Any, players: int, recorded: list[tuple[int, Actions]]) -> int:
    n = 0
    apply = engine.apply
    for game_seed, actions in recorded:
        st = engine.new_game(players, game_seed)
        for seat, action in actions:
            st, _ = apply(st, seat, action)
        n += len(actions)
    return n


CHUNK = 5  # games per timed chunk


def worker(players: int, seeds: list[int]) -> dict[str, Any]:
    """Every loop once, with the engine first on sys.path, timed by chunks of CHUNK games:
    {"times": {loop: [CPU seconds of each chunk]}, "actions": [actions of each chunk]}."""
    import engine

    chunks = [seeds[i : i + CHUNK] for i in range(0, len(seeds), CHUNK)]
    times: dict[str, list[float]] = {label: [] for label in LOOPS}
    counts = []
    for chunk in chunks:
        recorded: list[tuple[int, Actions]] = []
        play(engine, players, chunk, False, recorded)
        counts.append(sum(len(a) for _, a in recorded))
        runs: dict[str, Callable[[], int]] = {
            LOOPS[0]: lambda c=chunk: play(engine, players, c, False),
            LOOPS[1]: lambda c=chunk: play(engine, players, c, True),
            LOOPS[2]: lambda r=recorded: server_cost(engine, players, r),
            LOOPS[3]: lambda r=recorded: apply_only(engine, players, r),
        }
        for label, run in runs.items():
            start = time.process_time()
            run()
            times[label].append(time.process_time() - start)
    return {"times": times, "actions": counts}


def run_worker(root: Path, players: int, seeds: list[int]) -> dict[str, Any]:
    """Run `worker` in a fresh interpreter that imports the engine under `root`."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            str(root),
            "--players",
            str(players),
            "--seeds",
            ",".join(map(str, seeds)),
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=str(root),
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def measure(
    roots: list[Path],
    players: int,
    seeds: list[int],
    repeat: int,
) -> list[dict[str, Any]]:
    """Run every engine `repeat` times, alternating; a loop's rate is its actions over the sum,
    chunk by chunk, of the fastest of the runs (the run least disturbed by other processes)."""
    runs: list[list[dict[str, Any]]] = [[] for _ in roots]
    for _ in range(repeat):
        for i, root in enumerate(roots):
            runs[i].append(run_worker(root, players, seeds))
    out = []
    for results in runs:
        actions = sum(results[0]["actions"])
        rates = {}
        for label in LOOPS:
            best = [min(chunk) for chunk in zip(*(r["times"][label] for r in results), strict=True)]
            rates[label] = actions / sum(best)
        out.append({"rates": rates, "actions": actions})
    return out


def profile(players: int, seeds: list[int], top: int) -> None:
    import engine

    prof = cProfile.Profile()
    prof.enable()
    play(engine, players, seeds, False)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print(f"\nWhere the time goes in prompts + apply, {players} players (top {top} by own time):")
    print("\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip()))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--players", default="3,4,6", help="comma-separated, e.g. 3,4,6")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--baseline", metavar="REV", help="a git revision to compare with")
    p.add_argument("--profile", action="store_true", help="also print a cProfile top 15")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--seeds", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:  # a subprocess: the engine under --worker is first on sys.path
        sys.path.insert(0, args.worker)
        seeds = [int(s) for s in args.seeds.split(",")]
        print(json.dumps(worker(int(args.players), seeds)))
        return 0

    player_counts = [int(x) for x in args.players.split(",")]
    seeds = [args.seed * 100_003 + g for g in range(args.games)]
    baseline: Path | None = None
    tmp: str | None = None
    if args.baseline:
        rev = subprocess.run(
            ["git", "rev-parse", "--verify", args.baseline + "^{commit}"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        tmp = tempfile.mkdtemp(prefix="bench-engine-")
        baseline = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(baseline), rev],
            cwd=ROOT,
            check=True,
        )
        print(f"baseline: {args.baseline} = {rev[:12]}, checked out in {baseline}")
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "engine"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"this engine: {ROOT}/engine at {head}{' (with uncommitted changes)' if dirty else ''}")
    print(
        f"Python {sys.version.split()[0]}; {args.games} games per player count; actions/s in "
        f"CPU time of one process, each chunk of {CHUNK} games the fastest of {args.repeat} "
        f"runs (engines alternating)"
    )
    verdicts = []
    try:
        for players in player_counts:
            roots = [ROOT] if baseline is None else [ROOT, baseline]
            results = measure(roots, players, seeds, args.repeat)
            mine, base = results[0], (results[1] if baseline else None)
            print(
                f"\n{players} players: {mine['actions'] / len(seeds):,.0f} actions per game "
                f"on average"
                + (f" (baseline: {base['actions'] / len(seeds):,.0f})" if base else "")
            )
            header = f"  {'loop':<34} {'this engine':>12}"
            if base:
                header += f" {'baseline':>12} {'ratio':>7}"
            print(header)
            for label in LOOPS:
                rate = mine["rates"][label]
                line = f"  {label:<34} {rate:>12,.0f}"
                if base:
                    line += f" {base['rates'][label]:>12,.0f} {rate / base['rates'][label]:>6.2f}x"
                print(line)
            rate = mine["rates"][LOOPS[0]]
            if players == 4:
                ok = rate >= TARGET_RATE
                text = f"prompts + apply at 4 players: {rate:,.0f} actions/s"
                if base:
                    ratio = rate / base["rates"][LOOPS[0]]
                    ok = ok and ratio >= TARGET_RATIO
                    text += f", {ratio:.2f}x the baseline"
                verdicts.append(
                    f"{text}: {'meets' if ok else 'MISSES'} the target "
                    f"(>= {TARGET_RATE:,} actions/s"
                    + (f" and >= {TARGET_RATIO}x" if base else "")
                    + ")"
                )
        for line in verdicts:
            print("\n" + line)
    finally:
        if baseline is not None and tmp is not None:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, check=False
            )
            subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)
            os.rmdir(tmp) if os.path.isdir(tmp) and not os.listdir(tmp) else None
    if args.profile:
        sys.path.insert(0, str(ROOT))
        profile(4 if 4 in player_counts else player_counts[0], seeds[:20], 15)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
