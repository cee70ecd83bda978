"""Named scenario tests for every card: the 8 standard characters and the 19 special kinds.

Each test builds a state for the purpose (tests/engine/builder.py), plays the auction through the
public API (`engine.apply`), and checks the power's effect, every `choose` prompt it opens (seat,
character, step, question, options, and that `legal_actions` agrees), its edge cases and its
interplay with the Ghost, the Imp, the Goblin, the Witch and the Doppelganger. After every scenario
`check` proves that every coin and stone of the box is still somewhere, nothing is negative, and the
state survives a dumps/loads round trip. The docstrings cite the rulings (docs/rules.md, R1-R25).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

import engine
from engine.cards import CARDS, SPECIAL_DECK
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
)

from .builder import bid, build, choose, stones_of, tiebreak

Events = list[dict[str, Any]]


# -- helpers ----------------------------------------------------------------------------------


def act(st: GameState, seat: int, action: Mapping[str, object]) -> tuple[GameState, Events]:
    """`engine.apply`, checking on the way that it leaves the given state untouched and that the
    same action on the same state gives the same state and events (contract, section 1)."""
    before = engine.dumps(st)
    after, events = engine.apply(st, seat, action)
    assert engine.dumps(st) == before, "apply changed the state it was given"
    again, events_again = engine.apply(st, seat, action)
    assert engine.dumps(again) == engine.dumps(after) and events_again == events
    return after, events


def auction(st: GameState, bids: Mapping[int, Mapping[str, object]]) -> tuple[GameState, Events]:
    """Every seat bids in seat order (an empty bid for seats not named)."""
    events: Events = []
    for seat in range(len(st.players)):
        st, more = act(st, seat, bids.get(seat, bid()))
        events += more
    return st, events


def make(
    card: str,
    players: int = 3,
    *,
    pile: list[str] | None = None,
    specials: list[str] | None = None,
    **kw: Any,
) -> GameState:
    """A state at the start of `card`'s auction. One card ("wizard") is left in the pile by default,
    so that the turn does not end with the scenario; a special card is among the turn's specials."""
    if specials is None:
        specials = ["fairy", "gnome"]
        if CARDS[card].special and card not in specials:
            specials = [card, "gnome" if card == "fairy" else "fairy"]
    return build(
        players, card=card, pile=["wizard"] if pile is None else pile, specials=specials, **kw
    )


def check(st: GameState) -> None:
    """Conservation: every coin and stone of the box is somewhere, nothing is negative; the public
    view agrees with the state and is JSON; the state survives a dumps/loads round trip."""
    ps, bank = st.players, st.bank
    bag = st.bag if st.bag is not None else [0, 0, 0]
    for p in ps:
        assert (
            min(
                p.fairy_gold,
                p.fairy_gold_spent,
                p.common_gold,
                p.silver,
                p.amulets,
                p.black_magic,
                *p.stones,
            )
            >= 0
        ), p
        assert p.score >= 0
    assert (
        min(bank.fairy_gold, bank.common_gold, bank.silver, bank.amulets, *bank.stones, *bag) >= 0
    ), (bank, bag)
    assert sum(p.fairy_gold + p.fairy_gold_spent for p in ps) + bank.fairy_gold == BOX_FAIRY_GOLD
    assert sum(p.common_gold for p in ps) + bank.common_gold == BOX_COMMON_GOLD
    assert sum(p.silver for p in ps) + bank.silver == BOX_SILVER
    assert sum(p.amulets for p in ps) + bank.amulets == BOX_AMULETS
    for c in range(3):
        assert sum(p.stones[c] for p in ps) + bank.stones[c] + bag[c] == BOX_STONES_PER_COLOUR
    public = engine.view(st, None)
    json.dumps(public)
    assert public["bank"]["stones"] == dict(zip(COLOURS, bank.stones, strict=True))
    for p in ps:
        assert public["players"][p.seat]["stones"] == dict(zip(COLOURS, p.stones, strict=True))
        assert public["players"][p.seat]["score"] == p.score
    text = engine.dumps(st)
    assert engine.dumps(engine.loads(text)) == text


def check_special_cards(st: GameState) -> None:
    """At the start of a turn every special card is in the deck, the used pile, this turn's
    specials or the Doppelganger holder's hands, exactly once."""
    held = ["doppelganger"] if st.doppelganger is not None else []
    assert Counter(st.special_deck + st.used_specials + st.specials + held) == Counter(SPECIAL_DECK)


def expect(
    st: GameState, seat: int, character: str, step: str, options: list[str], *words: str
) -> dict[str, Any]:
    """The one open prompt is a `choose` for `seat` with exactly these options; `legal_actions`
    agrees; the question mentions `words`. Returns the prompt."""
    prompts = engine.prompts(st)
    assert len(prompts) == 1, prompts
    (p,) = prompts
    assert (p["kind"], p["seat"], p["character"], p["step"]) == ("choose", seat, character, step), p
    ids = [o["id"] for o in p["options"]]
    assert len(ids) == len(set(ids)), ids
    assert sorted(ids) == sorted(options), ids
    assert all(isinstance(o["label"], str) and o["label"] for o in p["options"])
    assert isinstance(p["question"], str) and p["question"]
    for word in words:
        assert word.lower() in p["question"].lower(), (word, p["question"])
    assert engine.legal_actions(st, seat) == [choose(i) for i in ids]
    for other in range(len(st.players)):
        if other != seat:
            assert engine.legal_actions(st, other) == []
    (awaiting,) = engine.view(st, None)["awaiting"]
    assert {k: awaiting[k] for k in ("seat", "kind", "character", "step")} == {
        "seat": seat,
        "kind": "choose",
        "character": character,
        "step": step,
    }
    return p


def option(prompt: dict[str, Any], option_id: str) -> dict[str, Any]:
    return next(o for o in prompt["options"] if o["id"] == option_id)


def bidding(st: GameState, card: str) -> None:
    """No power is waiting: the auction of `card` is open (R14: nothing left to decide)."""
    assert st.phase == "bid" and st.card == card and st.question is None and not st.tasks
    assert {p["kind"] for p in engine.prompts(st)} == {"bid"}


def of(events: Events, type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def auto(events: Events, step: str) -> list[dict[str, Any]]:
    """The R14 automatic answers of `step` among the events."""
    return [e for e in events if e["type"] == "auto_choice" and e["step"] == step]


def win(st: GameState, seat: int = 0, fg: int = 1) -> tuple[GameState, Events]:
    """`seat` wins the open auction with `fg` Fairy Gold; everyone else bids nothing."""
    st, events = auction(st, {seat: bid(fg)})
    assert of(events, "auction_won")[0]["winner"] == seat
    return st, events


def stones(text: str) -> dict[str, int]:
    counts = Counter(text)
    return {"red": counts["r"], "blue": counts["b"], "yellow": counts["y"]}


def seed_where(predicate: Any, tries: int = 200) -> int:
    """The first builder seed for which `predicate(seed)` holds (random draws, made deterministic)."""
    for seed in range(tries):
        if predicate(seed):
            return seed
    raise AssertionError("no seed gives that outcome")


def end_turn(st: GameState) -> GameState:
    """Play the rest of the turn with empty bids, up to the next Witch auction."""
    turn = st.turn
    while st.turn == turn:
        assert st.phase == "bid", st.phase
        st, _ = auction(st, {})
    assert st.card == "witch"
    return st


# -- Witch ------------------------------------------------------------------------------------


def test_witch_winner_takes_a_black_magic_coin() -> None:
    """R5, rules text: the Witch is auctioned first; her winner takes a Black Magic coin (R1:
    unlimited, the bank does not count them). No decision: the next card opens at once (R14)."""
    st = make("witch", records=[])
    st, events = win(st, 1, fg=2)
    assert st.players[1].black_magic == 1
    assert engine.view(st, 1)["me"]["coins"]["black_magic"] == 1
    assert of(events, "gain")[0]["coin"] == "black_magic"
    assert st.records[0].card == "witch" and st.records[0].winner == 1
    bidding(st, "wizard")
    check(st)


def test_witch_coin_curses_a_card_and_every_bid_is_still_spent() -> None:
    """R10: a Black Magic coin in any bid curses the card: nobody uses its power, every bid is
    spent, and no tie-break is held even though the gold values tie."""
    st = make("red_dragon", coins={2: "bm1"})
    st, events = auction(st, {0: bid(3), 1: bid(3, 1), 2: bid(black_magic=True)})
    assert of(events, "cursed") and not of(events, "auction_won")
    assert not of(events, "tiebreak_started")
    assert st.records[-1].cursed and st.records[-1].winner is None
    assert stones_of(st, 0)["red"] == 0 and stones_of(st, 1)["red"] == 0
    assert st.players[0].fairy_gold_spent == 3 and st.players[1].fairy_gold_spent == 3
    assert st.players[1].common_gold == 1 and st.players[2].black_magic == 0
    bidding(st, "wizard")
    check(st)


def test_witch_curse_falls_on_a_card_nobody_bid_gold_for() -> None:
    """R10: a curse can fall on a card with no gold bid at all."""
    st = make("sorcerer", coins={0: "bm1"})
    st, events = auction(st, {0: bid(black_magic=True)})
    assert of(events, "cursed") and not of(events, "no_winner")
    assert st.records[-1].cursed
    bidding(st, "wizard")
    check(st)


def test_witch_unused_black_magic_returns_at_the_end_of_the_turn() -> None:
    """R6: unused Black Magic coins return to the bank at the end of the turn."""
    st = make("red_dragon", pile=[], coins={1: "bm1"})
    st, _ = auction(st, {})
    assert st.turn == 2 and st.card == "witch"
    assert st.players[1].black_magic == 0
    check(st)
    check_special_cards(st)


# -- Red, Blue and Yellow Dragons -------------------------------------------------------------


@pytest.mark.parametrize("colour", COLOURS)
def test_dragon_gives_one_stone_of_its_colour(colour: str) -> None:
    """Rules text: the winner of a Dragon takes one stone of its colour from the bank; no choice,
    so it resolves at once (R14)."""
    card = f"{colour}_dragon"
    st = make(card, stones={0: "rby"})
    before = st.bank.stones[:]
    st, events = win(st, 0)
    assert stones_of(st, 0) == {c: 2 if c == colour else 1 for c in COLOURS}
    assert st.bank.stones[COLOURS.index(colour)] == before[COLOURS.index(colour)] - 1
    assert of(events, "gain")[0]["stone"] == colour
    bidding(st, "wizard")
    check(st)


@pytest.mark.parametrize("colour", COLOURS)
def test_dragon_with_none_of_its_colour_in_the_bank_gives_nothing(colour: str) -> None:
    """R1: when the bank lacks what a power gives, the player receives nothing; nothing else."""
    letter = colour[0]
    st = make(f"{colour}_dragon", stones={1: f"{letter}12"})
    st, events = win(st, 0)
    assert stones_of(st, 0) == stones("")
    assert of(events, "gain")[0]["amount"] == 0
    bidding(st, "wizard")
    check(st)


# -- Magician ---------------------------------------------------------------------------------


def test_magician_pays_any_four_stones_of_the_players_choice_for_one_point() -> None:
    """R4 (the English is right), R14: Magician = pay any 4 stones for 1 point, or 3 Silver.
    Both options are offered, then which 4 stones (every combination)."""
    st = make("magician", stones={0: "rrbby"})
    st, _ = win(st, 0)
    expect(st, 0, "magician", "option", ["pay", "silver"], "magician")
    st, _ = act(st, 0, choose("pay"))
    p = expect(
        st,
        0,
        "magician",
        "stones",
        ["red2-blue2", "red2-blue1-yellow1", "red1-blue2-yellow1"],
        "4 stones",
    )
    assert option(p, "red1-blue2-yellow1")["stones"] == {"red": 1, "blue": 2, "yellow": 1}
    bank_before = st.bank.stones[:]
    st, events = act(st, 0, choose("red1-blue2-yellow1"))
    assert stones_of(st, 0) == stones("r")
    assert st.bank.stones == [bank_before[0] + 1, bank_before[1] + 2, bank_before[2] + 1]
    assert st.players[0].score == 1 and of(events, "score")
    bidding(st, "wizard")
    check(st)


def test_magician_take_three_silver() -> None:
    """R4: the other option of the Magician is 3 Silver from the bank."""
    st = make("magician", stones={0: "rrbby"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("silver"))
    assert st.players[0].silver == 8 and st.players[0].score == 0
    assert stones_of(st, 0) == stones("rrbby")
    bidding(st, "wizard")
    check(st)


def test_magician_without_four_stones_takes_silver_at_once() -> None:
    """R14: an option the player cannot pay is not offered; a single option resolves at once."""
    st = make("magician", stones={0: "rby"})
    st, events = win(st, 0)
    assert auto(events, "option")[0]["option"] == "silver"
    assert st.players[0].silver == 8
    bidding(st, "wizard")
    check(st)


def test_magician_single_way_to_pay_is_not_asked() -> None:
    """R14: a decision with a single option (four red stones only) resolves at once."""
    st = make("magician", stones={0: "r4"})
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("pay"))
    assert auto(events, "stones")[0]["option"] == "red4"
    assert stones_of(st, 0) == stones("") and st.players[0].score == 1
    check(st)


def test_magician_silver_from_a_short_bank() -> None:
    """R1: the bank has only 1 Silver left: the player receives what is left."""
    st = make("magician", coins={1: "si20", 2: "si14"})
    assert st.bank.silver == 1
    st, events = win(st, 0)
    assert st.players[0].silver == 6 and st.bank.silver == 0
    assert of(events, "gain")[0]["amount"] == 1
    check(st)


def test_magician_third_point_wins_at_once() -> None:
    """R7: a player who reaches 3 points wins at once; no prompt is left."""
    st = make("magician", stones={0: "rrbb"}, scores={0: 2})
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("pay"))
    assert engine.winner(st) == 0 and engine.prompts(st) == []
    assert of(events, "game_over")
    check(st)


