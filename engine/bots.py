"""Bots. A bot sees only what a player sees: `view(state, seat)` and its own prompt.

    bot = make_bot("heuristic", seed=1)
    action = bot.act(view, prompt)

Each bot owns a `random.Random` seeded by its caller: there is no global randomness here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from .action_types import Action

View = dict[str, Any]
Prompt = dict[str, Any]

COLOURS = ("red", "blue", "yellow")
# How much one point is worth in gold, to weigh cards against each other.
POINT = 9.0


class Bot(Protocol):
    kind: str

    def act(self, view: View, prompt: Prompt) -> Action: ...


class RandomBot:
    """Uniform over the legal actions of its prompt (for fuzzing and as a baseline).

    Draws each field independently within the prompt's limits, which is the same distribution as
    a uniform pick from `legal_actions` without building that list.
    """

    kind = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View, prompt: Prompt) -> Action:
        r = self.rng
        limits = prompt.get("max", {})
        if prompt["kind"] == "bid":
            return {
                "type": "bid",
                "fairy_gold": r.randint(0, limits["fairy_gold"]),
                "common_gold": r.randint(0, limits["common_gold"]),
                "amulet": bool(limits["amulet"] and r.random() < 0.5),
                "black_magic": bool(limits["black_magic"] and r.random() < 0.5),
            }
        if prompt["kind"] == "tiebreak":
            return {
                "type": "tiebreak",
                "silver": r.randint(0, limits["silver"]),
                "amulet": bool(limits["amulet"] and r.random() < 0.5),
            }
        return {"type": "choose", "option": r.choice(prompt["options"])["id"]}


class HeuristicBot:
    """Plays sensibly: values each card by how much closer it brings the bot to a point, bids
    to win or bids nothing, spreads its Fairy Gold over the turn, keeps Silver for tie-breaks, and
    turns the Witch's curse, the Thief, the Brigand and the Troll against the leader."""

    kind = "heuristic"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # -- reading the view -----------------------------------------------------------------

    @staticmethod
    def _me(view: View) -> tuple[int, dict[str, int], dict[str, int], int]:
        me = view["me"]
        seat = me["seat"]
        player = view["players"][seat]
        return seat, me["coins"], player["stones"], player["score"]

    @staticmethod
    def _leader(view: View, seat: int) -> int:
        others = [p for p in view["players"] if p["seat"] != seat]
        best = max(others, key=lambda p: (p["score"], sum(p["stones"].values()), -p["seat"]))
        return int(best["seat"])

    def stone_value(self, stones: dict[str, int], colour: str) -> float:
        """How much one more stone of `colour` is worth: more when it completes a set."""
        n = stones[colour]
        total = sum(stones.values())
        value = 1.2
        if n == 0 and all(stones[c] > 0 for c in COLOURS if c != colour):
            value += 2.5  # completes red-blue-yellow for the Wizard
        if n in (1, 3):
            value += 1.0  # a pair (Apprentice) or four alike (Sorcerer)
        if total in (3, 4):
            value += 1.0  # reaches 4 or 5 stones (Magician, Enchantress)
        return value

    def card_value(
        self,
        view: View,
        card: str,
        seat: int,
        stones: dict[str, int],
        coins: dict[str, int],
        score: int,
    ) -> float:
        total = sum(stones.values())
        point = POINT * (2.0 if score == 2 else 1.0)
        bank = view["bank"]
        best_stone = max(
            (self.stone_value(stones, c) for c in COLOURS if bank["stones"][c]), default=0.0
        )
        if card.endswith("_dragon") and card.split("_")[0] in COLOURS:
            colour = card.split("_")[0]
            return self.stone_value(stones, colour) if bank["stones"][colour] else 0.0
        values: dict[str, float] = {
            "witch": 2.0,
            "magician": point if total >= 4 else 1.0,
            "wizard": point if min(stones.values()) >= 1 else 1.0,
            "sorcerer": 2 * point if max(stones.values()) >= 4 else 0.6,
            "thief": 2.0,
            "alchemist": 2.5,
            "ancient_dragon": best_stone,
            "sorcerers_apprentice": point if max(stones.values()) >= 2 else 0.0,
            "brigand": 2.5,
            "quack_wizard": point * (1.0 if total <= 2 else 0.5),
            "doppelganger": 3.0,
            "two_headed_dragon": 2.4,
            "rainbow_dragon": 2.0,
            "enchantress": 2 * point if total >= 5 else 1.0,
            "ghost": 3.0,
            "fairy": 1.5,
            "gnome": 2.5,
            "goblin": 2.0,
            "imp": 3.0,
            "merchant": 2.5 if coins["common_gold"] + coins["silver"] // 3 > 0 else 1.0,
            "dwarf_4": 1.2,
            "dwarf_5": 1.5,
            "necromancer": point * 0.8,
            "goldsmith": 2.0,
            "troll": 1.0,
        }
        return values.get(card, 1.0)

    # -- decisions ------------------------------------------------------------------------

    def act(self, view: View, prompt: Prompt) -> Action:
        if prompt["kind"] == "bid":
            return self.bid(view, prompt)
        if prompt["kind"] == "tiebreak":
            return self.tiebreak(view, prompt)
        return {"type": "choose", "option": self.choose(view, prompt)}

    def bid(self, view: View, prompt: Prompt) -> Action:
        seat, coins, stones, score = self._me(view)
        limits = prompt["max"]
        card = prompt["character"]
        value = self.card_value(view, card, seat, stones, coins, score)
        leader = self._leader(view, seat)
        leader_p = view["players"][leader]
        # Curse a card that could win the game for the leader, or any big one when he is close.
        curse = (
            bool(limits["black_magic"])
            and leader_p["score"] >= 2
            and card
            in (
                "magician",
                "wizard",
                "sorcerer",
                "sorcerers_apprentice",
                "quack_wizard",
                "enchantress",
                "necromancer",
                "ghost",
                "imp",
            )
        )
        remaining = max(1, int(view.get("pile_count", 0)) + 1)
        budget = limits["fairy_gold"] / remaining * 2.5 + limits["common_gold"] * 0.5
        if value < 1.5 and not curse:
            return self._bid(0, 0, False, curse)
        want = min(value * (0.6 + 0.4 * self.rng.random()), budget, value)
        gold = round(want)
        if value >= POINT:
            gold = max(gold, min(limits["fairy_gold"] + limits["common_gold"], int(value * 0.7)))
        fairy = min(gold, limits["fairy_gold"])
        common = min(gold - fairy, limits["common_gold"])
        amulet = bool(limits["amulet"]) and value >= POINT and fairy + common > 0
        return self._bid(fairy, common, amulet, curse)

    @staticmethod
    def _bid(fairy: int, common: int, amulet: bool, black_magic: bool) -> Action:
        return {
            "type": "bid",
            "fairy_gold": fairy,
            "common_gold": common,
            "amulet": amulet,
            "black_magic": black_magic,
        }

    def tiebreak(self, view: View, prompt: Prompt) -> Action:
        seat, coins, stones, score = self._me(view)
        value = self.card_value(view, prompt["character"], seat, stones, coins, score)
        silver = prompt["max"]["silver"]
        share = 0.6 if value >= POINT else 0.3
        bid = min(silver, int(silver * share) + self.rng.randint(0, 1))
        amulet = bool(prompt["max"]["amulet"]) and value >= POINT and bid > 0
        return {"type": "tiebreak", "silver": bid, "amulet": amulet}

    def choose(self, view: View, prompt: Prompt) -> str:
        seat, coins, stones, score = self._me(view)
        options = prompt["options"]
        ids: list[str] = [str(o["id"]) for o in options]
        step = prompt.get("step", "")
        leader = self._leader(view, seat)
        players = view["players"]
        if "pay" in ids:
            return "pay"
        if "play" in ids:  # the Doppelganger: double what is worth doubling
            value = self.card_value(view, prompt["character"], seat, stones, coins, score)
            return "play" if value >= 2.5 else "keep"
        if "use" in ids:
            return "use"
        if step in ("victim",):
            seats = [o["seat"] for o in options]
            return str(
                options[
                    max(
                        range(len(seats)),
                        key=lambda i: (
                            players[seats[i]]["score"],
                            sum(players[seats[i]]["stones"].values()),
                            seats[i] == leader,
                        ),
                    )
                ]["id"]
            )
        if step == "stones":  # pay what leaves the most useful stones
            return str(
                min(options, key=lambda o: sum((stones[c] - o["stones"][c] == 0) for c in COLOURS))[
                    "id"
                ]
            )
        if prompt["character"] == "troll" and step == "colour":

            def harm(colour: str) -> int:
                return int(
                    sum(
                        p["stones"][colour] * (2 if p["seat"] == leader else 1)
                        for p in players
                        if p["seat"] != seat
                    )
                    - 2 * stones[colour]
                )

            return max(ids, key=harm)
        if prompt["character"] == "rainbow_dragon":
            bag = view.get("bag") or {c: 1 for c in COLOURS}
            if step == "colour":
                return min(ids, key=lambda c: int(bag.get(c, 0)))
            rainbow = view.get("rainbow") or {}
            named = str(rainbow.get("colour", "red"))
            drawn = sum((rainbow.get("drawn") or {}).values())
            risk = bag.get(named, 0) / max(1, sum(bag.values()))
            return "draw" if risk < 0.2 and drawn < 3 else "stop"
        if step == "colour" or step == "stone":
            return max(ids, key=lambda c: self.stone_value(stones, c) if c in COLOURS else 0)
        if step == "card":
            return max(ids, key=lambda c: self.card_value(view, c, seat, stones, coins, score))
        if step == "buy":
            need = 4 - sum(stones.values()) if sum(stones.values()) < 4 else 0
            for coin in ("common_gold", "silver"):
                for o in options:
                    if o.get("coin") == coin and need > 0:
                        return str(o["id"])
            return "done"
        if step == "option":  # take the coins (paying is handled above)
            return ids[-1]
        return str(ids[0])


# Every kind, by name; engine/hard.py adds "hard" (it plays the heuristic bot in its searches).
BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


def make_bot(kind: str, seed: int) -> Bot:
    """A new bot of `kind` ("random", "heuristic" or "hard") with its own seeded generator."""
    try:
        return BOTS[kind](seed)
    except KeyError:
        raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(sorted(BOTS))}") from None
