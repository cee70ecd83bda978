"""The strong bot, `hard`: information-set Monte Carlo over worlds drawn from its own view.

For each decision it lists a few candidate actions, then, world after world (`sample_world`: the
others' coins and sealed bids, the order of the characters to come and of the special deck, the
dice), plays every candidate out in that same world with the heuristic bot playing every seat, for
a few auctions, and scores the end: 1 for a win, 0 for a loss, else its share of a softmax over the
players' standing (points, stones, coins). The same world and the same dice serve every candidate
(common random numbers: the comparison is sharper than the figures). It plays the best on average;
for a sealed bid or tie-break it picks at random among the candidates close to the best, so that its
bids cannot be read from its public situation.

Sealed bids are simultaneous: the bot keeps statistics for its own candidates only, the others'
bids being drawn in each world by the playout policy (decoupled statistics).

It reads nothing but `view` and `prompt`, like every bot. Its budget per decision is a number of
playouts and, optionally, a time: the engine has no clock, so the caller passes one in (`clock`,
a callable giving seconds, e.g. time.process_time) with `seconds`; the search stops at whichever
comes first, checked after each world.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from .action_types import Action
from .actions import apply
from .bots import BOTS, HeuristicBot
from .prompts import prompts
from .sample import lite_view, sample_world
from .state import GameState

View = dict[str, Any]
Prompt = dict[str, Any]

DEFAULT_PLAYOUTS = 2000
HORIZON = 8  # auctions played out after the decision before the standing is scored
AUCTIONS_PER_TURN = 10
TEMPERATURE = 2.5  # softmax weight of one unit of standing (about a point)
CLOSE = 0.03  # candidates within this of the best are mixed among, for sealed bids
GOLD_STEPS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
SILVER_STEPS = (0, 1, 2, 3, 4, 6, 8, 12)


def standing(st: GameState, seat: int) -> float:
    """How well placed a player is, in about points: score, stones towards a scoring set, coins."""
    p = st.players[seat]
    stones = p.stones
    total = sum(stones)
    value = float(p.score)
    value += 0.2 * min(total, 5) + 0.05 * max(0, total - 5)
    if min(stones) >= 1:
        value += 0.15  # a Wizard set
    if max(stones) >= 2:
        value += 0.1  # an Apprentice pair
    if max(stones) >= 4:
        value += 0.3  # a Sorcerer's four
    value += 0.06 * (p.fairy_gold + p.fairy_gold_spent) + 0.08 * p.common_gold
    value += 0.02 * p.silver + 0.15 * p.amulets
    if st.doppelganger == seat:
        value += 0.3
    return value


def score_world(st: GameState, seat: int) -> float:
    """1 if the seat has won, 0 if another has; else its softmax share of the standing."""
    if st.winner is not None:
        return 1.0 if st.winner == seat else 0.0
    values = [standing(st, s) for s in range(len(st.players))]
    top = max(values)
    weights = [math.exp(TEMPERATURE * (v - top)) for v in values]
    return weights[seat] / sum(weights)


def playout(st: GameState, bot: HeuristicBot, horizon: int) -> GameState:
    """Every seat plays the heuristic bot for `horizon` auctions, or to the end of the game."""
    turn0, records0 = st.turn, len(st.records)
    while st.winner is None:
        if (st.turn - turn0) * AUCTIONS_PER_TURN + len(st.records) - records0 >= horizon:
            break
        for prompt in prompts(st):
            seat = prompt["seat"]
            st, _ = apply(st, seat, bot.act(lite_view(st, seat), prompt))
            if st.winner is not None:
                break
    return st


def _bid(fairy: int, common: int, amulet: bool = False, black_magic: bool = False) -> Action:
    return {
        "type": "bid",
        "fairy_gold": fairy,
        "common_gold": common,
        "amulet": amulet,
        "black_magic": black_magic,
    }


def _gold(amount: int, limits: dict[str, Any], amulet: bool = False) -> Action:
    """A bid of `amount` gold, Fairy Gold first (it comes back at the end of the turn)."""
    fairy = min(amount, limits["fairy_gold"])
    return _bid(fairy, amount - fairy, amulet)


class HardBot:
    kind = "hard"

    def __init__(
        self,
        seed: int,
        playouts: int = DEFAULT_PLAYOUTS,
        clock: Callable[[], float] | None = None,
        seconds: float | None = None,
        horizon: int = HORIZON,
    ) -> None:
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot(seed)
        self.playouts = playouts
        self.clock = clock
        self.seconds = seconds
        self.horizon = horizon
        self.last_playouts = 0  # playouts of the last decision (for the simulator's figures)

    # -- candidates -----------------------------------------------------------------------

    def candidates(self, view: View, prompt: Prompt) -> list[Action]:
        """A few actions worth comparing, every one legal for `prompt`, without repeats."""
        out: list[Action] = [self.heuristic.act(view, prompt)]
        limits = prompt.get("max", {})
        if prompt["kind"] == "bid":
            total = limits["fairy_gold"] + limits["common_gold"]
            out.append(_bid(0, 0))
            out += [_gold(g, limits) for g in GOLD_STEPS if g <= total]
            if limits["amulet"]:
                out += [_gold(g, limits, True) for g in GOLD_STEPS[:6] if g <= total]
            if limits["black_magic"]:
                out.append(_bid(0, 0, False, True))
        elif prompt["kind"] == "tiebreak":
            out += [
                {"type": "tiebreak", "silver": s, "amulet": False}
                for s in SILVER_STEPS
                if s <= limits["silver"]
            ]
            if limits["silver"] not in SILVER_STEPS:
                out.append({"type": "tiebreak", "silver": limits["silver"], "amulet": False})
            if limits["amulet"]:
                out += [
                    {"type": "tiebreak", "silver": s, "amulet": True}
                    for s in SILVER_STEPS[1:5]
                    if s <= limits["silver"]
                ]
        else:
            out += [{"type": "choose", "option": o["id"]} for o in prompt["options"]]
        unique: dict[tuple[Any, ...], Action] = {}
        for action in out:
            unique.setdefault(tuple(sorted(action.items())), action)
        return list(unique.values())

    # -- search ---------------------------------------------------------------------------

    def act(self, view: View, prompt: Prompt) -> Action:
        seat = view["me"]["seat"]
        options = self.candidates(view, prompt)
        self.last_playouts = 0
        if len(options) == 1:
            return options[0]
        totals = [0.0] * len(options)
        worlds = 0
        deadline = None
        if self.clock is not None and self.seconds is not None:
            deadline = self.clock() + self.seconds
        while self.last_playouts + len(options) <= max(self.playouts, len(options)):
            world = sample_world(view, seat, self.rng)
            dice = self.rng.getrandbits(64)
            for i, action in enumerate(options):
                # The same world and the same dice for every candidate.
                bot = HeuristicBot(0)
                bot.rng = random.Random(dice)
                st, _ = apply(world, seat, action)
                totals[i] += score_world(playout(st, bot, self.horizon), seat)
            worlds += 1
            self.last_playouts += len(options)
            if deadline is not None and self.clock is not None and self.clock() >= deadline:
                break
        means = [t / worlds for t in totals]
        best = max(means)
        if prompt["kind"] == "choose":
            return options[means.index(best)]
        # Sealed: any candidate close to the best, so the bid says little of the situation.
        close = [a for a, m in zip(options, means, strict=True) if m >= best - CLOSE]
        return self.rng.choice(close)


BOTS["hard"] = HardBot