# -- Wizard -----------------------------------------------------------------------------------


def test_wizard_pays_one_stone_of_each_colour_for_one_point() -> None:
    """R4: Wizard = pay one stone of each colour for 1 point (no further choice), or 3 Silver."""
    st = make("wizard", pile=["thief"], stones={0: "rrby"})
    st, _ = win(st, 0)
    expect(st, 0, "wizard", "option", ["pay", "silver"], "wizard")
    st, _ = act(st, 0, choose("pay"))
    assert stones_of(st, 0) == stones("r") and st.players[0].score == 1
    bidding(st, "thief")
    check(st)


def test_wizard_take_three_silver() -> None:
    """R4: the Wizard's other option: 3 Silver."""
    st = make("wizard", pile=["thief"], stones={0: "rby"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("silver"))
    assert st.players[0].silver == 8 and stones_of(st, 0) == stones("rby")
    check(st)


def test_wizard_without_every_colour_takes_silver_at_once() -> None:
    """R14: no yellow stone, so paying is not offered and the Silver is taken at once."""
    st = make("wizard", pile=["thief"], stones={0: "rrrrbb"})
    st, events = win(st, 0)
    assert auto(events, "option")[0]["option"] == "silver"
    assert st.players[0].silver == 8 and st.players[0].score == 0
    bidding(st, "thief")
    check(st)


# -- Sorcerer ---------------------------------------------------------------------------------


def test_sorcerer_pays_four_stones_of_the_chosen_colour_for_two_points() -> None:
    """R4: Sorcerer = pay 4 stones of one colour for 2 points, or 1 Common Gold. With two colours
    of 4 the player chooses the colour."""
    st = make("sorcerer", stones={0: "r4 b5 y"})
    st, _ = win(st, 0)
    expect(st, 0, "sorcerer", "option", ["pay", "common_gold"], "sorcerer")
    st, _ = act(st, 0, choose("pay"))
    p = expect(st, 0, "sorcerer", "colour", ["red", "blue"], "colour")
    assert option(p, "blue")["colour"] == "blue"
    st, _ = act(st, 0, choose("blue"))
    assert stones_of(st, 0) == stones("rrrrby") and st.players[0].score == 2
    bidding(st, "wizard")
    check(st)


def test_sorcerer_single_colour_is_paid_at_once() -> None:
    """R14: only red has 4 stones: the colour is not asked."""
    st = make("sorcerer", stones={0: "r5 b3"})
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("pay"))
    assert auto(events, "colour")[0]["option"] == "red"
    assert stones_of(st, 0) == stones("rbbb") and st.players[0].score == 2
    check(st)


def test_sorcerer_take_one_common_gold() -> None:
    """R4: the Sorcerer's other option: 1 Common Gold."""
    st = make("sorcerer", stones={0: "r4"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("common_gold"))
    assert st.players[0].common_gold == 3 and stones_of(st, 0) == stones("rrrr")
    check(st)


def test_sorcerer_cannot_pay_and_the_bank_has_no_common_gold() -> None:
    """R14 + R1: paying is not offered, so the Common Gold is taken at once, and the empty bank
    gives nothing."""
    st = make("sorcerer", stones={0: "rrrbbbyyy"}, coins={1: "cg7", 2: "cg6"})
    assert st.bank.common_gold == 0
    st, events = win(st, 0)
    assert auto(events, "option")[0]["option"] == "common_gold"
    assert st.players[0].common_gold == 2
    assert of(events, "gain")[0]["amount"] == 0
    bidding(st, "wizard")
    check(st)


def test_sorcerer_two_points_win_from_one() -> None:
    """R7: two points from 1 reach 3: the game is won at once (P18: from 2 it would be 4)."""
    st = make("sorcerer", stones={0: "y4"}, scores={0: 1})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("pay"))
    assert engine.winner(st) == 0 and st.players[0].score == 3 and engine.prompts(st) == []
    check(st)


# -- Thief ------------------------------------------------------------------------------------


def test_thief_takes_a_stone_of_his_choice_from_the_second_bidder() -> None:
    """R15: the single second bidder is robbed at once (one victim: R14), and the winner chooses
    which of the victim's colours he takes. The theft is public."""
    st = make("thief", stones={1: "rbb", 2: "yyy"})
    st, events = auction(st, {0: bid(3), 1: bid(2), 2: bid(1)})
    assert auto(events, "victim")[0]["option"] == "seat1"
    p = expect(st, 0, "thief", "stone", ["red", "blue"], "stone")
    assert option(p, "blue")["colour"] == "blue"
    st, events = act(st, 0, choose("blue"))
    assert stones_of(st, 0) == stones("b") and stones_of(st, 1) == stones("rb")
    assert stones_of(st, 2) == stones("yyy")
    steal = of(events, "steal")[0]
    assert steal["victim"] == 1 and steal["stone"] == "blue" and "private_to" not in steal
    bidding(st, "wizard")
    check(st)


def test_thief_chooses_among_tied_seconds() -> None:
    """R15: among several seconds the winner chooses; a lower bidder is not a second."""
    st = make("thief", 4, stones={1: "r", 2: "b", 3: "y"})
    st, _ = auction(st, {0: bid(3), 1: bid(2), 2: bid(1, 1), 3: bid(1)})
    p = expect(st, 0, "thief", "victim", ["seat1", "seat2"], "rob")
    assert option(p, "seat2")["seat"] == 2
    st, events = act(st, 0, choose("seat2"))
    assert auto(events, "stone")[0]["option"] == "blue"
    assert stones_of(st, 0) == stones("b") and stones_of(st, 2) == stones("")
    check(st)


def test_thief_must_rob_a_second_who_has_a_stone() -> None:
    """R15: among several seconds he must choose one who has a stone if any of them has."""
    st = make("thief", 4, stones={1: "", 2: "y", 3: "rb"}, coins={1: "cg2"})
    st, events = auction(st, {0: bid(3), 1: bid(1), 2: bid(1), 3: bid()})
    assert auto(events, "victim")[0]["option"] == "seat2"
    assert stones_of(st, 0) == stones("y") and st.players[1].common_gold == 2
    bidding(st, "wizard")
    check(st)


def test_thief_sole_bidder_makes_every_other_player_second() -> None:
    """R15: if the winner was the only one to bid any value, every other player counts as second."""
    st = make("thief", 4, stones={1: "r", 2: "", 3: "yy"})
    st, _ = win(st, 0, fg=1)
    expect(st, 0, "thief", "victim", ["seat1", "seat3"])
    st, _ = act(st, 0, choose("seat3"))
    assert stones_of(st, 0) == stones("y") and stones_of(st, 3) == stones("y")
    check(st)


def test_thief_victim_without_stones_gives_a_common_gold() -> None:
    """R15: if the victim has no stone, a Common Gold."""
    st = make("thief", coins={1: "cg3"})
    st, events = auction(st, {0: bid(3), 1: bid(2)})
    assert st.players[0].common_gold == 3 and st.players[1].common_gold == 2
    assert of(events, "steal")[0]["coin"] == "common_gold"
    bidding(st, "wizard")
    check(st)


def test_thief_victim_without_stones_or_common_gold_gives_fairy_gold_for_good() -> None:
    """R15: failing a Common Gold, an unspent Fairy Gold, which changes owner for good (at the end
    of the turn the victim gets back only what he spent; the thief keeps it)."""
    st = make("thief", pile=[], coins={1: "fg5 cg0"})
    st, events = auction(st, {0: bid(3), 1: bid(2)})
    assert of(events, "steal")[0]["coin"] == "fairy_gold"
    assert st.turn == 2  # the Thief was the last card: the turn is over
    assert st.players[1].fairy_gold == 4 and st.players[0].fairy_gold == 9
    check(st)
    check_special_cards(st)


def test_thief_victim_with_nothing_unspent_gives_nothing() -> None:
    """R15: no stone, no Common Gold, no unspent Fairy Gold (spent gold is not taken): nothing."""
    st = make("thief", coins={1: "fg2 cg0"})
    st, events = auction(st, {0: bid(3), 1: bid(2)})
    steal = of(events, "steal")[0]
    assert steal["coin"] is None and steal["victim"] == 1
    assert st.players[0].fairy_gold == 5 and st.players[1].fairy_gold_spent == 2
    bidding(st, "wizard")
    check(st)


def test_thief_seconds_come_from_the_tiebreak() -> None:
    """R12, R15: when the Thief went to a tie-break, the seconds are the other tie-break bidders
    with the highest Silver value below the winner's, not the bidders of the gold auction."""
    st = make("thief", 4, stones={1: "r", 2: "b", 3: "y"})
    st, _ = auction(st, {0: bid(2), 1: bid(2), 2: bid(2), 3: bid(1)})
    assert st.phase == "tiebreak"
    st, _ = act(st, 0, tiebreak(3))
    st, _ = act(st, 1, tiebreak(1))
    st, events = act(st, 2, tiebreak(0))
    assert auto(events, "victim")[0]["option"] == "seat1"
    assert stones_of(st, 0) == stones("r") and stones_of(st, 3) == stones("y")
    check(st)


def test_thief_tiebreak_others_all_bid_nothing_so_all_are_second() -> None:
    """R15: in the tie-break, all other tie-break bidders are second if they all bid nothing."""
    st = make("thief", 4, stones={1: "r", 2: "b", 3: "y"})
    st, _ = auction(st, {0: bid(2), 1: bid(2), 2: bid(2), 3: bid(1)})
    st, _ = act(st, 0, tiebreak(1))
    st, _ = act(st, 1, tiebreak(0))
    st, _ = act(st, 2, tiebreak(0))
    expect(st, 0, "thief", "victim", ["seat1", "seat2"])
    check(st)


# -- Alchemist, Fairy, Gnome, Dwarves, Goldsmith: the gifts -----------------------------------


def test_alchemist_gives_three_common_gold() -> None:
    """R21: Alchemist: 3 Common Gold, no decision."""
    st = make("alchemist")
    st, _ = win(st, 2)
    assert st.players[2].common_gold == 5
    bidding(st, "wizard")
    check(st)


def test_alchemist_from_a_short_bank_gives_what_is_left() -> None:
    """R1: only 1 Common Gold left in the bank."""
    st = make("alchemist", coins={1: "cg7", 2: "cg5"})
    st, events = win(st, 0)
    assert st.players[0].common_gold == 3 and st.bank.common_gold == 0
    assert of(events, "gain")[0]["wanted"] == 3
    check(st)


