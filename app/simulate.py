"""`dragonstones simulate`: play bot games offline and print how each kind of bot fared.

    dragonstones simulate --games 2000 --players 4 --seed 1 --bots heuristic,random
    dragonstones simulate --games 300 --players 3 --bots hard,heuristic,heuristic --budget 0.03

Seats get bot kinds by cycling the --bots list, rotated by one seat every game, so that over any
run of len(bots) games every kind sits in every seat. Everything is deterministic: the same options
give the same games and the same figures, bar the timing (and, for the hard bot, whose search
stops after `--budget` seconds of CPU, the games themselves: set `--budget 0` to stop it by
`--playouts` alone, and the run is deterministic again). Win rates come with 95% confidence
intervals (Wilson's), and every kind's CPU time per decision with its mean and 99th percentile.

One process, no multiprocessing: the figures are per core, and `bench/engine.py` reuses the loop.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import engine
from engine.bots import BOTS, Bot, make_bot
from engine.hard import DEFAULT_PLAYOUTS, HardBot

DEFAULT_BUDGET_SECONDS = 0.3  # the server's default (app/config.py)
MAX_ACTIONS = 200_000  # a game longer than this is a bug in the engine or a bot, not a long game


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from a run's seed and indices: games of one run never share their dice."""
    digest = hashlib.sha256(":".join(map(str, ("dragonstones-simulate", *parts))).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seating(bots: Sequence[str], players: int, game: int) -> tuple[str, ...]:
    """The bot kind of every seat in game number `game` (cycling `bots`, rotated per game)."""
    return tuple(bots[(seat + game) % len(bots)] for seat in range(players))


@dataclass(frozen=True, slots=True)
class GameResult:
    seed: int
    kinds: tuple[str, ...]  # by seat
    winner: int
    turns: int
    actions: int

    @property
    def winner_kind(self) -> str:
        return self.kinds[self.winner]


@dataclass(frozen=True, slots=True)
class Budget:
    """The hard bot's budget per decision: playouts, and CPU seconds (0: no time limit)."""

    playouts: int = DEFAULT_PLAYOUTS
    seconds: float = DEFAULT_BUDGET_SECONDS


def bot_maker(budget: Budget) -> Callable[[str, int], Bot]:
    def make(kind: str, seed: int) -> Bot:
        if kind == "hard":
            return HardBot(
                seed,
                playouts=budget.playouts,
                clock=time.process_time,
                seconds=budget.seconds or None,
            )
        return make_bot(kind, seed)

    return make


def play_game(
    players: int,
    seed: int,
    kinds: Sequence[str],
    *,
    make: Callable[[str, int], Bot] = make_bot,
    cpu: dict[str, list[float]] | None = None,
) -> GameResult:
    """Play one whole game, each seat played by a bot of `kinds[seat]` that sees only its view.
    With `cpu`, the CPU seconds of every decision are added to the list of its bot's kind."""
    bots = [make(kind, derive_seed(seed, seat)) for seat, kind in enumerate(kinds)]
    state = engine.new_game(players, seed)
    actions = 0
    while state.winner is None:
        # Every open prompt is answered; in a sealed auction that is every seat, in turn.
        for prompt in engine.prompts(state):
            seat = prompt["seat"]
            if cpu is None:
                action = bots[seat].act(engine.view(state, seat), prompt)
            else:
                start = time.process_time()
                action = bots[seat].act(engine.view(state, seat), prompt)
                cpu[kinds[seat]].append(time.process_time() - start)
            state, _ = engine.apply(state, seat, action)
            actions += 1
        if actions > MAX_ACTIONS:
            raise RuntimeError(f"game with seed {seed} has no winner after {actions} actions")
    return GameResult(seed, tuple(kinds), state.winner, state.turn, actions)


@dataclass(slots=True)
class SimulationResult:
    games: int
    players: int
    seed: int
    bots: tuple[str, ...]
    turns: int = 0  # in all games
    actions: int = 0
    wins: dict[str, int] = field(default_factory=dict)  # by bot kind
    seats: dict[str, int] = field(default_factory=dict)  # seats held, in all games, by kind
    seat_wins: list[int] = field(default_factory=list)  # by seat number
    seconds: float = 0.0
    cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU s per decision, by kind
    budget: Budget = field(default_factory=Budget)

    @property
    def average_turns(self) -> float:
        return self.turns / self.games if self.games else 0.0

    @property
    def average_actions(self) -> float:
        return self.actions / self.games if self.games else 0.0

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds > 0 else 0.0

    def win_rate(self, kind: str) -> float:
        """The share of games won by a bot of this kind."""
        return self.wins.get(kind, 0) / self.games if self.games else 0.0

    def interval(self, kind: str, z: float = 1.96) -> tuple[float, float]:
        """The 95% confidence interval of the kind's win rate (Wilson's score interval)."""
        n = self.games
        if not n:
            return 0.0, 1.0
        p = self.win_rate(kind)
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
        return max(0.0, centre - half), min(1.0, centre + half)

    def cpu_figures(self, kind: str) -> dict[str, float]:
        """Decisions, and the mean and 99th percentile of their CPU seconds."""
        times = sorted(self.cpu.get(kind, []))
        if not times:
            return {"decisions": 0, "mean": 0.0, "p99": 0.0}
        return {
            "decisions": len(times),
            "mean": sum(times) / len(times),
            "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        }

    def fair_share(self, kind: str) -> float:
        """The share of games this kind would win if every bot were as strong as every other."""
        total = sum(self.seats.values())
        return self.seats.get(kind, 0) / total if total else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "games": self.games,
            "players": self.players,
            "seed": self.seed,
            "bots": list(self.bots),
            "turns": self.turns,
            "actions": self.actions,
            "average_turns": self.average_turns,
            "average_actions": self.average_actions,
            "wins": {
                k: {
                    "count": self.wins.get(k, 0),
                    "rate": self.win_rate(k),
                    "fair_share": self.fair_share(k),
                    "ci95": list(self.interval(k)),
                    "cpu_per_decision": self.cpu_figures(k),
                }
                for k in self.kinds
            },
            "seat_wins": self.seat_wins,
            "budget": {"playouts": self.budget.playouts, "seconds": self.budget.seconds},
            "seconds": self.seconds,
            "actions_per_second": self.actions_per_second,
        }

    @property
    def kinds(self) -> list[str]:
        """The bot kinds of the run, each once, in the order given."""
        return list(dict.fromkeys(self.bots))


def simulate(
    games: int,
    players: int,
    seed: int,
    bots: Sequence[str],
    *,
    clock: Callable[[], float] = time.perf_counter,
    on_game: Callable[[int, GameResult], None] | None = None,
    budget: Budget | None = None,
) -> SimulationResult:
    """Play `games` bot games and gather the figures. Pure but for the clock."""
    if games < 0:
        raise ValueError("games must be 0 or more")
    if not 3 <= players <= 6:
        raise ValueError("players must be from 3 to 6")
    if not bots:
        raise ValueError("at least one bot kind is needed")
    unknown = sorted(set(bots) - set(BOTS))
    if unknown:
        raise ValueError(f"unknown bot kind {', '.join(unknown)}; known: {', '.join(sorted(BOTS))}")
    budget = budget or Budget()
    result = SimulationResult(
        games, players, seed, tuple(bots), seat_wins=[0] * players, budget=budget
    )
    for kind in result.kinds:
        result.wins[kind] = 0
        result.seats[kind] = 0
        result.cpu[kind] = []
    make = bot_maker(budget)
    start = clock()
    for index in range(games):
        kinds = seating(bots, players, index)
        game = play_game(players, derive_seed(seed, index), kinds, make=make, cpu=result.cpu)
        result.turns += game.turns
        result.actions += game.actions
        result.wins[game.winner_kind] += 1
        result.seat_wins[game.winner] += 1
        for kind in kinds:
            result.seats[kind] += 1
        if on_game is not None:
            on_game(index, game)
    result.seconds = clock() - start
    return result


def summary(result: SimulationResult) -> str:
    """The figures, for people."""
    lines = [
        f"Simulated {result.games} games of {result.players} players, seed {result.seed}, "
        f"bots {','.join(result.bots)} (seats rotate every game)",
        f"Per game: {result.average_turns:.2f} turns, {result.average_actions:.1f} actions on "
        f"average",
        "Wins by bot kind:",
    ]
    for kind in result.kinds:
        low, high = result.interval(kind)
        lines.append(
            f"  {kind:<10} {result.wins[kind]:>7} wins  {result.win_rate(kind):7.1%} of "
            f"games  (fair share {result.fair_share(kind):.1%}; 95% CI {low:.1%} to {high:.1%})"
        )
    lines.append("CPU per decision:")
    for kind in result.kinds:
        cpu = result.cpu_figures(kind)
        lines.append(
            f"  {kind:<10} {cpu['decisions']:>7} decisions  mean "
            f"{cpu['mean'] * 1000:.2f} ms  p99 {cpu['p99'] * 1000:.2f} ms"
        )
    if "hard" in result.kinds:
        b = result.budget
        lines.append(
            f"Hard bot budget per decision: {b.playouts} playouts, "
            + (f"{b.seconds:g} s of CPU" if b.seconds else "no time limit")
        )
    lines.append(
        "Wins by seat: "
        + ", ".join(
            f"{seat + 1}: {wins / result.games:.1%}" if result.games else f"{seat + 1}: -"
            for seat, wins in enumerate(result.seat_wins)
        )
    )
    games_per_second = result.games / result.seconds if result.seconds > 0 else 0.0
    lines.append(
        f"Time: {result.seconds:.2f} s, {result.actions_per_second:,.0f} actions/s, "
        f"{games_per_second:,.1f} games/s (one process)"
    )
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dragonstones simulate",
        description="Play bot games offline and print how each bot fared.",
    )
    p.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    p.add_argument("--players", type=int, default=4, help="players per game, 3 to 6 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument(
        "--bots",
        default="heuristic,random",
        help="bot kinds, comma-separated, dealt to the seats in turn "
        f"(default heuristic,random; known: {', '.join(sorted(BOTS))})",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET_SECONDS,
        help="the hard bot's CPU seconds per decision (default %(default)s; "
        "0: no time limit, stop by --playouts)",
    )
    p.add_argument(
        "--playouts",
        type=int,
        default=DEFAULT_PLAYOUTS,
        help="the hard bot's most playouts per decision (default %(default)s)",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    return p


def main(argv: list[str]) -> int:
    """`dragonstones simulate ...`: returns the exit status (0, or 2 for bad options)."""
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:  # --help, or bad options (argparse has printed why)
        return int(exc.code or 0)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    problems = []
    if args.games < 1:
        problems.append("--games must be at least 1")
    if not 3 <= args.players <= 6:
        problems.append("--players must be from 3 to 6")
    if args.seed < 0:
        problems.append("--seed must be 0 or more")
    if not 0 <= args.budget <= 60:
        problems.append("--budget must be from 0 to 60 seconds")
    if args.playouts < 1:
        problems.append("--playouts must be at least 1")
    unknown = sorted(set(bots) - set(BOTS))
    if not bots or unknown:
        problems.append(
            f"--bots must list known kinds ({', '.join(sorted(BOTS))}), not {args.bots!r}"
        )
    if problems:
        p.print_usage(sys.stderr)
        for problem in problems:
            print(f"dragonstones simulate: error: {problem}", file=sys.stderr)
        return 2
    result = simulate(
        args.games, args.players, args.seed, bots, budget=Budget(args.playouts, args.budget)
    )
    print(json.dumps(result.to_dict(), indent=2) if args.json else summary(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
