"""The deals the end-to-end tests are dealt, and how each was found.

A test that needs something of the shuffle (a Silver tie-break, a power decision of a given seat,
a game long enough to show a card) starts its server with TEST_SEED (or names the game's seed in
the start request) instead of playing games until one comes: the seeds below. Each was found by
playing that test's own script here, offline, with the engine and the bots the server would seat
(`app.core.seeds.bot_seed`): `python -m tests.deals` searches again and prints the first seeds
that fit each test (needed after a change of the engine's shuffle or of a test's script);
tests/engine/test_deals.py checks that each seed still gives its test what the test needs.

Only what decides the game is played here: which action each seat sends for each prompt. The
order in which the seats of a sealed round act does not change the game.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import engine
import engine.bots
from app.core.seeds import bot_seed

if TYPE_CHECKING:
    from playwright.sync_api import Page

Prompt = dict[str, Any]
Action = engine.Action
NOTHING: engine.BidAction = {
    "type": "bid",
    "fairy_gold": 0,
    "common_gold": 0,
    "amulet": False,
    "black_magic": False,
}


def bid(fairy_gold: int = 0, common_gold: int = 0, black_magic: bool = False) -> Action:
    """A bid of these coins, without an amulet."""
    return {
        **NOTHING,
        "fairy_gold": fairy_gold,
        "common_gold": common_gold,
        "black_magic": black_magic,
    }


# Cards whose power asks its winner something (tests/browser/test_screens.py ASKING).
ASKING = {
    "magician",
    "wizard",
    "sorcerer",
    "enchantress",
    "thief",
    "ancient_dragon",
    "sorcerers_apprentice",
    "brigand",
    "troll",
    "rainbow_dragon",
    "merchant",
    "imp",
    "ghost",
}


@dataclass
class Step:
    """One version of a game played here: who acted, on what prompt, and how."""

    version: int
    seat: int
    prompt: Prompt
    action: Action | None  # None: the seat let the prompt run out (the clock answered)


@dataclass
class Run:
    players: int
    seed: int
    steps: list[Step] = field(default_factory=list)
    state: Any = None

    @property
    def over(self) -> bool:
        return self.state is not None and engine.is_over(self.state)

    def kinds(self, seat: int | None = None) -> list[str]:
        return [s.prompt["kind"] for s in self.steps if seat is None or s.seat == seat]


# A seat's script: the action for this prompt, or None to let it run out.
Script = Callable[[Run, int, Prompt], Action | None]


def bot(kind: str, seed: int) -> Script:
    """A bot of the engine (or a scripted person deciding like one) with its own seed."""
    made = engine.bots.make_bot(kind, seed)
    return lambda run, seat, prompt: made.act(engine.view(run.state, seat), prompt).copy()


def seated_bot(game_seed: int, seat: int, kind: str = "heuristic") -> Script:
    """The bot a server with TEST_SEED seats there (its seed follows from the game's)."""
    return bot(kind, bot_seed(game_seed, seat))


def smallest(run: Run, seat: int, prompt: Prompt) -> Action:
    """tests/browser/driver.py's default: bid nothing, no Silver, the first option."""
    if prompt["kind"] == "choose":
        return {"type": "choose", "option": prompt["options"][0]["id"]}
    if prompt["kind"] == "tiebreak":
        return {"type": "tiebreak", "silver": 0, "amulet": False}
    return bid()


def play(
    players: int,
    seed: int,
    scripts: dict[int, Script],
    stop: Callable[[Run], bool] = lambda run: False,
    most: int = 3000,
) -> Run:
    """Play the game dealt from `seed`, each seat by its script, until it is over or `stop`."""
    run = Run(players, seed, state=engine.new_game(players, seed))
    while not run.over and not stop(run) and len(run.steps) < most:
        seat, prompt = next(
            (p["seat"], p) for p in engine.prompts(run.state) if "max" in p or "options" in p
        )
        action = scripts[seat](run, seat, prompt)
        if action is None:
            run.state, _ = engine.time_out(run.state, seat)
        else:
            run.state, _ = engine.apply(run.state, seat, action)
        run.steps.append(Step(len(run.steps) + 1, seat, prompt, action))
    return run


def first(fits: Callable[[int], bool], start: int = 1, count: int = 1) -> list[int]:
    """The first `count` seeds from `start` on that fit."""
    found: list[int] = []
    seed = start
    while len(found) < count:
        if fits(seed):
            found.append(seed)
        seed += 1
    return found


# -- tests/browser/test_full_game.py -------------------------------------------------------------
# Three people in three pages, by the script of the test (bid_amount, choose_option, the first
# Witch's tie-break, Bob's curse, Alice's first bid shown without Common Gold).

FULL_GAME_SEED = 1  # 57 versions: the first Witch's tie-break and another; 7 decisions


def full_game(seed: int) -> tuple[Run, dict[str, int]]:
    from tests.browser import test_full_game as t  # the test's own script

    names = ["Alice", "Bob", "Carol"]
    offline = cast("Page", None)  # the script's choices only: no page is ever touched here
    people = {seat: t.Player(name, page=offline, seat=seat) for seat, name in enumerate(names)}
    flags = {"witch_tie_done": False, "bob_cursed": False, "bid_shot": False}

    def act(run: Run, seat: int, prompt: Prompt) -> Action:
        p = people[seat]
        character = prompt["character"]
        if prompt["kind"] == "bid":
            top = prompt["max"]
            fg, cg = t.bid_amount(
                p, character, flags["witch_tie_done"], top["fairy_gold"], top["common_gold"]
            )
            p.stats["bid"] += 1
            if fg == 0 and cg == 0 and not (p.name == "Bob" and not flags["bob_cursed"]):
                return bid()
            curse = p.name == "Bob" and not flags["bob_cursed"] and top["black_magic"]
            curse = curse and character in t.STONES
            flags["bob_cursed"] = flags["bob_cursed"] or curse
            if not flags["bid_shot"] and p.name == "Alice" and character != "witch":
                cg, flags["bid_shot"] = 0, True
            return bid(fg, cg, curse)
        if prompt["kind"] == "tiebreak":
            silver = min(2 if p.name in ("Bob", "Alice") else 1, prompt["max"]["silver"])
            if character == "witch":
                flags["witch_tie_done"] = True
            p.stats["tiebreak"] += 1
            return {"type": "tiebreak", "silver": silver, "amulet": False}
        ids = [o["id"] for o in prompt["options"]]
        p.stats["choose"] += 1
        return {"type": "choose", "option": t.choose_option(p, character, prompt["step"], ids)}

    run = play(3, seed, dict.fromkeys(range(3), act))
    total = {k: sum(p.stats[k] for p in people.values()) for k in ("bid", "tiebreak", "choose")}
    return run, total


def fits_full_game(seed: int) -> bool:
    """Two tie-breaks or more (the first Witch's among them), three power decisions or more, and
    a short game (at most 60 versions: three pages play it on a loaded machine)."""
    run, total = full_game(seed)
    witch_tie = any(
        s.prompt["kind"] == "tiebreak" and s.prompt["character"] == "witch" for s in run.steps
    )
    return (
        run.over
        and witch_tie
        and total["tiebreak"] >= 2
        and total["choose"] >= 3
        and len(run.steps) <= 60
    )


# -- Kim's game: tests/browser/test_keyboard.py and test_accessibility.py -------------------------
# Kim (seat 0) at the page; Tess (1) and Rex (2) over sockets: Tess matches Kim's one-coin bid
# (the tie), Rex bids at random (random.Random(2)) when Kim bids nothing.


def _followers() -> tuple[list[dict[str, Any]], dict[int, Script]]:
    plans: list[dict[str, Any]] = []
    count = {1: 0, 2: 0}
    rex = random.Random(2)

    def follow(run: Run, seat: int, prompt: Prompt) -> Action:
        if prompt["kind"] != "bid":
            return smallest(run, seat, prompt)
        plan = plans[count[seat]]
        count[seat] += 1
        top = prompt["max"]
        if plan["kind"] == "tie" and seat == 1:
            fg = min(plan["value"], top["fairy_gold"])
            return bid(fg, plan["value"] - fg)
        if plan["kind"] == "free" and seat == 2:
            return bid(rex.randint(0, top["fairy_gold"]), rex.randint(0, top["common_gold"]))
        return bid()

    return plans, {1: follow, 2: follow}


KEYBOARD_SEED = 30  # 109 versions


def keyboard(seed: int) -> tuple[Run, dict[str, Any]]:
    """tests/browser/test_keyboard.py: Kim ties once with one coin on a card that asks nothing,
    bids everything of one coin on cards that ask something until a decision came, otherwise
    nothing; answers a tie-break with one Silver and a decision with its first option."""
    plans, scripts = _followers()
    done: dict[str, Any] = {"max": 0, "tie": False, "tiebreak": False, "choose": 0}

    def kim(run: Run, seat: int, prompt: Prompt) -> Action:
        top = prompt.get("max", {})
        if prompt["kind"] == "bid":
            fairy, common = top["fairy_gold"], top["common_gold"]
            if not done["tie"] and prompt["character"] not in ASKING and (common or fairy):
                plans.append({"kind": "tie", "value": 1})
                done["tie"] = True
                return bid(common_gold=1) if common else bid(fairy_gold=1)
            if prompt["character"] in ASKING and not done["choose"] and (fairy or common):
                plans.append({"kind": "max"})
                if fairy and not done["max"]:
                    done["max"] = fairy
                return bid(fairy_gold=fairy) if fairy else bid(common_gold=common)
            plans.append({"kind": "free"})
            return bid()
        if prompt["kind"] == "tiebreak":
            done["tiebreak"] = True
            return {"type": "tiebreak", "silver": min(1, top["silver"]), "amulet": False}
        done["choose"] += 1
        return {"type": "choose", "option": prompt["options"][0]["id"]}

    run = play(3, seed, {0: kim, **scripts})
    return run, done


def fits_keyboard(seed: int) -> bool:
    """Kim's maximum bid, tie, tie-break and a decision, in a game of at most 110 versions."""
    run, done = keyboard(seed)
    return (
        run.over
        and bool(done["max"] and done["tie"] and done["tiebreak"] and done["choose"])
        and len(run.steps) <= 110
    )


ACCESSIBILITY_SEED = 1  # 84 versions


def accessibility(seed: int) -> Run:
    """tests/browser/test_accessibility.py: Kim ties once with one coin on a card that asks
    nothing, bids all her coins on cards that ask something, otherwise nothing; her seat's
    driver answers a tie-break with no Silver and a decision with its first option."""
    plans, scripts = _followers()
    tie = {"done": False}

    def kim(run: Run, seat: int, prompt: Prompt) -> Action:
        if prompt["kind"] != "bid":
            return smallest(run, seat, prompt)
        top = prompt["max"]
        coins = top["fairy_gold"] + top["common_gold"]
        if not tie["done"] and prompt["character"] not in ASKING and coins:
            tie["done"] = True
            plans.append({"kind": "tie", "value": 1})
            fg = min(1, top["fairy_gold"])
            return bid(fg, 1 - fg)
        if prompt["character"] in ASKING and coins:
            plans.append({"kind": "max"})
            return bid(top["fairy_gold"], top["common_gold"])
        plans.append({"kind": "free"})
        return bid()

    return play(3, seed, {0: kim, **scripts})


def fits_accessibility(seed: int) -> bool:
    """Kim meets a tie-break, then a power decision after it, in at most 90 versions."""
    run = accessibility(seed)
    kinds = run.kinds(0)
    return (
        run.over
        and "tiebreak" in kinds
        and "choose" in kinds[kinds.index("tiebreak") :]
        and len(run.steps) <= 90
    )


# -- tests/browser/test_screens.py ---------------------------------------------------------------
# The host (seat 0, over a socket) and two normal bots: the host bids nothing through turn 1,
# then from its first bid of turn 2 everything on cards that ask something until a decision comes,
# answers it with its first option, and bids nothing to the end.

SCREENS_SEED = 22  # the host's decision at version 47 of 90


def screens(seed: int) -> tuple[Run, int | None]:
    """The game, and the version at which the host's decision came (None: none came)."""
    came: list[int] = []

    def host(run: Run, seat: int, prompt: Prompt) -> Action:
        later = run.state.turn >= 2
        if prompt["kind"] == "choose" and later and not came:
            came.append(len(run.steps))
        if prompt["kind"] == "bid" and later and not came:
            go = prompt["character"] in ASKING
            top = prompt["max"]
            return bid(top["fairy_gold"], top["common_gold"]) if go else bid()
        return smallest(run, seat, prompt)

    run = play(3, seed, {0: host, 1: seated_bot(seed, 1), 2: seated_bot(seed, 2)})
    return run, came[0] if came else None


def fits_screens(seed: int) -> bool:
    """The host's decision comes, and the game lasts 20 versions (the replay's slider is moved
    to 20) to 100 (four pages show it)."""
    run, came = screens(seed)
    return run.over and came is not None and 20 <= len(run.steps) <= 100


# -- tests/browser/test_absent_players.py --------------------------------------------------------
# Alice (seat 0) bids one coin (Fairy Gold while she has some) on every card; Bob and Carol bid
# nothing and take first options: how many bids until Alice is asked a power decision.

ABSENT_SEED = 2  # the Witch, then a card that asks Alice something


def absent(seed: int) -> tuple[Run, int]:
    bids = [0]

    def alice(run: Run, seat: int, prompt: Prompt) -> Action | None:
        if prompt["kind"] == "choose":
            return None  # the test lets it run out
        bids[0] += 1
        top = prompt["max"]
        if top["fairy_gold"] or top["common_gold"]:
            return bid(fairy_gold=1) if top["fairy_gold"] else bid(common_gold=1)
        return bid()

    run = play(3, seed, {0: alice, 1: smallest, 2: smallest}, stop=lambda r: "choose" in r.kinds(0))
    return run, bids[0]


def fits_absent(seed: int) -> bool:
    """Alice's second bid (the first is on the Witch) wins a card that asks her something."""
    run, bids = absent(seed)
    return "choose" in run.kinds(0) and bids == 2


# -- tests/browser/test_first_evening.py (plurals) -----------------------------------------------
# The host bids nothing against two normal bots until one card is left in the pile.

PLURALS_SEED = 1


def fits_plurals(seed: int) -> bool:
    run = play(
        3,
        seed,
        {0: smallest, 1: seated_bot(seed, 1), 2: seated_bot(seed, 2)},
        stop=lambda r: engine.view(r.state, None)["pile_count"] == 1 and r.state.phase == "bid",
    )
    return not run.over


# -- tests/browser/test_card_help.py ------------------------------------------------------------
# Ann (seat 0, the page; the test's seat driver answers for her) plays the smallest move against
# two normal bots until someone holds the Doppelganger while Ann is asked to bid: the seats panel
# then shows the held card's badge, and the game waits for Ann.

CARD_HELP_SEED = 20  # the Doppelganger held at Ann's bid, version 31


def card_help(seed: int) -> Run:
    def held(run: Run) -> bool:
        if not any(p["has_doppelganger"] for p in engine.view(run.state, None)["players"]):
            return False
        return any(p["kind"] == "bid" for p in engine.prompts(run.state, seat=0) if p["seat"] == 0)

    scripts = {0: smallest, 1: seated_bot(seed, 1), 2: seated_bot(seed, 2)}
    return play(3, seed, scripts, stop=held)


def fits_card_help(seed: int) -> bool:
    """The Doppelganger is held while Ann is asked to bid, within 40 versions (a phone page plays
    them)."""
    run = card_help(seed)
    return not run.over and len(run.steps) <= 40


# -- tests/server/test_time_limits.py ------------------------------------------------------------
# Sil (seat 0) never answers: two bids run out, then a stand-in (a normal bot) plays the seat.
# Ann, Bob and Cid decide like normal bots (seeds 11, 12, 13); Ann and Bob bid one Fairy Gold
# first (a tie-break between them), Cid nothing; each lets their first tie-break and first power
# decision run out.

TIME_LIMITS_SEED = 3  # 77 versions


def time_limits(seed: int) -> Run:
    sil_out = [0]
    stand_in = bot("heuristic", bot_seed(seed, 0, "stand-in"))

    def sil(run: Run, seat: int, prompt: Prompt) -> Action | None:
        if sil_out[0] < 2:
            sil_out[0] += 1
            return None
        return stand_in(run, seat, prompt)

    def person(index: int) -> Script:
        decide = bot("heuristic", 11 + index)
        first_bid: list[Action] = [bid(fairy_gold=1 if index < 2 else 0)]
        let_run_out: set[str] = set()

        def act(run: Run, seat: int, prompt: Prompt) -> Action | None:
            kind = prompt["kind"]
            if kind in ("tiebreak", "choose") and kind not in let_run_out:
                let_run_out.add(kind)
                return None
            if kind == "bid" and first_bid:
                return first_bid.pop()
            return decide(run, seat, prompt)

        return act

    return play(4, seed, {0: sil, 1: person(0), 2: person(1), 3: person(2)})


def fits_time_limits(seed: int) -> bool:
    """A person's power decision runs out (besides the bids and the first tie-break), and the
    game is short (at most 100 versions: every time-out costs a second)."""
    run = time_limits(seed)
    timed_out = {s.prompt["kind"] for s in run.steps if s.action is None}
    return run.over and timed_out == {"bid", "tiebreak", "choose"} and len(run.steps) <= 100


# -- tests/server/test_auth.py -------------------------------------------------------------------
# Ann bids one Fairy Gold; then the three play like random bots (seeds 40, 41, 42) until someone
# must choose.

AUTH_SEED = 2


def fits_auth(seed: int) -> bool:
    """A power decision comes within the first turn (few versions after Ann's bid)."""
    scripts: dict[int, Script] = {s: bot("random", 40 + s) for s in range(3)}
    opening: list[Action] = [bid(fairy_gold=1)]

    def ann(run: Run, seat: int, prompt: Prompt) -> Action | None:
        return opening.pop() if opening else scripts[0](run, seat, prompt)

    run = play(
        3,
        seed,
        {0: ann, 1: scripts[1], 2: scripts[2]},
        stop=lambda r: any(p["kind"] == "choose" for p in engine.prompts(r.state)),
    )
    return not run.over and len(run.steps) <= 6


NEEDS: dict[str, Callable[[int], bool]] = {
    "FULL_GAME_SEED": fits_full_game,
    "KEYBOARD_SEED": fits_keyboard,
    "ACCESSIBILITY_SEED": fits_accessibility,
    "SCREENS_SEED": fits_screens,
    "ABSENT_SEED": fits_absent,
    "PLURALS_SEED": fits_plurals,
    "TIME_LIMITS_SEED": fits_time_limits,
    "AUTH_SEED": fits_auth,
    "CARD_HELP_SEED": fits_card_help,
}


def main(argv: list[str]) -> None:
    """Print the first seeds that fit each test (or those named)."""
    for name in argv or NEEDS:
        print(name, first(NEEDS[name], count=5))


if __name__ == "__main__":
    main(sys.argv[1:])