def test_fairy_gives_a_fairy_gold_usable_at_once_and_kept_for_good() -> None:
    """R21: Fairy: 1 Fairy Gold from the bank, usable at once (in the very next auction) and kept
    for good (it returns behind the screen at the end of the turn like the others)."""
    st = make("fairy", pile=["red_dragon"], coins={0: "fg1"})
    st, _ = win(st, 0, fg=1)
    assert st.players[0].fairy_gold == 1 and st.players[0].fairy_gold_spent == 1
    st, _ = auction(st, {0: bid(1)})
    assert stones_of(st, 0)["red"] == 1
    assert st.turn == 2 and st.players[0].fairy_gold == 2
    check(st)


def test_fairy_from_an_empty_bank_gives_nothing() -> None:
    """R1: every Fairy Gold of the box is behind the screens: the Fairy gives nothing."""
    st = make("fairy", coins={0: "fg20", 1: "fg20", 2: "fg20"})
    assert st.bank.fairy_gold == 0
    st, events = win(st, 0)
    assert st.players[0].fairy_gold + st.players[0].fairy_gold_spent == 20
    assert of(events, "gain")[0]["amount"] == 0
    check(st)


def test_gnome_gives_two_common_gold_and_two_silver() -> None:
    """R21: Gnome: 2 Common Gold and 2 Silver."""
    st = make("gnome")
    st, _ = win(st, 1)
    assert st.players[1].common_gold == 4 and st.players[1].silver == 7
    bidding(st, "wizard")
    check(st)


def test_gnome_from_a_short_bank() -> None:
    """R1: one Common Gold and one Silver left: he gets those."""
    st = make("gnome", coins={1: "cg6 si20", 2: "cg6 si14"})
    st, _ = win(st, 0)
    assert st.players[0].common_gold == 3 and st.players[0].silver == 6
    assert st.bank.common_gold == 0 and st.bank.silver == 0
    check(st)


@pytest.mark.parametrize(("card", "silver"), [("dwarf_4", 4), ("dwarf_5", 5)])
def test_dwarf_gives_four_or_five_silver(card: str, silver: int) -> None:
    """R3, R21: one Dwarf gives 4 Silver, the other 5."""
    st = make(card)
    st, _ = win(st, 0)
    assert st.players[0].silver == 5 + silver
    bidding(st, "wizard")
    check(st)


@pytest.mark.parametrize("card", ["dwarf_4", "dwarf_5"])
def test_dwarf_from_a_short_bank(card: str) -> None:
    """R1: 2 Silver left in the bank."""
    st = make(card, coins={1: "si20", 2: "si13"})
    st, _ = win(st, 0)
    assert st.players[0].silver == 7 and st.bank.silver == 0
    check(st)


def test_goldsmith_gives_an_amulet_that_doubles_a_later_bid() -> None:
    """R21, R9: Goldsmith: 1 Amulet; bid with gold it doubles the value, then goes to the bank."""
    st = make("goldsmith", pile=["red_dragon"])
    st, _ = win(st, 0)
    assert st.players[0].amulets == 1 and st.bank.amulets == 1
    st, events = auction(st, {0: bid(2, amulet=True), 1: bid(3)})
    assert of(events, "auction_won")[0]["winner"] == 0
    assert st.players[0].amulets == 0 and st.bank.amulets == 2
    check(st)


def test_goldsmith_with_no_amulet_in_the_bank_gives_nothing() -> None:
    """R1: both Amulets are held: nothing."""
    st = make("goldsmith", coins={1: "am1", 2: "am1"})
    st, events = win(st, 0)
    assert st.players[0].amulets == 0
    assert of(events, "gain")[0]["amount"] == 0
    bidding(st, "wizard")
    check(st)


# -- Ancient Dragon ---------------------------------------------------------------------------


def test_ancient_dragon_takes_the_stone_of_his_choice() -> None:
    """R21: Ancient Dragon: one stone of the winner's choice from the bank."""
    st = make("ancient_dragon")
    st, _ = win(st, 0)
    p = expect(st, 0, "ancient_dragon", "colour", ["red", "blue", "yellow"], "stone")
    assert option(p, "yellow")["colour"] == "yellow"
    st, _ = act(st, 0, choose("yellow"))
    assert stones_of(st, 0) == stones("y") and st.bank.stones == [12, 12, 11]
    bidding(st, "wizard")
    check(st)


def test_ancient_dragon_offers_only_colours_the_bank_has() -> None:
    """R14: a colour the bank lacks cannot be taken, so it is not offered."""
    st = make("ancient_dragon", stones={1: "r12"})
    st, _ = win(st, 0)
    expect(st, 0, "ancient_dragon", "colour", ["blue", "yellow"])
    check(st)


def test_ancient_dragon_single_colour_in_the_bank_is_taken_at_once() -> None:
    """R14: a decision with a single option resolves at once."""
    st = make("ancient_dragon", stones={1: "r12", 2: "b12"})
    st, events = win(st, 0)
    assert auto(events, "colour")[0]["option"] == "yellow"
    assert stones_of(st, 0) == stones("y")
    bidding(st, "wizard")
    check(st)


def test_ancient_dragon_with_an_empty_bank_does_nothing() -> None:
    """R1: the bank has no stone: nothing happens."""
    st = make("ancient_dragon", stones={1: "r12 b12", 2: "y12"})
    st, events = win(st, 0)
    assert of(events, "no_effect") and stones_of(st, 0) == stones("")
    bidding(st, "wizard")
    check(st)


# -- Sorcerer's Apprentice --------------------------------------------------------------------


def test_sorcerers_apprentice_pays_two_of_the_chosen_colour_for_one_point() -> None:
    """R21: with two stones of one colour he pays two of one colour (his choice) and scores 1."""
    st = make("sorcerers_apprentice", stones={0: "rrbbby"})
    st, _ = win(st, 0)
    expect(st, 0, "sorcerers_apprentice", "colour", ["red", "blue"], "colour")
    st, _ = act(st, 0, choose("blue"))
    assert stones_of(st, 0) == stones("rrby") and st.players[0].score == 1
    bidding(st, "wizard")
    check(st)


def test_sorcerers_apprentice_single_pair_is_paid_at_once() -> None:
    """R14: one colour with two stones: paid at once (the power is compulsory)."""
    st = make("sorcerers_apprentice", stones={0: "ryy"})
    st, events = win(st, 0)
    assert auto(events, "colour")[0]["option"] == "yellow"
    assert stones_of(st, 0) == stones("r") and st.players[0].score == 1
    check(st)


def test_sorcerers_apprentice_without_a_pair_does_nothing() -> None:
    """R21: otherwise nothing happens."""
    st = make("sorcerers_apprentice", stones={0: "rby"})
    st, events = win(st, 0)
    assert of(events, "no_effect")
    assert stones_of(st, 0) == stones("rby") and st.players[0].score == 0
    bidding(st, "wizard")
    check(st)


# -- Brigand ----------------------------------------------------------------------------------


def test_brigand_takes_all_common_gold_and_silver_of_the_named_player() -> None:
    """R16: the winner names another player, who hands over all Common Gold and Silver. The amounts
    are shown only to those two players; the others see that the Brigand struck."""
    st = make("brigand", coins={2: "cg3 si7 fg4 am1"})
    st, _ = win(st, 0)
    p = expect(st, 0, "brigand", "victim", ["seat1", "seat2"], "rob")
    assert option(p, "seat2")["seat"] == 2
    st, events = act(st, 0, choose("seat2"))
    assert (st.players[0].common_gold, st.players[0].silver) == (5, 12)
    assert (st.players[2].common_gold, st.players[2].silver) == (0, 0)
    assert st.players[2].fairy_gold == 4 and st.players[2].amulets == 1  # not taken
    haul = of(events, "brigand_haul")[0]
    assert haul["private_to"] == [0, 2] and (haul["common_gold"], haul["silver"]) == (3, 7)
    for seat in (None, 1):
        seen = engine.visible_events(events, seat)
        assert of(seen, "brigand") and not of(seen, "brigand_haul")
        public = of(seen, "brigand")[0]
        assert "Silver" not in public["text"] and "silver" not in public
    for seat in (0, 2):
        assert of(engine.visible_events(events, seat), "brigand_haul")
    bidding(st, "wizard")
    check(st)


