"""Sampling a world: from what one seat sees, a full game state that seat cannot tell from the real
one. The strong bot (engine/hard.py) searches over such worlds.

    world = sample_world(view(state, seat), seat, random.Random(1))
    view(world, seat) == view(state, seat)          # always

What a seat cannot see, and how it is drawn:
- the coins behind the other screens: for each kind of coin, their sum is known (the box, less the
  bank, the coins in front of the screens and the seat's own); it is dealt among the others at
  random, Fairy Gold weighted by what each has not spent this turn (everyone starts with 8 and it
  seldom changes hands). Black Magic: what each won from the Witch this turn and has not bid.
- the bids and tie-break bids sealed but not revealed: drawn, within the drawn coins, by `policy`
  (the heuristic bot by default: what a sensible player would have bid);
- the order of the characters still to come this turn, and of the special deck (their contents are
  known: what was announced, auctioned, used or is held);
- the generator's state (the dice to come).
Pure: the same view, seat and generator state give the same world.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from .action_types import Action
from .bots import HeuristicBot
from .cards import SPECIAL_DECK, STANDARD_PILE
from .events import Events
from .game import doppelganger_offer
from .powers import POWERS
from .specials import rainbow_colour_question, rainbow_draw_question
from .state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    COLOURS,
    Bank,
    Bid,
    GameState,
    Player,
    Question,
    Record,
    Task,
    TieBid,
)

View = dict[str, Any]
# Decides a sealed bid or tie-break for `seat` in a drawn world, given that seat's full prompt.
Policy = Callable[[GameState, int, dict[str, Any], random.Random], Action]


def lite_view(st: GameState, seat: int) -> View:
    """The part of `view(st, seat)` the heuristic bot reads, built in a fraction of the time (for
    playouts in drawn worlds, where every seat's coins are drawn anyway)."""
    p = st.players[seat]
    rainbow = None
    for task in st.tasks:
        if task.card == "rainbow_dragon" and task.drawn is not None and task.target is not None:
            rainbow = {
                "seat": task.seat,
                "colour": COLOURS[task.target],
                "drawn": _stones(task.drawn),
            }
    return {
        "me": {
            "seat": seat,
            "coins": {
                "fairy_gold": p.fairy_gold,
                "common_gold": p.common_gold,
                "silver": p.silver,
                "amulets": p.amulets,
                "black_magic": p.black_magic,
            },
        },
        "players": [
            {"seat": q.seat, "score": q.score, "stones": _stones(q.stones)} for q in st.players
        ],
        "bank": {"stones": _stones(st.bank.stones)},
        "pile_count": len(st.pile),
        "bag": None if st.bag is None else _stones(st.bag),
        "rainbow": rainbow,
    }


def _stones(stones: list[int]) -> dict[str, int]:
    return {"red": stones[0], "blue": stones[1], "yellow": stones[2]}


def heuristic_policy(
    st: GameState, seat: int, prompt: dict[str, Any], rng: random.Random
) -> Action:
    bot = HeuristicBot(0)
    bot.rng = rng
    return bot.act(lite_view(st, seat), prompt)


def sample_world(
    view: View, seat: int, rng: random.Random, policy: Policy | None = None
) -> GameState:
    """A legal full state agreeing exactly with `view` (seat `seat`'s view) on all it shows, with
    everything hidden from that seat drawn with `rng` (see the module's docstring)."""
    policy = policy or heuristic_policy
    me = view["me"]
    if me is None or me["seat"] != seat:
        raise ValueError("sample_world needs the seat's own view")
    n = len(view["players"])
    over = view["winner"] is not None
    bank_v = view["bank"]
    bank = Bank(
        bank_v["fairy_gold"],
        bank_v["common_gold"],
        bank_v["silver"],
        bank_v["amulets"],
        _colours(bank_v["stones"]),
    )
    players = []
    for pv in view["players"]:
        p = Player(pv["seat"], pv["score"], _colours(pv["stones"]))
        p.fairy_gold_spent = pv["fairy_gold_spent"]
        players.append(p)
    mine = players[seat]
    for coin, amount in me["coins"].items():
        setattr(mine, coin, amount)
    others = [s for s in range(n) if s != seat]
    records = [_record(r) for r in view["turn_cards"]]
    spent = sum(p.fairy_gold_spent for p in players)
    hidden = {
        "fairy_gold": BOX_FAIRY_GOLD - bank.fairy_gold - spent - mine.fairy_gold,
        "common_gold": BOX_COMMON_GOLD - bank.common_gold - mine.common_gold,
        "silver": BOX_SILVER - bank.silver - mine.silver,
        "amulets": BOX_AMULETS - bank.amulets - mine.amulets,
    }
    # Fairy Gold seldom changes hands: each has about 8, less what is in front of his screen.
    weights = {"fairy_gold": [max(0.5, 8.0 - players[s].fairy_gold_spent) for s in others]}
    for coin, total in hidden.items():
        if total < 0:
            raise ValueError(f"the view's {coin} does not add up to the box")
        shares = _deal(total, weights.get(coin, [1.0] * len(others)), rng)
        for s, share in zip(others, shares, strict=True):
            setattr(players[s], coin, share)
    for s in others:  # Black Magic: won from the Witch this turn and not bid yet
        won = sum(1 for r in records if r.card == "witch" and r.winner == s and not r.cursed)
        bid = sum(1 for r in records if r.bids and s in r.bids and r.bids[s].black_magic)
        players[s].black_magic = max(0, won - bid)
    auction = view["auction"] or {}
    st = GameState(
        players=players,
        bank=bank,
        seed=int(view["seed"]) if view["seed"] is not None else 0,
        seed_commitment=view["seed_commitment"],
        rng=rng.getrandbits(64),
        turn=view["turn"],
        phase=view["phase"],
        card=auction.get("character") or (records[-1].card if records else "witch"),
        specials=list(view["specials"]),
        records=records,
        doppelganger=view["doppelganger"],
        winner=view["winner"],
        tied=list(auction.get("tied") or []),
        bag=None if view["bag"] is None else _colours(view["bag"]),
        tasks=[_task(t) for t in view["resolving"]],
        used_specials=list(view["used_specials"]),
    )
    st.owner = object()
    for p in players:
        p.owner = st.owner
    # The characters still to come this turn: the turn's nine, less those auctioned or taken.
    pile = Counter(STANDARD_PILE) + Counter(st.specials)
    pile -= Counter(r.card for r in records if r.card != "witch")
    if st.phase == "bid" and st.card != "witch" and not over:
        pile[st.card] -= 1
    st.pile = sorted(pile.elements())
    rng.shuffle(st.pile)
    if len(st.pile) != view["pile_count"]:
        raise ValueError("the view's characters do not add up")
    deck = Counter(SPECIAL_DECK) - Counter(st.used_specials) - Counter(st.specials)
    if st.doppelganger is not None and "doppelganger" not in st.specials:
        deck["doppelganger"] -= 1
    st.special_deck = sorted(deck.elements())
    rng.shuffle(st.special_deck)
    if len(st.special_deck) != view["special_deck_count"]:
        raise ValueError("the view's special deck does not add up")
    if not over:
        _seal(st, view, seat, auction, policy, rng)
        if st.phase == "choose":
            st.question = ask_again(st, st.tasks[-1])
    return st


def _colours(stones: dict[str, int]) -> list[int]:
    return [stones["red"], stones["blue"], stones["yellow"]]


def _deal(total: int, weights: list[float], rng: random.Random) -> list[int]:
    """`total` coins dealt one by one to the players, each with a chance in proportion to its
    weight."""
    shares = [0] * len(weights)
    if not weights:
        return shares
    for i in rng.choices(range(len(weights)), weights, k=total):
        shares[i] += 1
    return shares


def _record(r: dict[str, Any]) -> Record:
    bids = (
        None
        if r["bids"] is None
        else {
            int(s): Bid(b["fairy_gold"], b["common_gold"], b["amulet"], b["black_magic"])
            for s, b in r["bids"].items()
        }
    )
    tiebreak = (
        None
        if r["tiebreak"] is None
        else {int(s): TieBid(b["silver"], b["amulet"]) for s, b in r["tiebreak"].items()}
    )
    return Record(
        r["character"],
        r["via"],
        bids,
        None if r["tied"] is None else list(r["tied"]),
        tiebreak,
        r["winner"],
        r["cursed"],
        r.get("necromancer_used", False),
    )


def _task(t: dict[str, Any]) -> Task:
    return Task(
        t["card"],
        t["seat"],
        t["auction"],
        t["step"],
        t["target"],
        None if t["drawn"] is None else list(t["drawn"]),
        t["doppel_offer"],
    )


def _seal(
    st: GameState,
    view: View,
    seat: int,
    auction: dict[str, Any],
    policy: Policy,
    rng: random.Random,
) -> None:
    """The sealed bids: the seat's own as its view shows it, the others' drawn."""
    mine = view["me"]
    sealed: dict[int, Bid] = {}
    for s in auction.get("bids_submitted") or []:
        if s == seat:
            b = mine["bid"]
            sealed[s] = Bid(b["fairy_gold"], b["common_gold"], b["amulet"], b["black_magic"])
            continue
        p = st.players[s]
        prompt = {
            "seat": s,
            "kind": "bid",
            "character": st.card,
            "max": {
                "fairy_gold": p.fairy_gold,
                "common_gold": p.common_gold,
                "amulet": p.amulets > 0,
                "black_magic": p.black_magic > 0,
            },
        }
        a = policy(st, s, prompt, rng)
        assert a["type"] == "bid"  # the answer to a bid prompt
        sealed[s] = Bid(a["fairy_gold"], a["common_gold"], a["amulet"], a["black_magic"])
    st.sealed = sealed
    ties: dict[int, TieBid] = {}
    for s in auction.get("tiebreak_submitted") or []:
        if s == seat:
            t = mine["tiebreak"]
            ties[s] = TieBid(t["silver"], t["amulet"])
            continue
        p = st.players[s]
        prompt = {
            "seat": s,
            "kind": "tiebreak",
            "character": st.card,
            "max": {"silver": p.silver, "amulet": p.amulets > 0},
        }
        a = policy(st, s, prompt, rng)
        assert a["type"] == "tiebreak"  # the answer to a tie-break prompt
        ties[s] = TieBid(a["silver"], a["amulet"])
    st.sealed_tiebreak = ties


# The step a power was at, and the choice it was given, just before it asked each question: asked
# again from there, it asks the same question (on a scratch copy: nothing is changed).
_BEFORE: dict[str, tuple[str, str | None]] = {
    "option": ("", None),
    "victim": ("", None),
    "card": ("", None),
    "use": ("", None),
    "stones": ("option", "pay"),
    "buy": ("buy", None),
}


def ask_again(st: GameState, task: Task) -> Question:
    """The open question of the power `task` resolves, as the engine asked it in `st`."""
    if task.doppel_offer:
        question = doppelganger_offer(
            st, Task(task.card, task.seat, task.auction, doppel_offer=True), None, Events()
        )
        assert question is not None
        return question
    if task.card == "rainbow_dragon":
        assert st.bag is not None
        return (
            rainbow_colour_question(task, st.bag)
            if task.step == "colour"
            else rainbow_draw_question(task)
        )
    step, choice = _BEFORE.get(task.step, ("", None))
    if task.card == "sorcerer" and task.step == "colour":
        step, choice = "option", "pay"
    elif task.card == "thief" and task.step == "stone":
        step, choice = "victim", f"seat{task.target}"
    scratch = st.derive()
    again = Task(task.card, task.seat, task.auction, step, task.target)
    question = POWERS[task.card](scratch, again, choice, Events())
    if question is None or question.step != task.step:
        raise ValueError(f"cannot ask the {task.card}'s {task.step!r} question again")
    return question
