"""Build game states for scenario tests from a short description.

    st = build(players=3, card="thief", stones={0: "rrb", 1: "y"}, coins={0: "fg5 cg1"})

Everything not described keeps a plain default (no stones, 8 Fairy Gold, 2 Common Gold, 5 Silver,
score 0). The bank is what the box holds minus what the players hold, so every coin and stone of
the box is somewhere, as in a real game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine.state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    BOX_STONES_PER_COLOUR,
    COLOURS,
    Bid,
    GameState,
    Record,
    TieBid,
)

COIN_KEYS = {
    "fg": "fairy_gold",
    "cg": "common_gold",
    "si": "silver",
    "am": "amulets",
    "bm": "black_magic",
    "sp": "fairy_gold_spent",
}


def parse_stones(text: str) -> list[int]:
    """ "rrby" -> [2, 1, 1]; also "r2 b1" style."""
    stones = [0, 0, 0]
    text = text.replace(" ", "")
    i = 0
    while i < len(text):
        colour = "rby".index(text[i])
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        stones[colour] += int(text[i + 1 : j]) if j > i + 1 else 1
        i = j
    return stones


def parse_coins(text: str) -> dict[str, int]:
    """ "fg5 cg1 si0 am1 bm1 sp3" -> field values (missing fields keep their default)."""
    out = {}
    for part in text.split():
        out[COIN_KEYS[part[:2]]] = int(part[2:])
    return out


def build(
    players: int = 3,
    *,
    seed: int = 1,
    card: str = "red_dragon",
    phase: str = "bid",
    stones: dict[int, str] | None = None,
    coins: dict[int, str] | None = None,
    scores: dict[int, int] | None = None,
    pile: list[str] | None = None,
    specials: list[str] | None = None,
    records: list[Record] | None = None,
    doppelganger: int | None = None,
    bank_stones: str | None = None,
    used_specials: list[str] | None = None,
    turn: int = 1,
) -> GameState:
    """A state at the start of an auction for `card` (phase "bid"), described briefly."""
    st = engine.new_game(players, seed)
    specials = specials if specials is not None else ["fairy", "gnome"]
    st.turn = turn
    st.phase = "bid"
    st.card = card
    st.specials = list(specials)
    st.pile = list(pile) if pile is not None else []
    st.records = list(records) if records is not None else [Record("witch", bids={})]
    st.doppelganger = doppelganger
    st.sealed, st.tied, st.sealed_tiebreak, st.tasks, st.question = {}, [], {}, [], None
    # The special deck: every special not on the table, not used, not held.
    deck = list(engine.cards.SPECIAL_DECK)
    for c in list(specials) + list(used_specials or []):
        if c in deck:
            deck.remove(c)
    if doppelganger is not None and "doppelganger" in deck:
        deck.remove("doppelganger")
    st.special_deck = deck
    st.used_specials = list(used_specials or [])
    for p in st.players:
        p.stones = [0, 0, 0]
        p.score = 0
        p.fairy_gold, p.common_gold, p.silver, p.amulets, p.black_magic = 8, 2, 5, 0, 0
        p.fairy_gold_spent = 0
    for seat, text in (stones or {}).items():
        st.players[seat].stones = parse_stones(text)
    for seat, text in (coins or {}).items():
        for key, value in parse_coins(text).items():
            setattr(st.players[seat], key, value)
    for seat, value in (scores or {}).items():
        st.players[seat].score = value
    b = st.bank
    b.fairy_gold = BOX_FAIRY_GOLD - sum(p.fairy_gold + p.fairy_gold_spent for p in st.players)
    b.common_gold = BOX_COMMON_GOLD - sum(p.common_gold for p in st.players)
    b.silver = BOX_SILVER - sum(p.silver for p in st.players)
    b.amulets = BOX_AMULETS - sum(p.amulets for p in st.players)
    if bank_stones is not None:
        b.stones = parse_stones(bank_stones)
    else:
        b.stones = [BOX_STONES_PER_COLOUR - sum(p.stones[c] for p in st.players) for c in range(3)]
    assert min(b.fairy_gold, b.common_gold, b.silver, b.amulets, *b.stones) >= 0, "over the box"
    return st


def bid(
    fg: int = 0, cg: int = 0, amulet: bool = False, black_magic: bool = False
) -> engine.BidAction:
    return {
        "type": "bid",
        "fairy_gold": fg,
        "common_gold": cg,
        "amulet": amulet,
        "black_magic": black_magic,
    }


def tiebreak(silver: int = 0, amulet: bool = False) -> engine.TiebreakAction:
    return {"type": "tiebreak", "silver": silver, "amulet": amulet}


def choose(option: str) -> engine.ChooseAction:
    return {"type": "choose", "option": option}


def auction(
    st: GameState, bids: Mapping[int, Mapping[str, object]]
) -> tuple[GameState, list[dict[str, Any]]]:
    """Every seat bids (an empty bid for seats not named); returns the state and all events."""
    events: list[dict[str, Any]] = []
    for seat in range(len(st.players)):
        st, ev = engine.apply(st, seat, bids.get(seat, bid()))
        events += ev
    return st, events


def act(
    st: GameState, seat: int, action: Mapping[str, object]
) -> tuple[GameState, list[dict[str, Any]]]:
    return engine.apply(st, seat, action)


def options(st: GameState) -> list[str]:
    """The option ids of the open choose prompt."""
    (prompt,) = [p for p in engine.prompts(st) if p["kind"] == "choose"]
    return [o["id"] for o in prompt["options"]]


def stones_of(st: GameState, seat: int) -> dict[str, int]:
    return {c: st.players[seat].stones[i] for i, c in enumerate(COLOURS)}


def won(card: str, seat: int, bids: dict[int, Bid] | None = None) -> Record:
    """A record of a card already auctioned this turn (for the Ghost)."""
    return Record(card, bids=bids if bids is not None else {seat: Bid(1)}, winner=seat)


__all__ = [
    "Bid",
    "Record",
    "TieBid",
    "act",
    "auction",
    "bid",
    "build",
    "choose",
    "options",
    "stones_of",
    "tiebreak",
    "won",
]


# -- Whole-game helpers for the property, leak and simulation tests ---------------------------
# (Imports here rather than at the top: this part was appended to the builder.)

import random  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402

from engine.bots import make_bot  # noqa: E402

# Every coin of the box, by where a coin of that kind may lie (R1). Black Magic is unlimited.
BOX = {
    "fairy_gold": BOX_FAIRY_GOLD,
    "common_gold": BOX_COMMON_GOLD,
    "silver": BOX_SILVER,
    "amulets": BOX_AMULETS,
}
PRIVATE_COINS = ("fairy_gold", "common_gold", "silver", "amulets", "black_magic")
WINNING_SCORE = engine.state.WINNING_SCORE


def box_problems(st: GameState) -> list[str]:
    """Every way `st` loses, duplicates or overdraws a coin or a stone of the box ([] if none).

    Fairy Gold lies behind a screen, in front of one (spent this turn) or in the bank; a sealed
    bid not yet revealed is still behind its bidder's screen, so it must fit in what he holds.
    Stones lie with a player (Rainbow Dragon draws included), in the bank, or in the bag.
    """
    problems = []
    b = st.bank
    where = {
        "fairy_gold": b.fairy_gold + sum(p.fairy_gold + p.fairy_gold_spent for p in st.players),
        "common_gold": b.common_gold + sum(p.common_gold for p in st.players),
        "silver": b.silver + sum(p.silver for p in st.players),
        "amulets": b.amulets + sum(p.amulets for p in st.players),
    }
    for coin, total in BOX.items():
        if where[coin] != total:
            problems.append(f"{coin}: {where[coin]} in play, the box holds {total}")
    for colour, name in enumerate(COLOURS):
        total = b.stones[colour] + sum(p.stones[colour] for p in st.players)
        total += st.bag[colour] if st.bag is not None else 0
        if total != BOX_STONES_PER_COLOUR:
            problems.append(
                f"{name} stones: {total} in play, the box holds {BOX_STONES_PER_COLOUR}"
            )
    negative = [
        f"bank.{k}" for k in ("fairy_gold", "common_gold", "silver", "amulets") if getattr(b, k) < 0
    ]
    negative += [f"bank.stones.{COLOURS[c]}" for c in range(3) if b.stones[c] < 0]
    if st.bag is not None:
        negative += [f"bag.{COLOURS[c]}" for c in range(3) if st.bag[c] < 0]
    for p in st.players:
        negative += [
            f"seat{p.seat}.{k}"
            for k in (*PRIVATE_COINS, "fairy_gold_spent", "score")
            if getattr(p, k) < 0
        ]
        negative += [f"seat{p.seat}.stones.{COLOURS[c]}" for c in range(3) if p.stones[c] < 0]
    if negative:
        problems.append("negative: " + ", ".join(negative))
    for seat, sealed in st.sealed.items():
        p = st.players[seat]
        if (
            sealed.fairy_gold > p.fairy_gold
            or sealed.common_gold > p.common_gold
            or (sealed.amulet and p.amulets < 1)
            or (sealed.black_magic and p.black_magic < 1)
        ):
            problems.append(f"seat {seat}'s sealed bid {sealed} is not behind its screen")
    for seat, tiebid in st.sealed_tiebreak.items():
        p = st.players[seat]
        if tiebid.silver > p.silver or (tiebid.amulet and p.amulets < 1):
            problems.append(f"seat {seat}'s sealed tie-break {tiebid} is not behind its screen")
    return problems


def special_card_problems(st: GameState) -> list[str]:
    """Every way `st` loses or duplicates one of the 25 special cards ([] if none).

    A special card lies in the special deck, the used pile, this turn's table, or (the
    Doppelganger only) before its holder. A Doppelganger drawn this turn leaves the table when it
    is won (held) or played (used pile), and is still listed in `specials` as announced.
    """
    table = list(st.specials)
    if "doppelganger" in table and (
        st.doppelganger is not None or "doppelganger" in st.used_specials
    ):
        table.remove("doppelganger")
    held = ["doppelganger"] if st.doppelganger is not None else []
    found = Counter(st.special_deck + st.used_specials + table + held)
    expected = Counter(engine.cards.SPECIAL_DECK)
    problems = []
    if found != expected:
        problems.append(
            f"special cards: extra {dict(found - expected)}, missing {dict(expected - found)}"
        )
    if st.doppelganger is not None and "doppelganger" in st.used_specials:
        problems.append("the Doppelganger is both held and in the used pile")
    if len(st.specials) != 2 and st.winner is None:
        problems.append(f"{len(st.specials)} specials announced this turn, not 2")
    return problems


def state_problems(st: GameState) -> list[str]:
    """The box, the special cards, and the consistency of phase, prompts, scores and winner."""
    problems = box_problems(st) + special_card_problems(st)
    scores = [p.score for p in st.players]
    over3 = [p.seat for p in st.players if p.score >= WINNING_SCORE]
    if st.winner is None:
        if over3:
            problems.append(f"no winner, yet seats {over3} have 3 points or more")
        if st.phase == "over" or not engine.prompts(st):
            problems.append(f"no winner, yet phase {st.phase!r} asks nobody")
    else:
        if over3 != [st.winner]:
            problems.append(f"winner {st.winner} with scores {scores}")
        if st.phase != "over" or engine.prompts(st) or st.bag is not None:
            problems.append("the game is over, yet it goes on")
    if st.phase == "choose" and (st.question is None or not st.tasks):
        problems.append("a choose phase without a question or a power being resolved")
    if st.phase != "choose" and st.question is not None:
        problems.append(f"a question is open in phase {st.phase!r}")
    if st.bag is not None and not (
        st.phase == "choose"
        and st.question is not None
        and st.question.character == "rainbow_dragon"
    ):
        problems.append("stones are left in the bag outside a Rainbow Dragon")
    if st.phase == "tiebreak" and (len(st.tied) < 2 or not set(st.sealed_tiebreak) <= set(st.tied)):
        problems.append(f"tie-break between {st.tied}, sealed by {sorted(st.sealed_tiebreak)}")
    return problems


def random_legal_action(
    st: GameState, seat: int, prompt: dict[str, Any], rng: random.Random
) -> engine.Action:
    """A random action for `prompt`, leaning towards small bids so random games still end."""
    if prompt["kind"] == "bid":
        m = prompt["max"]
        small = rng.random() < 0.7
        fg = rng.randint(0, min(m["fairy_gold"], 3) if small else m["fairy_gold"])
        cg = rng.randint(0, min(m["common_gold"], 1) if small else m["common_gold"])
        return bid(
            fg, cg, m["amulet"] and rng.random() < 0.3, m["black_magic"] and rng.random() < 0.2
        )
    if prompt["kind"] == "tiebreak":
        m = prompt["max"]
        return tiebreak(rng.randint(0, m["silver"]), m["amulet"] and rng.random() < 0.4)
    return choose(rng.choice(prompt["options"])["id"])


Step = Callable[[GameState, int, engine.Action, GameState, list[dict[str, Any]]], None]


def bot_playout(
    players: int,
    seed: int,
    kinds: list[str],
    *,
    max_actions: int = 20_000,
) -> Iterator[tuple[GameState, int, engine.Action, GameState, list[dict[str, Any]]]]:
    """Play a whole game with bots (seat i gets kinds[i % len(kinds)]), yielding every step as
    (state before, seat, action, state after, events). Bots see only their own view."""
    st = engine.new_game(players, seed)
    bots = [make_bot(kinds[i % len(kinds)], seed * 31 + i) for i in range(players)]
    n = 0
    while st.winner is None:
        for prompt in engine.prompts(st):
            seat = prompt["seat"]
            action = bots[seat].act(engine.view(st, seat), prompt)
            after, events = engine.apply(st, seat, action)
            yield st, seat, action, after, events
            st = after
            n += 1
            assert n < max_actions, f"no winner after {n} actions (seed {seed})"