def test_brigand_on_a_player_with_nothing_takes_nothing() -> None:
    """R16: a victim with no Common Gold and no Silver hands over nothing."""
    st = make("brigand", coins={1: "cg0 si0"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("seat1"))
    assert (st.players[0].common_gold, st.players[0].silver) == (2, 5)
    check(st)


# -- Quack Wizard -----------------------------------------------------------------------------


def test_quack_wizard_pays_all_stones_for_one_point() -> None:
    """R21: Quack Wizard: pay all stones, score 1; no decision."""
    st = make("quack_wizard", stones={0: "rrbyyy"})
    st, events = win(st, 0)
    assert stones_of(st, 0) == stones("") and st.players[0].score == 1
    assert st.bank.stones == [12, 12, 12]
    assert of(events, "pay_stones")
    bidding(st, "wizard")
    check(st)


def test_quack_wizard_without_stones_scores_for_free() -> None:
    """R21: free if he has no stone."""
    st = make("quack_wizard")
    st, events = win(st, 0)
    assert st.players[0].score == 1 and not of(events, "pay_stones")
    check(st)


def test_quack_wizard_third_point_wins() -> None:
    """R7: the Quack Wizard's point can win the game."""
    st = make("quack_wizard", stones={0: "b"}, scores={0: 2, 1: 2})
    st, _ = win(st, 0)
    assert engine.winner(st) == 0 and engine.view(st, None)["winner"] == 0
    assert stones_of(st, 0) == stones("")
    check(st)


# -- Two-headed Dragon ------------------------------------------------------------------------


def test_two_headed_dragon_draws_two_of_a_bag_of_two_per_colour() -> None:
    """R20: up to 2 stones of each colour go into the bag; the winner draws 2 at random; the rest
    returns to the bank. Over many seeds: always 2 stones, never more than 2 of a colour, and
    several outcomes occur."""
    outcomes = set()
    for seed in range(30):
        st = make("two_headed_dragon", seed=seed)
        st, events = win(st, 0)
        got = stones_of(st, 0)
        assert sum(got.values()) == 2 and max(got.values()) <= 2
        assert of(events, "draw")[0]["stones"] == got
        assert st.bag is None
        outcomes.add(tuple(got.values()))
        bidding(st, "wizard")
        check(st)
    assert len(outcomes) >= 3


def test_two_headed_dragon_bag_holds_at_most_two_of_a_colour() -> None:
    """R20: the bank holds only red stones (12): the bag holds 2 red, he draws both; 10 stay."""
    st = make("two_headed_dragon", stones={1: "b12", 2: "y12"})
    st, _ = win(st, 0)
    assert stones_of(st, 0) == stones("rr") and st.bank.stones == [10, 0, 0]
    check(st)


def test_two_headed_dragon_with_two_blue_in_bank_never_gives_more() -> None:
    """R20: bank = 12 red, 1 blue: the bag is 2 red + 1 blue, so he never draws 2 blue or a
    yellow; both mixes occur over seeds."""
    seen = set()
    for seed in range(30):
        st = make("two_headed_dragon", seed=seed, stones={1: "b11", 2: "y12"})
        st, _ = win(st, 0)
        got = stones_of(st, 0)
        assert got in (stones("rr"), stones("rb")), got
        seen.add(tuple(got.values()))
        check(st)
    assert len(seen) == 2


def test_two_headed_dragon_draws_from_the_bag_not_from_the_whole_bank() -> None:
    """R20: bank = 12 red and 1 blue. The bag is 2 red + 1 blue, so two reds come out with
    probability 1/3 (from the whole bank it would be 11/13, from 3 red + 1 blue 1/2): over 200
    seeds the frequency must be near 1/3."""
    base = make("two_headed_dragon", stones={1: "b11", 2: "y12"})
    two_red = 0
    for seed in range(200):
        st = base.clone()
        st.rng = engine.new_game(3, seed).rng
        st, _ = win(st, 0)
        two_red += stones_of(st, 0) == stones("rr")
        check(st)
    assert 45 <= two_red <= 85, two_red


def test_two_headed_dragon_bag_with_fewer_than_two_stones() -> None:
    """R20: fewer if the bag holds fewer: one blue stone in the bank, one stone drawn."""
    st = make("two_headed_dragon", stones={1: "r12 b11", 2: "y12"})
    st, _ = win(st, 0)
    assert stones_of(st, 0) == stones("b") and st.bank.stones == [0, 0, 0]
    check(st)


def test_two_headed_dragon_with_an_empty_bank_gives_nothing() -> None:
    """R1, R20: nothing in the bank, nothing drawn."""
    st = make("two_headed_dragon", stones={1: "r12 b12", 2: "y12"})
    st, _ = win(st, 0)
    assert stones_of(st, 0) == stones("")
    bidding(st, "wizard")
    check(st)


# -- Rainbow Dragon ---------------------------------------------------------------------------


def rainbow(seed: int = 1, **kw: Any) -> GameState:
    """Seat 0 has won the Rainbow Dragon; the bank (12 each, less what players hold) is in the bag."""
    st = make("rainbow_dragon", seed=seed, **kw)
    st, _ = win(st, 0)
    return st


def test_rainbow_dragon_bank_goes_into_a_public_bag_and_a_present_colour_is_named() -> None:
    """R19: all bank stones go into the bag; the winner names a colour present in the bag; the
    bag's content by colour is public (every seat and spectators see it)."""
    st = rainbow(stones={1: "b12", 2: "y5"})
    assert st.bank.stones == [0, 0, 0] and st.bag == [12, 0, 7]
    p = expect(st, 0, "rainbow_dragon", "colour", ["red", "yellow"], "colour")
    assert option(p, "red")["colour"] == "red"
    for seat in (None, 0, 1, 2):
        assert engine.view(st, seat)["bag"] == {"red": 12, "blue": 0, "yellow": 7}
    check(st)


def test_rainbow_dragon_first_draw_is_compulsory() -> None:
    """R19: naming the colour draws the first stone at once; there is no way to stop before it."""
    st = rainbow()
    st, events = act(st, 0, choose("red"))
    draws = of(events, "rainbow_draw")
    assert len(draws) == 1
    assert st.players[0].stones != [0, 0, 0] or draws[0]["failed"]
    check(st)


def test_rainbow_dragon_stop_keeps_the_drawn_stones() -> None:
    """R19: he draws one at a time, stopping when he wishes and keeping what he drew. While he
    draws, the drawn stones count as his public stones and the bag's counts are public."""

    def first_draw_is_safe(seed: int) -> bool:
        st = rainbow(seed)
        st, _ = act(st, 0, choose("red"))
        return st.question is not None

    seed = seed_where(first_draw_is_safe)
    st = rainbow(seed)
    st, _ = act(st, 0, choose("red"))
    expect(st, 0, "rainbow_dragon", "draw", ["draw", "stop"], "draw")
    drawn = stones_of(st, 0)
    assert drawn["red"] == 0 and sum(drawn.values()) == 1
    public = engine.view(st, None)
    assert public["players"][0]["stones"] == drawn
    assert sum(public["bag"].values()) == 35 and public["bag"]["red"] == 12
    assert public["rainbow"] == {"seat": 0, "colour": "red", "drawn": drawn}
    check(st)
    st, events = act(st, 0, choose("stop"))
    assert stones_of(st, 0) == drawn
    assert st.bag is None and engine.view(st, None)["bag"] is None
    assert sum(st.bank.stones) == 35
    assert of(events, "rainbow_end")[0]["stones"] == drawn
    bidding(st, "wizard")
    check(st)


def test_rainbow_dragon_drawing_the_named_colour_returns_every_drawn_stone() -> None:
    """R19: drawing the named colour ends it and he returns all he drew; the bag goes back to the
    bank. The failed draw is public."""

    def safe_then_fail(seed: int) -> bool:
        st = rainbow(seed, stones={0: "rby"})
        st, _ = act(st, 0, choose("yellow"))
        if st.question is None:
            return False
        st, events = act(st, 0, choose("draw"))
        return st.question is None and of(events, "rainbow_draw")[0]["failed"]

    seed = seed_where(safe_then_fail)
    st = rainbow(seed, stones={0: "rby"})
    st, _ = act(st, 0, choose("yellow"))
    st, events = act(st, 0, choose("draw"))
    (draw,) = of(events, "rainbow_draw")
    assert draw["failed"] and draw["stone"] == "yellow"
    assert stones_of(st, 0) == stones("rby")
    assert st.bag is None and st.bank.stones == [11, 11, 11]
    bidding(st, "wizard")
    check(st)


def test_rainbow_dragon_failure_event_says_what_was_lost() -> None:
    """R19, R25: each draw is public, and so is the outcome. When he draws the named colour after
    keeping some stones in front of him, the closing event must report the stones he gave back,
    not "no stones"."""

    def safe_then_fail(seed: int) -> bool:
        st = rainbow(seed)
        st, _ = act(st, 0, choose("blue"))
        if st.question is None:
            return False
        st, events = act(st, 0, choose("draw"))
        return st.question is None and of(events, "rainbow_draw")[0]["failed"]

    seed = seed_where(safe_then_fail)
    st = rainbow(seed)
    st, _ = act(st, 0, choose("blue"))
    lost = stones_of(st, 0)
    st, events = act(st, 0, choose("draw"))
    (end,) = of(events, "rainbow_end")
    check(st)
    assert end["stones"] == lost, end
    assert "no stones" not in engine.render_event(end, []), end


def test_rainbow_dragon_single_colour_is_named_at_once_and_drawn() -> None:
    """R14, R19: only red in the bank, so red is named at once; the compulsory first draw is red,
    so he fails and the stone returns to the bank."""
    st = rainbow(stones={1: "b12", 2: "y12"})
    assert st.question is None
    bidding(st, "wizard")
    assert stones_of(st, 0) == stones("") and st.bank.stones == [12, 0, 0]
    check(st)


def test_rainbow_dragon_with_an_empty_bank_does_nothing() -> None:
    """R1, R19: no stone in the bank, nothing to draw."""
    st = rainbow(stones={1: "r12 b12", 2: "y12"})
    bidding(st, "wizard")
    assert st.bag is None
    check(st)


def test_rainbow_dragon_draws_until_he_stops() -> None:
    """R19: after each safe draw he is asked again, with the bag's counts updated each time."""

    def three_safe(seed: int) -> bool:
        st = rainbow(seed, stones={1: "b12", 2: "y6"})
        st, _ = act(st, 0, choose("yellow"))
        for _ in range(2):
            if st.question is None:
                return False
            st, _ = act(st, 0, choose("draw"))
        return st.question is not None

    seed = seed_where(three_safe)
    st = rainbow(seed, stones={1: "b12", 2: "y6"})
    st, _ = act(st, 0, choose("yellow"))
    for n in (1, 2):
        assert engine.view(st, 2)["bag"] == {"red": 12 - n, "blue": 0, "yellow": 6}
        st, _ = act(st, 0, choose("draw"))
    assert stones_of(st, 0) == stones("rrr")
    st, _ = act(st, 0, choose("stop"))
    assert stones_of(st, 0) == stones("rrr") and st.bank.stones == [9, 0, 6]
    check(st)


# -- Enchantress ------------------------------------------------------------------------------


def test_enchantress_pays_any_five_stones_for_two_points() -> None:
    """R21: Enchantress: pay any 5 stones (his choice) for 2 points, or take 1 Fairy Gold."""
    st = make("enchantress", stones={0: "rrrbby"})
    st, _ = win(st, 0)
    expect(st, 0, "enchantress", "option", ["pay", "fairy_gold"], "enchantress")
    st, _ = act(st, 0, choose("pay"))
    expect(
        st,
        0,
        "enchantress",
        "stones",
        ["red3-blue2", "red3-blue1-yellow1", "red2-blue2-yellow1"],
        "5 stones",
    )
    st, _ = act(st, 0, choose("red2-blue2-yellow1"))
    assert stones_of(st, 0) == stones("r") and st.players[0].score == 2
    bidding(st, "wizard")
    check(st)


def test_enchantress_take_one_fairy_gold() -> None:
    """R21: the other option: 1 Fairy Gold, kept for good."""
    st = make("enchantress", stones={0: "rrrbby"})
    st, _ = win(st, 0, fg=2)
    st, _ = act(st, 0, choose("fairy_gold"))
    assert st.players[0].fairy_gold == 7 and st.players[0].score == 0
    check(st)


def test_enchantress_without_five_stones_takes_fairy_gold_at_once() -> None:
    """R14: paying 5 is not offered with 4 stones; the Fairy Gold is taken at once."""
    st = make("enchantress", stones={0: "rrbb"})
    st, events = win(st, 0)
    assert auto(events, "option")[0]["option"] == "fairy_gold"
    assert st.players[0].fairy_gold == 8
    bidding(st, "wizard")
    check(st)


def test_enchantress_with_no_fairy_gold_in_the_bank() -> None:
    """R1: the Fairy Gold option gives nothing when the bank has none."""
    st = make("enchantress", coins={0: "fg20", 1: "fg20", 2: "fg20"})
    st, events = win(st, 0)
    assert st.players[0].fairy_gold == 19
    assert of(events, "gain")[0]["amount"] == 0
    check(st)


# -- Merchant ---------------------------------------------------------------------------------


def merchant_options(st: GameState, colours: str, coins: list[str]) -> list[str]:
    return [f"{c}:{coin}" for c in colours.split() for coin in coins] + ["done"]


def test_merchant_buys_stones_one_at_a_time_with_each_kind_of_coin() -> None:
    """R17: any number of stones, one at a time, each paid with one Common Gold, one unspent Fairy
    Gold (gone for good) or 3 Silver; asked again after each purchase; he stops with "done"."""
    st = make("merchant", coins={0: "fg3 cg1 si6"})
    st, _ = win(st, 0, fg=1)
    all_coins = ["common_gold", "fairy_gold", "silver"]
    p = expect(st, 0, "merchant", "buy", merchant_options(st, "red blue yellow", all_coins), "buy")
    red_silver = option(p, "red:silver")
    assert (red_silver["colour"], red_silver["coin"], red_silver["price"]) == ("red", "silver", 3)
    bank = (st.bank.fairy_gold, st.bank.common_gold, st.bank.silver)
    st, _ = act(st, 0, choose("red:common_gold"))
    expect(
        st, 0, "merchant", "buy", merchant_options(st, "red blue yellow", ["fairy_gold", "silver"])
    )
    st, _ = act(st, 0, choose("blue:fairy_gold"))
    st, _ = act(st, 0, choose("yellow:silver"))
    st, _ = act(st, 0, choose("yellow:silver"))
    expect(st, 0, "merchant", "buy", merchant_options(st, "red blue yellow", ["fairy_gold"]))
    st, events = act(st, 0, choose("done"))
    assert stones_of(st, 0) == stones("rbyy")
    p0 = st.players[0]
    assert (p0.fairy_gold, p0.common_gold, p0.silver) == (1, 0, 0)
    assert (st.bank.fairy_gold, st.bank.common_gold, st.bank.silver) == (
        bank[0] + 1,
        bank[1] + 1,
        bank[2] + 6,
    )
    assert not of(events, "buy")
    bidding(st, "wizard")
    check(st)


def test_merchant_fairy_gold_paid_is_gone_for_good() -> None:
    """R17: Fairy Gold paid to the Merchant does not come back at the end of the turn."""
    st = make("merchant", pile=[])
    st, _ = win(st, 0, fg=2)
    st, _ = act(st, 0, choose("red:fairy_gold"))
    st, _ = act(st, 0, choose("done"))
    assert st.turn == 2 and st.players[0].fairy_gold == 7
    check(st)
    check_special_cards(st)


def test_merchant_done_at_once_buys_nothing() -> None:
    """R17: he may stop before buying anything."""
    st = make("merchant")
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("done"))
    assert stones_of(st, 0) == stones("") and st.players[0].common_gold == 2
    bidding(st, "wizard")
    check(st)


def test_merchant_with_nothing_to_pay_with_is_still_asked() -> None:
    """R17, R25, P11: no Common Gold, no unspent Fairy Gold, under 3 Silver: only "done", but
    asked all the same, so the table does not learn what his screen lacks."""
    st = make("merchant", coins={0: "fg1 cg0 si2"})
    st, events = win(st, 0, fg=1)
    assert not auto(events, "buy")
    expect(st, 0, "merchant", "buy", ["done"])
    st, _ = act(st, 0, choose("done"))
    bidding(st, "wizard")
    check(st)


def test_merchant_offers_only_colours_in_the_bank_and_stops_when_it_runs_out() -> None:
    """R17, R14, P11: a stone the bank lacks is not offered; the last blue stone bought, blue is gone;
    with no stone left in the (public) bank the power ends at once."""
    st = make("merchant", stones={1: "r12 b11", 2: "y12"}, coins={0: "cg2 si0 fg0"})
    st, _ = auction(st, {0: bid(0, 1)})
    expect(st, 0, "merchant", "buy", ["blue:common_gold", "done"])
    st, events = act(st, 0, choose("blue:common_gold"))
    assert not auto(events, "buy")
    assert stones_of(st, 0) == stones("b") and st.players[0].common_gold == 0
    bidding(st, "wizard")
    check(st)


# -- Necromancer ------------------------------------------------------------------------------


def test_necromancer_gives_up_the_fairy_gold_bid_for_one_point() -> None:
    """R18: optional; used, the Fairy Gold he spent in this auction goes to the bank for good (the
    Common Gold of the bid is already there) and he scores 1."""
    st = make("necromancer", pile=[])
    st, _ = auction(st, {0: bid(3, 1), 1: bid(2)})
    p = expect(st, 0, "necromancer", "use", ["use", "decline"], "3 fairy gold")
    assert option(p, "use")["fairy_gold"] == 3
    bank_fg = st.bank.fairy_gold
    st, events = act(st, 0, choose("use"))
    assert st.players[0].score == 1
    assert of(events, "necromancer")[0]["fairy_gold"] == 3
    assert st.turn == 2  # the end of the turn: only the other 5 come back
    assert st.players[0].fairy_gold == 5 and st.bank.fairy_gold == bank_fg + 3
    assert st.players[1].fairy_gold == 8
    check(st)


def test_necromancer_declined_keeps_the_fairy_gold() -> None:
    """R18: the Necromancer is the one optional power; declined, the Fairy Gold returns at the end
    of the turn and nothing is scored."""
    st = make("necromancer", pile=[])
    st, _ = win(st, 0, fg=3)
    st, events = act(st, 0, choose("decline"))
    assert of(events, "necromancer_declined") and st.players[0].score == 0
    assert st.turn == 2 and st.players[0].fairy_gold == 8
    check(st)


def test_necromancer_won_in_a_tiebreak_gives_up_only_the_gold_bid() -> None:
    """R12, R18: won through a tie-break, the Silver bid is already in the bank; the Fairy Gold of
    the gold bid is what he gives up."""
    st = make("necromancer")
    st, _ = auction(st, {0: bid(2), 1: bid(2)})
    st, _ = act(st, 0, tiebreak(2))
    st, _ = act(st, 1, tiebreak(1))
    expect(st, 0, "necromancer", "use", ["use", "decline"])
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].fairy_gold_spent == 0 and st.players[0].silver == 3
    assert st.players[0].score == 1
    check(st)


def test_necromancer_third_point_wins() -> None:
    """R7, R18."""
    st = make("necromancer", scores={0: 2})
    st, _ = win(st, 0, fg=1)
    st, _ = act(st, 0, choose("use"))
    assert engine.winner(st) == 0 and engine.prompts(st) == []
    check(st)


# -- Troll ------------------------------------------------------------------------------------


def test_troll_every_player_including_the_winner_returns_the_named_colour() -> None:
    """R21: the winner names any colour; every player, the winner too, returns all stones of it."""
    st = make("troll", 4, stones={0: "rrb", 1: "ry", 2: "rrr", 3: "byy"})
    st, _ = win(st, 0)
    p = expect(st, 0, "troll", "colour", ["red", "blue", "yellow"], "colour")
    assert option(p, "red")["colour"] == "red"
    st, events = act(st, 0, choose("red"))
    assert [stones_of(st, s) for s in range(4)] == [
        stones("b"),
        stones("y"),
        stones(""),
        stones("byy"),
    ]
    assert st.bank.stones[0] == 12 and of(events, "troll")[0]["returned"] == [2, 1, 3, 0]
    bidding(st, "wizard")
    check(st)


def test_troll_may_name_a_colour_nobody_holds() -> None:
    """R21, project ruling P8: "any colour": yellow is offered though nobody holds one."""
    st = make("troll", stones={0: "r", 1: "b"})
    st, _ = win(st, 1)
    expect(st, 1, "troll", "colour", ["red", "blue", "yellow"])
    st, _ = act(st, 1, choose("yellow"))
    assert stones_of(st, 0) == stones("r") and stones_of(st, 1) == stones("b")
    check(st)


# -- Imp --------------------------------------------------------------------------------------


def test_imp_picks_a_card_not_yet_auctioned_and_uses_its_power() -> None:
    """R23: the winner picks a card from those not yet auctioned this turn and uses its power; it
    counts as auctioned (R5: not revealed again), the rest of the pile goes on."""
    pile = ["wizard", "red_dragon", "fairy", "thief"]
    st = make("imp", pile=pile, specials=["imp", "fairy"])
    st, _ = win(st, 0)
    p = expect(st, 0, "imp", "card", ["fairy", "red_dragon", "thief", "wizard"], "imp")
    assert option(p, "red_dragon")["card"] == "red_dragon"
    st, events = act(st, 0, choose("red_dragon"))
    assert stones_of(st, 0) == stones("r")
    assert of(events, "copy")[0]["via"] == "imp"
    assert [(r.card, r.via) for r in st.records[-2:]] == [("imp", "auction"), ("red_dragon", "imp")]
    assert engine.view(st, None)["turn_cards"][-1]["via"] == "imp"
    seen = [st.card]
    assert st.phase == "bid"
    check(st)
    while st.turn == 1:
        st, _ = auction(st, {})
        seen.append(st.card)
    assert sorted(seen[:-1]) == ["fairy", "thief", "wizard"]


def test_imp_picked_card_asks_its_own_decisions() -> None:
    """R23: the picked card's power is used by the Imp's winner, with its own prompts."""
    st = make(
        "imp", pile=["magician", "blue_dragon"], specials=["imp", "fairy"], stones={1: "rrbb"}
    )
    st, _ = win(st, 1)
    st, _ = act(st, 1, choose("magician"))
    expect(st, 1, "magician", "option", ["pay", "silver"])
    st, _ = act(st, 1, choose("pay"))
    assert st.players[1].score == 1
    bidding(st, "blue_dragon")
    check(st)


def test_imp_reshuffles_the_remaining_cards() -> None:
    """R23: the remaining cards are reshuffled after the pick (so the Imp's winner, who saw no
    order, learns none either): over seeds, the remaining order is not always kept."""
    changed = 0
    for seed in range(12):
        st = make(
            "imp",
            seed=seed,
            pile=["wizard", "thief", "sorcerer", "magician", "blue_dragon", "red_dragon"],
            specials=["imp", "fairy"],
        )
        st, _ = win(st, 0)
        rng_before = st.rng
        st, _ = act(st, 0, choose("sorcerer"))
        # the next card was popped from the pile: rebuild the full remaining order
        remaining = [*st.pile, st.card]
        assert sorted(remaining) == ["blue_dragon", "magician", "red_dragon", "thief", "wizard"]
        assert st.rng != rng_before
        changed += remaining != ["wizard", "thief", "magician", "blue_dragon", "red_dragon"]
        check(st)
    assert changed >= 6


def test_imp_with_one_card_left_takes_it_at_once() -> None:
    """R14, R23: one card not yet auctioned: it is the only option, taken at once."""
    st = make("imp", pile=["gnome"], specials=["imp", "gnome"])
    st, events = win(st, 0)
    assert auto(events, "card")[0]["option"] == "gnome"
    assert st.players[0].common_gold == 4 and st.players[0].silver == 7
    assert st.turn == 2  # the gnome counted as auctioned: the turn is over
    check(st)
    check_special_cards(st)


def test_imp_as_the_last_card_of_the_turn_does_nothing() -> None:
    """R23: the Imp does nothing when it is the last card of the turn."""
    st = make("imp", pile=[], specials=["imp", "fairy"])
    st, events = win(st, 0)
    assert of(events, "no_effect") and st.turn == 2
    check(st)


def test_imp_picking_the_necromancer_looks_at_the_imps_auction() -> None:
    """R23 with R18, project ruling P14 (as R22 says for the Ghost): a Necromancer reached through
    the Imp gives up the Fairy Gold bid in the Imp's auction."""
    st = make("imp", pile=["necromancer", "wizard"], specials=["imp", "necromancer"])
    st, _ = win(st, 2, fg=4)
    st, _ = act(st, 2, choose("necromancer"))
    p = expect(st, 2, "necromancer", "use", ["use", "decline"], "4")
    assert option(p, "use")["fairy_gold"] == 4
    st, _ = act(st, 2, choose("use"))
    assert st.players[2].fairy_gold_spent == 0 and st.players[2].score == 1
    check(st)


# -- Goblin -----------------------------------------------------------------------------------


def test_goblin_draws_a_random_card_and_uses_its_power() -> None:
    """R23: the same as the Imp, with a card drawn at random (no prompt for the pick); over seeds
    every card comes up."""
    seen: Counter[str] = Counter()
    for seed in range(30):
        st = make(
            "goblin",
            seed=seed,
            pile=["red_dragon", "blue_dragon", "yellow_dragon"],
            specials=["goblin", "fairy"],
        )
        st, events = win(st, 0)
        (copy,) = of(events, "copy")
        assert copy["via"] == "goblin"
        colour = copy["card"].split("_")[0]
        assert stones_of(st, 0) == {c: int(c == colour) for c in COLOURS}
        assert copy["card"] not in [*st.pile, st.card]
        assert st.records[-1].card == copy["card"] and st.records[-1].via == "goblin"
        bidding(st, st.card)
        check(st)
        seen[colour] += 1
    assert set(seen) == set(COLOURS)


def test_goblin_drawn_card_asks_the_goblins_winner() -> None:
    """R23: a card with a decision drawn by the Goblin asks the Goblin's winner."""
    st = make("goblin", pile=["troll"], specials=["goblin", "troll"], stones={1: "rb"})
    st, _ = win(st, 1)
    expect(st, 1, "troll", "colour", ["red", "blue", "yellow"])
    st, _ = act(st, 1, choose("blue"))
    assert stones_of(st, 1) == stones("r")
    check(st)


def test_goblin_as_the_last_card_of_the_turn_does_nothing() -> None:
    """R23: either does nothing when it is the last card of the turn."""
    st = make("goblin", pile=[], specials=["goblin", "fairy"])
    st, events = win(st, 0)
    assert of(events, "no_effect") and st.turn == 2
    check(st)
    check_special_cards(st)


# -- Ghost ------------------------------------------------------------------------------------


def ghost_state(records: list[Record], **kw: Any) -> GameState:
    kw.setdefault("specials", ["ghost", "fairy"])
    return make("ghost", records=[Record("witch", bids={}), *records], **kw)


def test_ghost_offers_every_card_auctioned_this_turn_but_itself() -> None:
    """R22: any character already auctioned this turn, the Witch, cursed and unbid ones included,
    not the Ghost itself and not the cards still in the pile."""
    records = [
        Record("red_dragon", bids={0: Bid(black_magic=True)}, cursed=True),
        Record("blue_dragon", bids={0: Bid(), 1: Bid(), 2: Bid()}),
        Record("thief", bids={1: Bid(2)}, winner=1),
    ]
    st = ghost_state(records, pile=["wizard", "sorcerer"])
    st, _ = win(st, 0)
    p = expect(st, 0, "ghost", "card", ["witch", "red_dragon", "blue_dragon", "thief"], "ghost")
    assert option(p, "thief")["card"] == "thief"
    check(st)


def test_ghost_copies_the_witch() -> None:
    """R22 (rules: a second Black Magic coin is used when the Ghost copies the Witch)."""
    st = ghost_state([Record("red_dragon", bids={0: Bid(1)}, winner=0)])
    st, _ = win(st, 1)
    st, events = act(st, 1, choose("witch"))
    assert st.players[1].black_magic == 1
    assert of(events, "copy")[0]["card"] == "witch" and of(events, "copy")[0]["via"] == "ghost"
    bidding(st, "wizard")
    check(st)


def test_ghost_copies_a_cursed_card() -> None:
    """R22: a cursed card can be copied; its power works for the Ghost's winner."""
    st = ghost_state([Record("red_dragon", bids={0: Bid(1, black_magic=True)}, cursed=True)])
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("red_dragon"))
    assert stones_of(st, 0) == stones("r")
    check(st)


def test_ghost_copies_a_card_nobody_bid_for() -> None:
    """R22: an unbid card can be copied."""
    st = ghost_state(
        [Record("alchemist", bids={0: Bid(), 1: Bid(), 2: Bid()})], specials=["ghost", "alchemist"]
    )
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("alchemist"))
    assert st.players[0].common_gold == 5
    check(st)


def test_ghost_copied_power_asks_with_the_copied_character() -> None:
    """R22, contract: the prompt of a copied power carries the copied card's id."""
    st = ghost_state([Record("sorcerer", bids={1: Bid(1)}, winner=1)], stones={0: "r4 b4"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("sorcerer"))
    expect(st, 0, "sorcerer", "option", ["pay", "common_gold"])
    st, _ = act(st, 0, choose("pay"))
    expect(st, 0, "sorcerer", "colour", ["red", "blue"])
    st, _ = act(st, 0, choose("red"))
    assert st.players[0].score == 2 and stones_of(st, 0) == stones("bbbb")
    check(st)


def test_ghost_copies_a_special_with_a_choice() -> None:
    """R22: any kind, special ones included (here the Ancient Dragon)."""
    st = ghost_state(
        [Record("ancient_dragon", bids={2: Bid(1)}, winner=2)], specials=["ghost", "ancient_dragon"]
    )
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("ancient_dragon"))
    expect(st, 0, "ancient_dragon", "colour", ["red", "blue", "yellow"])
    st, _ = act(st, 0, choose("blue"))
    assert stones_of(st, 0) == stones("b")
    check(st)


def test_ghost_copied_thief_robs_the_second_of_the_ghosts_auction() -> None:
    """R22, R15: a copied Thief looks at the Ghost's auction: the second there is robbed, not the
    second of the Thief's own auction."""
    thief = Record("thief", bids={0: Bid(1), 1: Bid(5), 2: Bid(3)}, winner=1)
    st = ghost_state([thief], stones={1: "r", 2: "y"})
    st, _ = auction(st, {0: bid(4), 1: bid(3), 2: bid(1)})
    st, events = act(st, 0, choose("thief"))
    assert auto(events, "victim")[0]["option"] == "seat1"
    assert stones_of(st, 0) == stones("r") and stones_of(st, 2) == stones("y")
    check(st)


def test_ghost_copied_thief_after_a_tiebreak_uses_the_tiebreak() -> None:
    """R22, R15: the Ghost's auction went to a tie-break: its seconds are the tie-break's."""
    st = ghost_state(
        [Record("thief", bids={0: Bid(1)}, winner=0)], players=4, stones={1: "r", 2: "b", 3: "y"}
    )
    st, _ = auction(st, {0: bid(2), 1: bid(2), 3: bid(2), 2: bid(1)})
    st, _ = act(st, 0, tiebreak(0))
    st, _ = act(st, 1, tiebreak(1, amulet=False))
    st, _ = act(st, 3, tiebreak(2))
    assert st.records[-1].winner == 3
    st, events = act(st, 3, choose("thief"))
    assert auto(events, "victim")[0]["option"] == "seat1"
    assert stones_of(st, 3) == stones("yr")
    check(st)


def test_ghost_copied_necromancer_gives_up_the_ghost_bid() -> None:
    """R22, R18: a copied Necromancer looks at the Ghost's auction: the Fairy Gold he bid for the
    Ghost goes to the bank for good and he scores 1."""
    necro = Record("necromancer", bids={1: Bid(5)}, winner=1)
    st = ghost_state([necro], specials=["ghost", "necromancer"], coins={1: "fg3 sp5"})
    st, _ = win(st, 0, fg=2)
    st, _ = act(st, 0, choose("necromancer"))
    p = expect(st, 0, "necromancer", "use", ["use", "decline"], "2")
    assert option(p, "use")["fairy_gold"] == 2
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].fairy_gold_spent == 0 and st.players[0].score == 1
    assert st.players[1].fairy_gold_spent == 5  # the Necromancer's own winner is untouched
    check(st)


def test_ghost_copies_the_doppelganger_when_nobody_holds_it() -> None:
    """R22: copying the Doppelganger gives the card when no player holds it (here it went unbid)."""
    dop = Record("doppelganger", bids={0: Bid(), 1: Bid(), 2: Bid()})
    st = ghost_state([dop], specials=["ghost", "doppelganger"], pile=[])
    st, events = win(st, 2)
    st, events = act(st, 2, choose("doppelganger"))
    assert of(events, "doppelganger_taken")
    assert st.turn == 2 and st.doppelganger == 2
    assert engine.view(st, None)["players"][2]["has_doppelganger"]
    assert "doppelganger" not in st.used_specials + st.special_deck
    check(st)
    check_special_cards(st)


def test_ghost_copying_the_doppelganger_someone_holds_does_nothing() -> None:
    """R22: otherwise nothing: the holder keeps it."""
    dop = Record("doppelganger", bids={1: Bid(2)}, winner=1)
    st = ghost_state([dop], specials=["ghost", "doppelganger"], doppelganger=1)
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("doppelganger"))
    assert of(events, "no_effect") and st.doppelganger == 1
    bidding(st, "wizard")
    check(st)


def test_ghost_copies_the_imp_which_picks_from_the_pile() -> None:
    """R22, R23: a copied Imp picks a card not yet auctioned; it counts as auctioned."""
    imp = Record("imp", bids={1: Bid(1)}, winner=1)
    st = ghost_state([imp], specials=["ghost", "imp"], pile=["wizard", "red_dragon"])
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("imp"))
    expect(st, 0, "imp", "card", ["red_dragon", "wizard"])
    st, _ = act(st, 0, choose("red_dragon"))
    assert stones_of(st, 0) == stones("r") and st.records[-1].via == "imp"
    bidding(st, "wizard")
    check(st)


def test_ghost_copies_the_goblin_which_draws_from_the_pile() -> None:
    """R22, R23: a copied Goblin draws a random card not yet auctioned."""
    gob = Record("goblin", bids={1: Bid(1)}, winner=1)
    st = ghost_state([gob], specials=["ghost", "goblin"], pile=["gnome"])
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("goblin"))
    assert [e["via"] for e in of(events, "copy")] == ["ghost", "goblin"]
    assert st.players[0].common_gold == 4 and st.turn == 2
    check(st)


def test_ghost_copying_the_imp_as_the_last_card_does_nothing() -> None:
    """R22, R23: the pile is empty after the Ghost, so the copied Imp has nothing to pick."""
    imp = Record("imp", bids={1: Bid(1)}, winner=1)
    st = ghost_state([imp], specials=["ghost", "imp"], pile=[])
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("imp"))
    assert of(events, "no_effect") and st.turn == 2
    check(st)


# -- Doppelganger -----------------------------------------------------------------------------


def test_doppelganger_winner_keeps_it_face_up_across_turns() -> None:
    """R24, R6: its winner keeps it face up (public), and a won Doppelganger stays with its holder
    at the end of the turn instead of going to the used pile."""
    st = make("doppelganger", pile=[], specials=["doppelganger", "fairy"])
    st, events = win(st, 1)
    assert of(events, "doppelganger_taken")
    assert st.turn == 2 and st.doppelganger == 1
    view = engine.view(st, None)
    assert [p["has_doppelganger"] for p in view["players"]] == [False, True, False]
    assert view["doppelganger"] == 1 and "doppelganger" not in view["used_specials"]
    check(st)
    check_special_cards(st)


def test_doppelganger_is_offered_right_after_winning_a_later_auction() -> None:
    """R24: after winning a later auction, before the power resolves, the holder is asked whether
    to play it; kept, the power is used once and he still holds it."""
    st = make("red_dragon", doppelganger=0)
    st, _ = win(st, 0)
    p = expect(st, 0, "red_dragon", "play_doppelganger", ["play", "keep"], "doppelganger")
    assert stones_of(st, 0) == stones("")  # before the power resolves
    assert p["question"]
    st, _ = act(st, 0, choose("keep"))
    assert stones_of(st, 0) == stones("r") and st.doppelganger == 0
    bidding(st, "wizard")
    check(st)


def test_doppelganger_played_uses_the_power_twice_then_goes_to_the_used_pile() -> None:
    """R24: played, the power is used twice in a row; the card goes to the used specials (and only
    once there at the end of the turn)."""
    st = make("red_dragon", pile=[], doppelganger=0)
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("play"))
    assert of(events, "doppelganger_played")
    assert len(of(events, "gain")) == 2
    assert stones_of(st, 0) == stones("rr") and st.doppelganger is None
    assert st.turn == 2
    assert st.used_specials.count("doppelganger") == 1
    assert not engine.view(st, None)["players"][0]["has_doppelganger"]
    check(st)
    check_special_cards(st)


def test_doppelganger_won_and_played_in_the_same_turn_is_used_once() -> None:
    """R24, R6: won this turn, played later this turn: it ends in the used pile exactly once."""
    st = make("doppelganger", pile=["blue_dragon"], specials=["doppelganger", "fairy"])
    st, _ = win(st, 0)
    assert st.doppelganger == 0
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    assert stones_of(st, 0) == stones("bb") and st.turn == 2
    assert st.used_specials.count("doppelganger") == 1
    check(st)
    check_special_cards(st)


def test_doppelganger_is_not_offered_to_another_winner() -> None:
    """R24: only its holder may play it."""
    st = make("red_dragon", doppelganger=1)
    st, _ = win(st, 0)
    bidding(st, "wizard")
    assert stones_of(st, 0) == stones("r") and st.doppelganger == 1
    check(st)


def test_doppelganger_is_not_offered_on_a_cursed_card() -> None:
    """R24, R10: not a cursed auction: there is no power to double."""
    st = make("red_dragon", doppelganger=0, coins={1: "bm1"})
    st, _ = auction(st, {0: bid(3), 1: bid(black_magic=True)})
    bidding(st, "wizard")
    assert stones_of(st, 0) == stones("") and st.doppelganger == 0
    check(st)


def test_doppelganger_is_not_offered_on_the_necromancer() -> None:
    """R24 (rules: the Doppelganger cannot be played on the Necromancer)."""
    st = make("necromancer", doppelganger=0)
    st, _ = win(st, 0, fg=2)
    expect(st, 0, "necromancer", "use", ["use", "decline"])
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.doppelganger == 0
    check(st)


def test_doppelganger_is_offered_after_a_tiebreak_win() -> None:
    """R24: any auction won, a tie-break included."""
    st = make("blue_dragon", doppelganger=1)
    st, _ = auction(st, {0: bid(2), 1: bid(2)})
    st, _ = act(st, 0, tiebreak(0))
    st, _ = act(st, 1, tiebreak(1))
    expect(st, 1, "blue_dragon", "play_doppelganger", ["play", "keep"])
    check(st)


def test_doppelganger_double_witch_gives_two_black_magic_coins() -> None:
    """R24: the second use of the Witch gives another Black Magic coin."""
    st = make("witch", records=[], doppelganger=2)
    st, _ = win(st, 2)
    st, _ = act(st, 2, choose("play"))
    assert st.players[2].black_magic == 2
    bidding(st, "wizard")
    check(st)


def test_doppelganger_each_use_makes_its_own_choices() -> None:
    """R24: each use makes its own choices: two Ancient Dragon stones of different colours."""
    st = make("ancient_dragon", doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    expect(st, 0, "ancient_dragon", "colour", ["red", "blue", "yellow"])
    st, _ = act(st, 0, choose("red"))
    expect(st, 0, "ancient_dragon", "colour", ["red", "blue", "yellow"])
    st, _ = act(st, 0, choose("yellow"))
    assert stones_of(st, 0) == stones("ry")
    bidding(st, "wizard")
    check(st)


def test_doppelganger_second_use_sees_the_first_uses_result() -> None:
    """R24, R14: the Magician paid with the first use; with one stone left the second use can only
    take Silver, at once."""
    st = make("magician", stones={0: "r4 b"}, doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    expect(st, 0, "magician", "option", ["pay", "silver"])
    st, _ = act(st, 0, choose("pay"))
    expect(st, 0, "magician", "stones", ["red4", "red3-blue1"])
    st, events = act(st, 0, choose("red3-blue1"))
    assert auto(events, "option")[0]["option"] == "silver"
    assert stones_of(st, 0) == stones("r") and st.players[0].score == 1
    assert st.players[0].silver == 8
    bidding(st, "wizard")
    check(st)


def test_doppelganger_double_quack_wizard_second_use_scores_the_free_point() -> None:
    """R24: a second Quack Wizard with no stones left scores the free point."""
    st = make("quack_wizard", stones={0: "rby"}, doppelganger=0)
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("play"))
    assert st.players[0].score == 2 and stones_of(st, 0) == stones("")
    assert len(of(events, "pay_stones")) == 1 and len(of(events, "score")) == 2
    check(st)


def test_doppelganger_third_point_between_the_two_uses_ends_the_game() -> None:
    """R7: the game ends at once, even between the two uses of a Doppelganger."""
    st = make("wizard", pile=["thief"], stones={0: "rrbbyy"}, scores={0: 2}, doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    st, events = act(st, 0, choose("pay"))
    assert engine.winner(st) == 0 and engine.prompts(st) == []
    assert stones_of(st, 0) == stones("rby") and st.players[0].score == 3
    assert len(of(events, "score")) == 1
    check(st)


def test_doppelganger_double_ghost_picks_and_uses_two_cards() -> None:
    """R24: a doubled Ghost picks and uses a card twice, each pick its own."""
    records = [
        Record("red_dragon", bids={1: Bid(1)}, winner=1),
        Record("alchemist", bids={1: Bid(1)}, winner=1),
    ]
    st = ghost_state(records, specials=["ghost", "alchemist"], doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    expect(st, 0, "ghost", "card", ["witch", "red_dragon", "alchemist"])
    st, _ = act(st, 0, choose("red_dragon"))
    expect(st, 0, "ghost", "card", ["witch", "red_dragon", "alchemist"])
    st, _ = act(st, 0, choose("alchemist"))
    assert stones_of(st, 0) == stones("r") and st.players[0].common_gold == 5
    bidding(st, "wizard")
    check(st)


def test_doppelganger_double_ghost_on_the_necromancer_gives_up_the_bid_once() -> None:
    """R24: a second Necromancer use within one auction does nothing (the bid is already given
    up); the Doppelganger was played on the Ghost, not on the Necromancer."""
    necro = Record("necromancer", bids={1: Bid(1)}, winner=1)
    st = ghost_state([necro], specials=["ghost", "necromancer"], doppelganger=0)
    st, _ = win(st, 0, fg=3)
    st, _ = act(st, 0, choose("play"))
    st, _ = act(st, 0, choose("necromancer"))
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.players[0].fairy_gold_spent == 0
    st, events = act(st, 0, choose("necromancer"))
    assert of(events, "no_effect") and st.players[0].score == 1
    bidding(st, "wizard")
    check(st)


def test_doppelganger_double_imp_takes_two_cards() -> None:
    """R24: a second Imp takes another card; both count as auctioned."""
    st = make(
        "imp",
        pile=["wizard", "red_dragon", "blue_dragon"],
        specials=["imp", "fairy"],
        doppelganger=0,
    )
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    expect(st, 0, "imp", "card", ["blue_dragon", "red_dragon", "wizard"])
    st, _ = act(st, 0, choose("red_dragon"))
    expect(st, 0, "imp", "card", ["blue_dragon", "wizard"])
    st, _ = act(st, 0, choose("blue_dragon"))
    assert stones_of(st, 0) == stones("rb")
    assert [r.via for r in st.records[-2:]] == ["imp", "imp"]
    bidding(st, "wizard")
    check(st)


def test_doppelganger_double_imp_with_one_card_left_second_takes_nothing() -> None:
    """R24: the second Imp takes nothing if no card is left."""
    st = make("imp", pile=["red_dragon"], specials=["imp", "fairy"], doppelganger=0)
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("play"))
    assert auto(events, "card")[0]["option"] == "red_dragon"
    assert len(of(events, "no_effect")) == 1
    assert stones_of(st, 0) == stones("r") and st.turn == 2
    check(st)
    check_special_cards(st)


def test_doppelganger_double_goblin_draws_two_cards() -> None:
    """R24: a second Goblin draws another card."""
    st = make(
        "goblin", pile=["red_dragon", "blue_dragon"], specials=["goblin", "fairy"], doppelganger=0
    )
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("play"))
    assert sorted(e["card"] for e in of(events, "copy")) == ["blue_dragon", "red_dragon"]
    assert stones_of(st, 0) == stones("rb") and st.turn == 2
    check(st)


def test_doppelganger_is_not_offered_for_a_card_reached_through_the_imp() -> None:
    """R24: never a card reached through a Ghost, Imp or Goblin: kept on the Imp, it is not
    offered again for the picked card."""
    st = make("imp", pile=["red_dragon", "wizard"], specials=["imp", "fairy"], doppelganger=0)
    st, _ = win(st, 0)
    expect(st, 0, "imp", "play_doppelganger", ["play", "keep"])
    st, _ = act(st, 0, choose("keep"))
    st, _ = act(st, 0, choose("red_dragon"))
    bidding(st, "wizard")
    assert stones_of(st, 0) == stones("r") and st.doppelganger == 0
    check(st)


def test_doppelganger_is_not_offered_for_a_card_reached_through_the_ghost() -> None:
    """R24: kept on the Ghost, it is not offered for the copied card."""
    st = ghost_state([Record("red_dragon", bids={1: Bid(1)}, winner=1)], doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("keep"))
    st, _ = act(st, 0, choose("red_dragon"))
    bidding(st, "wizard")
    assert stones_of(st, 0) == stones("r")
    check(st)


def test_doppelganger_double_rainbow_dragon_refills_the_bag() -> None:
    """R24, R19: the second use is a whole new Rainbow Dragon: the bank (with what the first use
    returned) goes into the bag again and a colour is named again."""
    st = make("rainbow_dragon", stones={1: "b12", 2: "y12"}, doppelganger=0)
    st, _ = win(st, 0)
    st, events = act(st, 0, choose("play"))
    # only red in the bank: each use names red at once and fails on the first draw
    assert len(auto(events, "colour")) == 2
    assert len([e for e in of(events, "rainbow_draw") if e["failed"]]) == 2
    assert st.bank.stones == [12, 0, 0] and st.bag is None
    bidding(st, "wizard")
    check(st)


def test_doppelganger_double_thief_robs_twice() -> None:
    """R24, R15: two uses of the Thief, each with its own victim choice."""
    st = make("thief", 4, stones={1: "r", 2: "b", 3: "y"}, doppelganger=0)
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    expect(st, 0, "thief", "victim", ["seat1", "seat2", "seat3"])
    st, _ = act(st, 0, choose("seat3"))
    expect(st, 0, "thief", "victim", ["seat1", "seat2"])
    st, _ = act(st, 0, choose("seat1"))
    assert stones_of(st, 0) == stones("ry")
    check(st)


def test_doppelganger_double_merchant_shops_twice() -> None:
    """R24, R17: the second Merchant use opens a new round of purchases after "done"."""
    st = make("merchant", doppelganger=0, coins={0: "cg2 fg1 si0"})
    st, _ = win(st, 0, fg=1)
    st, _ = act(st, 0, choose("play"))
    st, _ = act(st, 0, choose("red:common_gold"))
    st, _ = act(st, 0, choose("done"))
    expect(
        st,
        0,
        "merchant",
        "buy",
        ["red:common_gold", "blue:common_gold", "yellow:common_gold", "done"],
    )
    st, _ = act(st, 0, choose("blue:common_gold"))
    assert stones_of(st, 0) == stones("rb")
    expect(st, 0, "merchant", "buy", ["done"])  # out of coins, yet asked (P11)
    st, _ = act(st, 0, choose("done"))
    bidding(st, "wizard")
    check(st)


def test_every_card_has_a_named_scenario() -> None:
    """The test file names a scenario for every card of the game."""
    names = " ".join(name for name in globals() if name.startswith("test_"))
    for card in CARDS:
        key = {
            "red_dragon": "dragon",
            "blue_dragon": "dragon",
            "yellow_dragon": "dragon",
            "dwarf_4": "dwarf",
            "dwarf_5": "dwarf",
        }.get(card, card)
        assert f"test_{key}_" in names, card


# -- Every kind through the Ghost, the Imp and the Goblin: twins of a direct win ---------------

TWIN_BIDS = {0: bid(3), 1: bid(2), 2: bid(1)}


def twin_stones(card: str) -> dict[int, str]:
    """Stones that give every power something to choose; for the bag dragons, a bank of red
    stones only, so that their draws do not depend on the generator."""
    if card in ("two_headed_dragon", "rainbow_dragon"):
        return {0: "rr", 1: "b12", 2: "y12"}
    return {0: "rrbbyyy", 1: "rby", 2: "rr"}


def resolve(st: GameState, seat: int) -> GameState:
    """Answer every prompt of `seat` with its first option until the bidding resumes."""
    for _ in range(60):
        prompts = engine.prompts(st)
        if not prompts or prompts[0]["kind"] != "choose":
            return st
        assert prompts[0]["seat"] == seat
        st, _ = act(st, seat, choose(prompts[0]["options"][0]["id"]))
    raise AssertionError("the power never finished")


def holdings(st: GameState) -> tuple[Any, ...]:
    """Everything a power can change: every player's score, stones and coins, the bank, the
    Doppelganger's holder."""
    b = st.bank
    return (
        tuple(
            (
                p.score,
                tuple(p.stones),
                p.fairy_gold + p.fairy_gold_spent,
                p.common_gold,
                p.silver,
                p.amulets,
                p.black_magic,
            )
            for p in st.players
        ),
        (b.fairy_gold, b.common_gold, b.silver, b.amulets, tuple(b.stones)),
        st.doppelganger,
    )


def direct(card: str, pile: list[str]) -> GameState:
    """Seat 0 wins `card` itself and resolves it (first option every time)."""
    specials = None if not CARDS[card].special else [card, "gnome" if card == "fairy" else "fairy"]
    st = make(
        card,
        pile=pile,
        specials=specials,
        stones=twin_stones(card),
        records=[] if card == "witch" else None,
    )
    st, _ = auction(st, TWIN_BIDS)
    return resolve(st, 0)


@pytest.mark.parametrize("card", [c for c in CARDS if c != "ghost"])
def test_ghost_copies_every_kind_as_if_won_in_the_ghosts_auction(card: str) -> None:
    """R22: the Ghost's winner uses the copied card's power as if he had won it in the Ghost's
    auction: with the same bids and the same choices, the outcome is the same as winning it."""
    specials = ["ghost", card] if CARDS[card].special else ["ghost", "fairy"]
    records = [Record("witch", bids={})]
    if card != "witch":
        records.append(Record(card, bids={1: Bid(1)}, winner=1))
    st = make(
        "ghost", pile=["wizard"], specials=specials, stones=twin_stones(card), records=records
    )
    st, events = auction(st, TWIN_BIDS)
    if card == "witch":  # the only card auctioned before: copied at once (R14)
        assert auto(events, "card")[0]["option"] == "witch"
    else:
        st, events = act(st, 0, choose(card))
    assert of(events, "copy")[0]["card"] == card
    st = resolve(st, 0)
    check(st)
    assert holdings(st) == holdings(direct(card, ["wizard"]))


@pytest.mark.parametrize("card", [c for c in CARDS if c not in ("witch", "imp")])
def test_imp_uses_every_kind_as_if_won(card: str) -> None:
    """R23, P14: the Imp's winner uses the picked card's power as if he had won it (a Thief or a
    Necromancer looks at the Imp's auction); same bids, same choices, same outcome."""
    specials = ["imp", card] if CARDS[card].special else ["imp", "fairy"]
    filler = "sorcerer" if card == "wizard" else "wizard"
    st = make("imp", pile=[card, filler], specials=specials, stones=twin_stones(card))
    st, _ = auction(st, TWIN_BIDS)
    st, events = act(st, 0, choose(card))
    assert of(events, "copy")[0]["card"] == card
    st = resolve(st, 0)
    check(st)
    assert holdings(st) == holdings(direct(card, [filler]))


@pytest.mark.parametrize("card", [c for c in CARDS if c not in ("witch", "goblin")])
def test_goblin_uses_every_kind_as_if_won(card: str) -> None:
    """R23, P14: the Goblin draws the only card left and its winner uses it as if he had won it
    (a Thief or a Necromancer looks at the Goblin's auction)."""
    specials = ["goblin", card] if CARDS[card].special else ["goblin", "fairy"]
    st = make("goblin", pile=[card], specials=specials, stones=twin_stones(card))
    st, events = auction(st, TWIN_BIDS)
    assert of(events, "copy")[0]["card"] == card
    st = resolve(st, 0)
    check(st)
    assert holdings(st) == holdings(direct(card, []))


# -- More interplay ---------------------------------------------------------------------------


def test_imp_picking_the_doppelganger_gives_it_to_the_imps_winner() -> None:
    """R23, R24, R6: the Doppelganger taken through the Imp is kept by the Imp's winner and stays
    with him at the end of the turn."""
    st = make("imp", pile=["doppelganger"], specials=["imp", "doppelganger"])
    st, events = win(st, 1)
    assert of(events, "doppelganger_taken") and st.doppelganger == 1 and st.turn == 2
    check(st)
    check_special_cards(st)


def test_goblin_drawing_the_imp_lets_the_goblins_winner_pick() -> None:
    """R23: a Goblin that draws the Imp: the Imp's pick is the Goblin winner's choice."""

    def goblin(seed: int) -> GameState:
        return make(
            "goblin", seed=seed, pile=["imp", "red_dragon", "wizard"], specials=["goblin", "imp"]
        )

    seed = seed_where(lambda s: of(win(goblin(s), 2)[1], "copy")[0]["card"] == "imp")
    st, _ = win(goblin(seed), 2)
    expect(st, 2, "imp", "card", ["red_dragon", "wizard"])
    st, _ = act(st, 2, choose("red_dragon"))
    assert stones_of(st, 2) == stones("r")
    assert [r.via for r in st.records[-2:]] == ["goblin", "imp"]
    bidding(st, "wizard")
    check(st)


def test_ghost_may_copy_a_card_taken_by_the_goblin() -> None:
    """R22, R23: a card drawn by the Goblin counts as auctioned, so the Ghost may copy it."""
    records = [Record("goblin", bids={1: Bid(1)}, winner=1), Record("gnome", via="goblin")]
    st = ghost_state(records, specials=["ghost", "goblin"])
    st, _ = win(st, 0)
    expect(st, 0, "ghost", "card", ["witch", "goblin", "gnome"])
    st, _ = act(st, 0, choose("gnome"))
    assert st.players[0].common_gold == 4 and st.players[0].silver == 7
    check(st)


def test_doppelganger_played_on_the_ghost_is_copied_back_by_that_ghost() -> None:
    """R22, R24: the holder plays the Doppelganger on the Ghost; it lies in the used specials,
    held by nobody, so the first Ghost use copying it gives it back to him; the second use then
    copies another card, and he holds the card into the next turn."""
    records = [
        Record("doppelganger", bids={0: Bid(1)}, winner=0),
        Record("red_dragon", bids={1: Bid(1)}, winner=1),
    ]
    st = ghost_state(records, specials=["ghost", "doppelganger"], doppelganger=0, pile=[])
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("play"))
    assert st.doppelganger is None and "doppelganger" in st.used_specials
    st, events = act(st, 0, choose("doppelganger"))
    assert st.doppelganger == 0 and "doppelganger" not in st.used_specials
    assert not of(events, "no_effect") and of(events, "doppelganger_taken")
    st, _ = act(st, 0, choose("red_dragon"))
    assert stones_of(st, 0) == stones("r") and st.turn == 2 and st.doppelganger == 0
    check(st)
    check_special_cards(st)


def test_doppelganger_double_ghost_necromancer_declined_then_asked_again() -> None:
    """R24, project ruling P15: the second Necromancer use does nothing only if the bid was
    already given up; after a first "decline", the second use asks again."""
    necro = Record("necromancer", bids={1: Bid(1)}, winner=1)
    st = ghost_state([necro], specials=["ghost", "necromancer"], doppelganger=0)
    st, _ = win(st, 0, fg=2)
    st, _ = act(st, 0, choose("play"))
    st, _ = act(st, 0, choose("necromancer"))
    st, _ = act(st, 0, choose("decline"))
    st, _ = act(st, 0, choose("necromancer"))
    expect(st, 0, "necromancer", "use", ["use", "decline"])
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.players[0].fairy_gold_spent == 0
    check(st)


def test_doppelganger_not_offered_on_a_cursed_ghost_so_no_copy_either() -> None:
    """R10, R24: a cursed Ghost: no power, no Doppelganger offer, no copy."""
    st = ghost_state(
        [Record("red_dragon", bids={1: Bid(1)}, winner=1)], doppelganger=0, coins={2: "bm1"}
    )
    st, events = auction(st, {0: bid(2), 2: bid(black_magic=True)})
    assert of(events, "cursed") and not of(events, "copy")
    bidding(st, "wizard")
    check(st)


def test_rainbow_dragon_may_draw_on_when_only_the_named_colour_is_left() -> None:
    """R19, P5 (engine's choice): stopping is always allowed, and so is drawing, even when the bag
    holds only the named colour (a certain failure)."""

    def safe(seed: int) -> bool:
        st = rainbow(seed, stones={1: "b12", 2: "y11"})
        st, _ = act(st, 0, choose("yellow"))
        return st.question is not None

    st = rainbow(seed_where(safe), stones={1: "b12", 2: "y11"})
    assert st.bag == [12, 0, 1]
    st, _ = act(st, 0, choose("yellow"))
    # 12 red and 1 yellow: the first draw was red
    for _ in range(11):
        if st.question is None:
            break
        st, _ = act(st, 0, choose("draw"))
    if st.question is not None:  # every red drawn: only the yellow is left
        assert st.bag == [0, 0, 1]
        expect(st, 0, "rainbow_dragon", "draw", ["draw", "stop"])
        st, events = act(st, 0, choose("draw"))
        assert of(events, "rainbow_draw")[0]["failed"]
    assert stones_of(st, 0) == stones("")
    check(st)


# -- Choices the rules forbid are refused, and change nothing ----------------------------------


def refused(st: GameState, seat: int, option_id: str, code: str = "unknown_option") -> None:
    """Contract: an illegal action raises IllegalAction with a stable code; nothing changes."""
    before = engine.dumps(st)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(st, seat, choose(option_id))
    assert info.value.code == code
    assert engine.dumps(st) == before


def test_thief_refuses_a_victim_who_is_not_second() -> None:
    """R15: only a second bidder may be robbed, and not the winner himself."""
    st = make("thief", 4, stones={1: "r", 2: "b", 3: "y"})
    st, _ = auction(st, {0: bid(3), 1: bid(2), 2: bid(2), 3: bid(1)})
    for victim in ("seat3", "seat0", "seat9", "red"):
        refused(st, 0, victim)
    refused(st, 1, "seat1", "not_your_turn")
    check(st)


def test_thief_refuses_a_stone_the_victim_lacks() -> None:
    """R15: the stone is one the victim has."""
    st = make("thief", stones={1: "rr"})
    st, events = auction(st, {0: bid(3), 1: bid(2)})
    assert auto(events, "stone")[0]["option"] == "red"  # one colour only: taken at once
    st = make("thief", stones={1: "rb"})
    st, _ = auction(st, {0: bid(3), 1: bid(2)})
    refused(st, 0, "yellow")
    check(st)


def test_brigand_refuses_to_rob_himself() -> None:
    """R16: the winner names another player."""
    st = make("brigand")
    st, _ = win(st, 1)
    refused(st, 1, "seat1")
    check(st)


def test_ghost_refuses_itself_and_cards_not_yet_auctioned() -> None:
    """R22: not the Ghost itself, not a card still in the pile."""
    st = ghost_state([Record("red_dragon", bids={1: Bid(1)}, winner=1)], pile=["wizard"])
    st, _ = win(st, 0)
    for card in ("ghost", "wizard", "blue_dragon"):
        refused(st, 0, card)
    check(st)


def test_imp_refuses_a_card_already_auctioned() -> None:
    """R23: only a card not yet auctioned this turn."""
    st = make("imp", pile=["wizard", "thief"], specials=["imp", "fairy"])
    st, _ = win(st, 0)
    for card in ("witch", "imp", "red_dragon"):
        refused(st, 0, card)
    check(st)


def test_rainbow_dragon_refuses_a_colour_absent_from_the_bag() -> None:
    """R19 (rules: a colour absent from the bank cannot be named)."""
    st = rainbow(stones={1: "b12"})
    refused(st, 0, "blue")
    check(st)


def test_merchant_refuses_a_purchase_he_cannot_pay() -> None:
    """R17: each stone is paid with a coin he holds: with 2 Silver and no gold, nothing but done."""
    st = make("merchant", coins={0: "fg2 cg1 si2"}, stones={1: "r12"})
    st, _ = auction(st, {0: bid(2)})
    for bad in ("blue:silver", "red:common_gold", "blue:fairy_gold", "blue:amulets", "blue"):
        refused(st, 0, bad)
    check(st)


def test_sorcerers_apprentice_refuses_a_colour_without_a_pair() -> None:
    """R21: two stones of the colour paid."""
    st = make("sorcerers_apprentice", stones={0: "rrbby"})
    st, _ = win(st, 0)
    refused(st, 0, "yellow")
    check(st)


def test_magician_refuses_a_payment_of_stones_he_does_not_hold() -> None:
    """R4: 4 of his own stones."""
    st = make("magician", stones={0: "rrbby"})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("pay"))
    for bad in ("red4", "red2-blue1", "yellow2-red2", "pay"):
        refused(st, 0, bad)
    check(st)


def test_doppelganger_is_offered_even_when_the_power_will_do_nothing() -> None:
    """R24, project ruling P16: the Imp is the last card, so it will do nothing; the holder is
    still asked, and a Doppelganger played on it is spent."""
    st = make("imp", pile=[], specials=["imp", "fairy"], doppelganger=0)
    st, _ = win(st, 0)
    expect(st, 0, "imp", "play_doppelganger", ["play", "keep"])
    st, events = act(st, 0, choose("play"))
    assert len(of(events, "no_effect")) == 2
    assert st.turn == 2 and st.doppelganger is None
    assert st.used_specials.count("doppelganger") == 1
    check(st)
    check_special_cards(st)


def test_sorcerer_from_two_points_scores_four_and_wins() -> None:
    """R7, project ruling P18: scores can pass 3; it is still an immediate win."""
    st = make("sorcerer", stones={0: "b4"}, scores={0: 2})
    st, _ = win(st, 0)
    st, _ = act(st, 0, choose("pay"))
    assert st.players[0].score == 4 and engine.winner(st) == 0 and engine.prompts(st) == []
    check(st)
