"""Named scenario tests for every ruling R1-R25 (docs/rules.md, "The rulings R1-R25").

Each test names the ruling it pins. States are made for the purpose with `tests/engine/builder.py`
(`build(...)` describes a state in one line); where a rule involves a random draw, the test either
builds a bag whose outcome is forced, or runs the same scenario over many generator states and
checks the rule on every outcome (and that every branch was reached), never one lucky seed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest

import engine
from engine import rng
from engine.cards import CARDS, SPECIAL_DECK, STANDARD_PILE
from engine.state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    BOX_STONES_PER_COLOUR,
    GameState,
)
from tests.engine.builder import (
    Bid,
    Record,
    TieBid,
    act,
    auction,
    bid,
    build,
    choose,
    options,
    stones_of,
    tiebreak,
    won,
)

Events = list[dict[str, Any]]


# -- small helpers local to these tests ---------------------------------------------------------


def coins(st: GameState, seat: int) -> dict[str, int]:
    p = st.players[seat]
    return {
        "fg": p.fairy_gold,
        "cg": p.common_gold,
        "si": p.silver,
        "am": p.amulets,
        "bm": p.black_magic,
        "sp": p.fairy_gold_spent,
    }


def bank(st: GameState) -> dict[str, Any]:
    b = st.bank
    return {
        "fg": b.fairy_gold,
        "cg": b.common_gold,
        "si": b.silver,
        "am": b.amulets,
        "stones": b.stones[:],
    }


def types(events: Events) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: Events, type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


def choose_seq(st: GameState, seat: int, *option_ids: str) -> tuple[GameState, Events]:
    """The seat answers several choose prompts in a row."""
    events: Events = []
    for option in option_ids:
        st, ev = act(st, seat, choose(option))
        events += ev
    return st, events


def prompt(st: GameState) -> dict[str, Any]:
    (p,) = engine.prompts(st)
    return p


def refused(st: GameState, seat: int, action: Mapping[str, object]) -> str:
    """Apply an action that must be refused: returns its code, checks nothing changed."""
    before = engine.dumps(st)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(st, seat, action)
    assert engine.dumps(st) == before, "a refused action changed the state"
    return info.value.code


def next_auctions(st: GameState, until_turn: int) -> tuple[GameState, list[str], Events]:
    """Everybody bids nothing until the turn `until_turn` starts; returns the cards auctioned."""
    cards: list[str] = []
    events: Events = []
    while st.turn < until_turn:
        assert engine.prompts(st)[0]["kind"] == "bid"
        cards.append(st.card)
        st, ev = auction(st, {})
        events += ev
    return st, cards, events


def box_totals(st: GameState) -> dict[str, int]:
    ps = st.players
    return {
        "fairy_gold": st.bank.fairy_gold + sum(p.fairy_gold + p.fairy_gold_spent for p in ps),
        "common_gold": st.bank.common_gold + sum(p.common_gold for p in ps),
        "silver": st.bank.silver + sum(p.silver for p in ps),
        "amulets": st.bank.amulets + sum(p.amulets for p in ps),
        **{f"stones_{c}": st.bank.stones[c] + sum(p.stones[c] for p in ps) for c in range(3)},
    }


BOX_TOTALS = {
    "fairy_gold": BOX_FAIRY_GOLD,
    "common_gold": BOX_COMMON_GOLD,
    "silver": BOX_SILVER,
    "amulets": BOX_AMULETS,
    **{f"stones_{c}": BOX_STONES_PER_COLOUR for c in range(3)},
}


def with_rng(st: GameState, k: int) -> GameState:
    """The same state with another generator state: the way to try every outcome of a draw."""
    st = st.clone()
    st.rng = rng.initial_state(k)
    return st


# == Components and setup ======================================================================

# -- R1 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r1_three_to_six_players_and_the_box_is_exact(players: int) -> None:
    """R1: 3 to 6 players; every coin and stone of the box is somewhere, none more."""
    st = engine.new_game(players, seed=players)
    assert len(st.players) == players
    assert box_totals(st) == BOX_TOTALS


@pytest.mark.parametrize("players", [0, 1, 2, 7, True, "4"])
def test_r1_other_player_counts_are_refused(players: Any) -> None:
    """R1: fewer than 3 or more than 6 players is not a game."""
    with pytest.raises(engine.IllegalAction) as info:
        engine.new_game(players, seed=1)
    assert info.value.code == "malformed"


def test_r1_short_bank_gives_what_is_left() -> None:
    """R1: the Alchemist gives 3 Common Gold; the bank has 1: the winner gets 1, no error."""
    st = build(3, card="alchemist", coins={0: "cg5", 1: "cg5", 2: "cg4"})
    assert st.bank.common_gold == 1
    st, ev = auction(st, {0: bid(fg=1)})
    assert coins(st, 0)["cg"] == 6
    assert st.bank.common_gold == 0
    (gain,) = of_type(ev, "gain")
    assert gain["amount"] == 1 and gain["wanted"] == 3
    assert engine.prompts(st)[0]["kind"] == "bid"  # nothing else happens: next auction
    assert box_totals(st) == BOX_TOTALS


def test_r1_short_bank_silver_dwarf() -> None:
    """R1: the 5-Silver Dwarf with 3 Silver in the bank gives 3."""
    st = build(3, card="dwarf_5", coins={0: "si12", 1: "si13", 2: "si12"})
    assert st.bank.silver == 3
    st, _ = auction(st, {1: bid(fg=2)})
    assert coins(st, 1)["si"] == 16 and st.bank.silver == 0


def test_r1_empty_bank_gives_nothing_and_nothing_else_happens() -> None:
    """R1: the Goldsmith with both Amulets already out gives nothing; the game goes on."""
    st = build(3, card="goldsmith", coins={1: "am1", 2: "am1"}, pile=["wizard"])
    assert st.bank.amulets == 0
    st, ev = auction(st, {0: bid(fg=1)})
    assert coins(st, 0)["am"] == 0 and st.bank.amulets == 0
    assert [e["amount"] for e in of_type(ev, "gain")] == [0]
    assert st.card == "wizard" and engine.prompts(st)[0]["kind"] == "bid"


def test_r1_dragon_with_no_stone_of_its_colour_in_the_bank() -> None:
    """R1: the Red Dragon when the bank holds no red stone gives nothing."""
    st = build(3, card="red_dragon", bank_stones="b4 y4", pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    assert stones_of(st, 0) == {"red": 0, "blue": 0, "yellow": 0}
    assert st.card == "wizard"


def test_r1_black_magic_is_not_limited_by_the_box() -> None:
    """R1: Black Magic coins are not limited: a third one can be given (two already out)."""
    st = build(3, card="witch", coins={1: "bm1", 2: "bm1"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    assert [coins(st, s)["bm"] for s in range(3)] == [1, 1, 1]


# -- R2 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r2_setup_counts(players: int) -> None:
    """R2: 8 Fairy Gold, 2 Common Gold, 5 Silver, 4 stones each; the rest to the bank; score 0;
    the Witch first; 25 specials shuffled into the deck, 2 of them announced; 9-card pile."""
    st = engine.new_game(players, seed=11 + players)
    for p in st.players:
        assert (p.fairy_gold, p.common_gold, p.silver, p.amulets, p.black_magic) == (8, 2, 5, 0, 0)
        assert p.fairy_gold_spent == 0 and p.score == 0
        assert sum(p.stones) == 4
    assert st.bank.fairy_gold == 60 - 8 * players
    assert st.bank.common_gold == 15 - 2 * players
    assert st.bank.silver == 40 - 5 * players
    assert st.bank.amulets == 2
    assert sum(st.bank.stones) == 36 - 4 * players
    for c in range(3):
        assert st.bank.stones[c] + sum(p.stones[c] for p in st.players) == 12
    # The Witch is set aside and auctioned first; the 7 others and the 2 specials form the pile.
    assert st.card == "witch" and st.phase == "bid" and st.turn == 1
    assert [p["character"] for p in engine.prompts(st)] == ["witch"] * players
    assert len(st.specials) == 2
    assert Counter(st.pile) == Counter(list(STANDARD_PILE) + st.specials)
    assert "witch" not in st.pile
    assert len(st.special_deck) == 23 and st.used_specials == []
    assert Counter(st.special_deck + st.specials) == Counter(SPECIAL_DECK)
    v = engine.view(st, None)
    assert v["specials"] == st.specials and v["pile_count"] == 9 and v["special_deck_count"] == 23


def test_r2_stones_are_drawn_at_random() -> None:
    """R2: the 4 starting stones come from the bag at random: seeds give different draws."""
    draws = {tuple(tuple(p.stones) for p in engine.new_game(4, seed=s).players) for s in range(20)}
    assert len(draws) > 1


def test_r2_special_deck_is_shuffled() -> None:
    """R2: the special deck is shuffled: seeds give different orders."""
    orders = {tuple(engine.new_game(3, seed=s).special_deck) for s in range(10)}
    assert len(orders) > 1


# -- R3 / R4 -----------------------------------------------------------------------------------


def test_r3_card_list() -> None:
    """R3: 8 standard characters; 25 special cards of 19 kinds, with the stated copies."""
    standard = [c for c in CARDS.values() if not c.special]
    assert sorted(c.id for c in standard) == sorted(
        [
            "witch",
            "red_dragon",
            "blue_dragon",
            "yellow_dragon",
            "magician",
            "wizard",
            "sorcerer",
            "thief",
        ]
    )
    assert len(SPECIAL_DECK) == 25
    kinds = Counter(SPECIAL_DECK)
    # The two Dwarfs are one kind (4 or 5 Silver): 19 kinds.
    assert len({k.removesuffix("_4").removesuffix("_5") for k in kinds}) == 19
    assert kinds == Counter(
        {
            "alchemist": 1,
            "ancient_dragon": 2,
            "sorcerers_apprentice": 2,
            "brigand": 1,
            "quack_wizard": 2,
            "doppelganger": 1,
            "two_headed_dragon": 2,
            "rainbow_dragon": 1,
            "enchantress": 1,
            "ghost": 1,
            "fairy": 2,
            "gnome": 1,
            "goblin": 1,
            "imp": 1,
            "merchant": 1,
            "dwarf_4": 1,
            "dwarf_5": 1,
            "necromancer": 1,
            "goldsmith": 1,
            "troll": 1,
        }
    )
    assert set(engine.CHARACTER_IDS) == set(CARDS)


def test_r4_magician_pays_any_four_stones_for_one_point() -> None:
    """R4: Magician = any 4 stones (mixed colours) for 1 point, or 3 Silver."""
    st = build(3, card="magician", stones={0: "rbyy"})
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["pay", "silver"]
    st, _ = act(st, 0, choose("pay"))  # a single way to pay 4 of 4 stones: paid at once
    assert st.players[0].score == 1 and sum(st.players[0].stones) == 0


def test_r4_wizard_pays_one_of_each_colour_for_one_point() -> None:
    """R4: Wizard = one stone of each colour for 1 point, or 3 Silver."""
    st = build(3, card="wizard", stones={0: "rrby"})
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["pay", "silver"]
    st, _ = act(st, 0, choose("pay"))
    assert st.players[0].score == 1 and stones_of(st, 0) == {"red": 1, "blue": 0, "yellow": 0}


def test_r4_wizard_or_magician_take_three_silver() -> None:
    """R4: both the Magician and the Wizard may take 3 Silver instead."""
    for card in ("magician", "wizard"):
        st = build(3, card=card, stones={0: "rrrbby"})
        st, _ = auction(st, {0: bid(fg=1)})
        st, _ = act(st, 0, choose("silver"))
        assert coins(st, 0)["si"] == 8 and st.players[0].score == 0


def test_r4_sorcerer_pays_four_of_one_colour_for_two_points() -> None:
    """R4: Sorcerer = 4 stones of one colour for 2 points, or 1 Common Gold."""
    st = build(3, card="sorcerer", stones={0: "r4 b4 y1"})
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["common_gold", "pay"]
    st, _ = act(st, 0, choose("pay"))
    assert sorted(options(st)) == ["blue", "red"]  # only colours with 4 stones
    st, _ = act(st, 0, choose("blue"))
    assert st.players[0].score == 2 and stones_of(st, 0) == {"red": 4, "blue": 0, "yellow": 1}
    st2 = build(3, card="sorcerer", stones={0: "r4"})
    st2, _ = auction(st2, {0: bid(fg=1)})
    st2, _ = act(st2, 0, choose("common_gold"))
    assert coins(st2, 0)["cg"] == 3 and st2.players[0].score == 0


# == Turn ======================================================================================

# -- R5 ----------------------------------------------------------------------------------------


def test_r5_witch_then_the_nine_cards_once_each() -> None:
    """R5: the Witch is auctioned first, then the 9 cards of the pile (7 standard + the 2
    announced specials) one at a time, each once; then the next turn starts with the Witch."""
    st = engine.new_game(4, seed=5)
    specials = st.specials[:]
    st, cards, events = next_auctions(st, until_turn=2)
    assert cards[0] == "witch"
    assert Counter(cards[1:]) == Counter(list(STANDARD_PILE) + specials)
    assert st.card == "witch" and st.turn == 2
    started = [e["card"] for e in of_type(events, "auction_started")]
    assert started == [*cards[1:], "witch"]  # each card revealed when its auction starts


def test_r5_two_specials_announced_each_turn() -> None:
    """R5: each turn draws 2 specials from the deck and announces them publicly."""
    st = build(3, card="red_dragon", pile=[])
    deck_top = st.special_deck[-2:]
    st, ev = auction(st, {})
    (started,) = of_type(engine.visible_events(ev, None), "turn_started")
    assert sorted(started["specials"]) == sorted(deck_top) == sorted(st.specials)
    assert len(st.special_deck) == len(SPECIAL_DECK) - 4  # 2 of last turn (built) + 2 drawn
    assert Counter(st.pile) == Counter(list(STANDARD_PILE) + st.specials)
    assert engine.view(st, None)["specials"] == st.specials


def test_r5_reshuffle_used_specials_leaving_out_a_held_doppelganger() -> None:
    """R5: the deck is empty: the used specials (the last turn's too) make a new deck, but the
    Doppelganger that seat 1 holds stays with seat 1."""
    rest = list(SPECIAL_DECK)
    for c in ("fairy", "gnome", "doppelganger"):
        rest.remove(c)
    st = build(
        3, card="thief", pile=[], specials=["fairy", "gnome"], doppelganger=1, used_specials=rest
    )
    assert st.special_deck == []
    st, ev = auction(st, {})
    assert "special_deck_reshuffled" in types(ev)
    assert st.turn == 2 and st.doppelganger == 1
    assert "doppelganger" not in st.specials + st.special_deck + st.used_specials
    assert st.used_specials == []
    assert len(st.special_deck) == 22
    assert Counter(st.special_deck + st.specials + ["doppelganger"]) == Counter(SPECIAL_DECK)


def test_r5_reshuffle_when_one_card_is_left() -> None:
    """R5: one card left in the deck: it is drawn first, then the used specials are shuffled
    into a new deck for the second."""
    rest = list(SPECIAL_DECK)
    for c in ("fairy", "gnome", "troll"):
        rest.remove(c)
    st = build(3, card="thief", pile=[], specials=["fairy", "gnome"], used_specials=rest)
    assert st.special_deck == ["troll"]
    st, ev = auction(st, {})
    assert st.specials[0] == "troll"
    assert "special_deck_reshuffled" in types(ev)
    assert len(st.special_deck) == 23 and "troll" not in st.special_deck
    assert Counter(st.special_deck + st.specials) == Counter(SPECIAL_DECK)


def test_r5_imp_taken_card_is_not_auctioned_again() -> None:
    """R5/R23: a card taken by the Imp counts as auctioned and is never revealed again."""
    st = build(
        3, card="imp", pile=["red_dragon", "blue_dragon", "wizard"], specials=["imp", "fairy"]
    )
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["blue_dragon", "red_dragon", "wizard"]
    st, _ = act(st, 0, choose("blue_dragon"))
    assert stones_of(st, 0)["blue"] == 1
    st, cards, events = next_auctions(st, until_turn=2)
    assert sorted(cards) == ["red_dragon", "wizard"]
    assert "blue_dragon" not in [e.get("card") for e in of_type(events, "auction_started")]


def test_r5_goblin_taken_card_is_not_auctioned_again() -> None:
    """R5/R23: a card drawn by the Goblin counts as auctioned and is never revealed again."""
    seen = set()
    for k in range(12):
        st = with_rng(
            build(
                3,
                card="goblin",
                pile=["red_dragon", "blue_dragon", "yellow_dragon"],
                specials=["goblin", "fairy"],
            ),
            k,
        )
        st, ev = auction(st, {0: bid(fg=1)})
        (copy,) = of_type(ev, "copy")
        taken = copy["card"]
        seen.add(taken)
        colour = taken.split("_")[0]
        assert stones_of(st, 0)[colour] == 1  # its power was used by the Goblin's winner
        st, cards, _ = next_auctions(st, until_turn=2)
        assert sorted(cards) == sorted({"red_dragon", "blue_dragon", "yellow_dragon"} - {taken})
    assert len(seen) > 1, "the Goblin's draw is not random"


# -- R6 ----------------------------------------------------------------------------------------


def test_r6_end_of_turn() -> None:
    """R6: at the end of the turn spent Fairy Gold returns behind the screens, unused Black
    Magic goes back, the turn's specials go to the used pile, a held Doppelganger stays."""
    st = build(
        3,
        card="thief",
        pile=[],
        specials=["fairy", "doppelganger"],
        doppelganger=2,
        coins={0: "fg3 sp5 bm1", 1: "fg6 sp2"},
    )
    bank_fg = st.bank.fairy_gold
    st, ev = auction(st, {})
    assert "turn_ended" in types(ev)
    assert coins(st, 0)["fg"] == 8 and coins(st, 0)["sp"] == 0 and coins(st, 0)["bm"] == 0
    assert coins(st, 1)["fg"] == 8 and coins(st, 1)["sp"] == 0
    assert st.bank.fairy_gold == bank_fg
    assert st.used_specials == ["fairy"]
    assert st.doppelganger == 2
    assert st.turn == 2 and st.card == "witch"
    assert engine.view(st, None)["players"][0]["fairy_gold_spent"] == 0


def test_r6_fairy_gold_spent_this_turn_returns_only_at_the_end() -> None:
    """R6/R9: Fairy Gold bid stays in front of the screen (unusable) until the turn ends."""
    st = build(3, card="red_dragon", pile=["blue_dragon"])
    st, _ = auction(st, {0: bid(fg=5)})
    assert coins(st, 0)["fg"] == 3 and coins(st, 0)["sp"] == 5
    assert prompt_for(st, 0)["max"]["fairy_gold"] == 3
    st, _ = auction(st, {0: bid(fg=3)})
    assert st.turn == 2 and coins(st, 0)["fg"] == 8 and coins(st, 0)["sp"] == 0


def test_r6_doppelganger_not_won_goes_to_the_used_pile() -> None:
    """R6: a Doppelganger nobody won this turn goes to the used pile with the other special."""
    st = build(3, card="thief", pile=[], specials=["fairy", "doppelganger"])
    st, _ = auction(st, {})
    assert sorted(st.used_specials) == ["doppelganger", "fairy"] and st.doppelganger is None


def test_r6_no_turn_limit() -> None:
    """R6: there is no turn limit: after many turns of empty bids the game still goes on."""
    st = engine.new_game(3, seed=2)
    st, _, _ = next_auctions(st, until_turn=15)  # more than the special deck lasts (12.5 turns)
    assert st.winner is None and st.turn == 15
    assert engine.prompts(st)[0]["kind"] == "bid"


def prompt_for(st: GameState, seat: int) -> dict[str, Any]:
    (p,) = [p for p in engine.prompts(st) if p["seat"] == seat]
    return p


# -- R7 ----------------------------------------------------------------------------------------


def test_r7_win_between_two_doppelganger_uses() -> None:
    """R7: seat 0 (2 points) doubles the Sorcerer's Apprentice: the first use reaches 3 points
    and the game ends at once; the second use never happens."""
    st = build(
        3,
        card="sorcerers_apprentice",
        stones={0: "rrbb"},
        scores={0: 2},
        doppelganger=0,
        pile=["wizard"],
    )
    st, _ = auction(st, {0: bid(fg=1)})
    assert prompt(st)["step"] == "play_doppelganger"
    st, _ = act(st, 0, choose("play"))
    st, ev = act(st, 0, choose("red"))
    assert engine.winner(st) == 0 and st.players[0].score == 3
    assert stones_of(st, 0) == {"red": 0, "blue": 2, "yellow": 0}  # no second payment
    assert engine.prompts(st) == [] and engine.legal_actions(st, 0) == []
    assert types(ev)[-1] == "game_over"
    assert refused(st, 0, choose("blue")) == "game_over"
    assert engine.view(st, None)["winner"] == 0


def test_r7_win_in_the_middle_of_a_turn() -> None:
    """R7: reaching 3 ends the game at once: the rest of the pile is never auctioned."""
    st = build(
        3, card="quack_wizard", scores={1: 2}, stones={1: "ry"}, pile=["red_dragon", "wizard"]
    )
    st, ev = auction(st, {1: bid(fg=1)})
    assert engine.winner(st) == 1
    assert "auction_started" not in types(ev)
    assert engine.prompts(st) == []
    for seat in range(3):
        assert engine.legal_actions(st, seat) == []
        assert refused(st, seat, bid()) == "game_over"


# == Auctions ==================================================================================

# -- R8 ----------------------------------------------------------------------------------------


def test_r8_empty_bid_is_legal_even_with_no_coins() -> None:
    """R8: an empty bid is legal, also for a player who holds no coin at all."""
    st = build(3, card="red_dragon", coins={2: "fg0 cg0 si0"})
    assert engine.legal_actions(st, 2) == [bid()]
    st2, ev = act(st, 2, bid())
    assert types(ev) == ["bid_submitted"]
    assert 2 in st2.sealed


def test_r8_every_player_must_bid_before_the_reveal() -> None:
    """R8: nothing is revealed until every player has submitted a bid (empty or not)."""
    st = build(4, card="red_dragon")
    for seat in range(3):
        st, ev = act(st, seat, bid(fg=seat + 1))
        assert types(ev) == ["bid_submitted"]
        assert [p["seat"] for p in engine.prompts(st)] == list(range(seat + 1, 4))
    st, ev = act(st, 3, bid())
    assert "bids_revealed" in types(ev)


def test_r8_bids_are_sealed_others_see_only_who_bid() -> None:
    """R8/R25: before the reveal no view or event of another seat shows a bid's content, only
    that it was submitted: the views of seat 1 and of spectators are the same whatever seat 0
    bid, and seat 0 sees its own bid."""
    base = build(3, card="red_dragon", coins={0: "am1 bm1"})
    views = []
    for b in (bid(), bid(fg=5, cg=2, amulet=True, black_magic=True), bid(fg=1)):
        st, ev = act(base, 0, b)
        for seat in (1, 2, None):
            visible = engine.visible_events(ev, seat)
            assert visible == [
                {
                    "type": "bid_submitted",
                    "template": "{seat} has bid.",
                    "text": "Player 1 has bid.",
                    "seat": 0,
                }
            ]
        views.append((engine.view(st, 1), engine.view(st, 2), engine.view(st, None)))
        assert engine.view(st, 1)["auction"]["bids_submitted"] == [0]
        me = engine.view(st, 0)["me"]
        assert me["bid"] == {k: v for k, v in b.items() if k != "type"}
    assert views[0] == views[1] == views[2]


def test_r8_one_bid_per_seat() -> None:
    """R8: a seat's sealed bid is accepted once per auction: a second is `already_submitted`."""
    st = build(3, card="red_dragon")
    st, _ = act(st, 0, bid(fg=1))
    assert refused(st, 0, bid(fg=2)) == "already_submitted"
    assert refused(st, 0, bid()) == "already_submitted"
    assert engine.legal_actions(st, 0) == []


@pytest.mark.parametrize(
    "action",
    [
        bid(fg=9),
        bid(cg=3),
        bid(fg=8, cg=3),
        bid(amulet=True),
        bid(black_magic=True),
        bid(fg=1, amulet=True, black_magic=True),
    ],
)
def test_r8_unaffordable_bid_refused_state_unchanged(action: dict[str, Any]) -> None:
    """R8: a bid of coins the seat does not hold (unspent) is refused; nothing changes."""
    st = build(3, card="red_dragon")
    assert refused(st, 0, action) == "unaffordable"
    assert action not in engine.legal_actions(st, 0)


def test_r8_spent_fairy_gold_cannot_be_bid_again() -> None:
    """R8: only unspent Fairy Gold can be bid: the Fairy Gold in front of the screen cannot."""
    st = build(3, card="red_dragon", coins={0: "fg2 sp6"})
    assert refused(st, 0, bid(fg=3)) == "unaffordable"
    st, _ = act(st, 0, bid(fg=2))


def test_r8_malformed_bids_are_refused() -> None:
    """R8: at most one Amulet and one Black Magic coin: they are yes/no, not counts."""
    st = build(3, card="red_dragon", coins={0: "am2 bm2"})
    for action in (
        bid(fg=-1),
        {**bid(), "amulet": 2},
        {**bid(), "black_magic": 1},
        {**bid(), "silver": 1},
        {"type": "bid"},
    ):
        assert refused(st, 0, action) == "malformed"


def test_r8_all_bids_revealed_at_once_coin_by_coin() -> None:
    """R8: when the last bid is in, every bid is revealed at once, coin by coin, publicly."""
    st = build(3, card="red_dragon", coins={1: "am1"}, pile=["wizard"])
    st, _ = act(st, 0, bid(fg=2, cg=1))
    st, _ = act(st, 1, bid(fg=1, amulet=True))
    st, ev = act(st, 2, bid())
    (revealed,) = of_type(engine.visible_events(ev, None), "bids_revealed")
    assert revealed["bids"] == {
        "0": {"fairy_gold": 2, "common_gold": 1, "amulet": False, "black_magic": False, "value": 3},
        "1": {"fairy_gold": 1, "common_gold": 0, "amulet": True, "black_magic": False, "value": 2},
        "2": {"fairy_gold": 0, "common_gold": 0, "amulet": False, "black_magic": False, "value": 0},
    }
    (record,) = [r for r in engine.view(st, None)["turn_cards"] if r["character"] == "red_dragon"]
    assert record["bids"] == revealed["bids"] and record["winner"] == 0


# -- R9 ----------------------------------------------------------------------------------------


def test_r9_amulet_doubles_the_gold() -> None:
    """R9: 3 Fairy Gold + an Amulet (6) beat 5 Common Gold."""
    st = build(3, card="red_dragon", coins={0: "am1", 1: "cg5"})
    st, ev = auction(st, {0: bid(fg=3, amulet=True), 1: bid(cg=5)})
    (w,) = of_type(ev, "auction_won")
    assert w["winner"] == 0 and w["value"] == 6


def test_r9_amulet_doubles_only_to_a_tie() -> None:
    """R9: 2 Common Gold + an Amulet (4) tie with 4 Fairy Gold: a tie-break follows."""
    st = build(3, card="red_dragon", coins={0: "am1"})
    st, _ = auction(st, {0: bid(cg=2, amulet=True), 1: bid(fg=4)})
    assert st.phase == "tiebreak" and st.tied == [0, 1]


def test_r9_where_the_coins_go() -> None:
    """R9: spent Fairy Gold lies in front of the screen (public) until the end of the turn;
    Common Gold, Amulets and Black-Magic-free losing bids too: all gone, winner or not."""
    st = build(3, card="red_dragon", coins={0: "am1", 1: "am1"}, pile=["wizard"])
    b0 = bank(st)
    st, _ = auction(
        st, {0: bid(fg=3, cg=1, amulet=True), 1: bid(fg=2, cg=2, amulet=True), 2: bid(fg=1)}
    )
    assert coins(st, 0) == {"fg": 5, "cg": 1, "si": 5, "am": 0, "bm": 0, "sp": 3}
    assert coins(st, 1) == {"fg": 6, "cg": 0, "si": 5, "am": 0, "bm": 0, "sp": 2}  # lost
    assert coins(st, 2) == {"fg": 7, "cg": 2, "si": 5, "am": 0, "bm": 0, "sp": 1}
    assert bank(st)["fg"] == b0["fg"]  # Fairy Gold is not the bank's
    assert bank(st)["cg"] == b0["cg"] + 3
    assert bank(st)["am"] == b0["am"] + 2
    assert [p["fairy_gold_spent"] for p in engine.view(st, None)["players"]] == [3, 2, 1]


def test_r9_black_magic_goes_whatever_the_outcome() -> None:
    """R9: a Black Magic coin bid is gone (to the bank) once revealed."""
    st = build(3, card="red_dragon", coins={0: "bm1"})
    st, _ = auction(st, {0: bid(black_magic=True)})
    assert coins(st, 0)["bm"] == 0


# -- R10 ---------------------------------------------------------------------------------------


def test_r10_curse_no_power_bids_spent_no_tiebreak() -> None:
    """R10: a Black Magic coin curses the card: nobody uses the power, every bid is spent, and
    the tie for highest is not broken."""
    st = build(3, card="red_dragon", coins={0: "bm1"}, pile=["wizard"])
    b0 = bank(st)
    st, ev = auction(st, {0: bid(fg=2, black_magic=True), 1: bid(fg=2), 2: bid(cg=1)})
    assert "cursed" in types(ev)
    assert "tiebreak_started" not in types(ev) and "auction_won" not in types(ev)
    assert st.phase == "bid" and st.card == "wizard"
    assert [sum(p.stones) for p in st.players] == [0, 0, 0]
    assert [coins(st, s)["sp"] for s in range(3)] == [2, 2, 0]
    assert coins(st, 0)["bm"] == 0 and coins(st, 2)["cg"] == 1
    assert bank(st)["cg"] == b0["cg"] + 1 and bank(st)["stones"] == b0["stones"]
    (record,) = [r for r in engine.view(st, None)["turn_cards"] if r["character"] == "red_dragon"]
    assert record["cursed"] is True and record["winner"] is None


def test_r10_curse_beats_the_highest_bid() -> None:
    """R10: the curse holds even against a sole highest bidder; any player may curse."""
    st = build(3, card="gnome", coins={2: "bm1"}, pile=["wizard"])
    st, ev = auction(st, {1: bid(fg=6), 2: bid(black_magic=True)})
    assert "cursed" in types(ev) and "auction_won" not in types(ev)
    assert coins(st, 1)["cg"] == 2 and coins(st, 1)["si"] == 5 and coins(st, 1)["sp"] == 6


def test_r10_curse_on_a_card_with_no_gold_bid() -> None:
    """R10: a curse can fall on a card with no gold bid at all."""
    st = build(3, card="red_dragon", coins={1: "bm1"}, pile=["wizard"])
    st, ev = auction(st, {1: bid(black_magic=True)})
    assert "cursed" in types(ev) and "no_winner" not in types(ev)
    assert st.records[-1].cursed is True


def test_r10_cursed_card_is_not_a_doppelganger_win() -> None:
    """R10/R24: the holder of the Doppelganger bidding highest on a cursed card is not offered
    the Doppelganger (there is no win)."""
    st = build(3, card="gnome", coins={1: "bm1"}, doppelganger=0, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=5), 1: bid(black_magic=True)})
    assert st.card == "wizard" and st.phase == "bid" and st.doppelganger == 0


# -- R11 ---------------------------------------------------------------------------------------


def test_r11_no_value_nobody_wins_next_card() -> None:
    """R11: no bid has any value (an Amulet alone is worth 0): nobody wins, the next card is
    revealed; the Amulet bid is still spent (R9)."""
    st = build(3, card="red_dragon", coins={0: "am1"}, pile=["wizard", "thief"])
    st, ev = auction(st, {0: bid(amulet=True)})
    assert "no_winner" in types(ev) and "auction_won" not in types(ev)
    assert st.card == "thief" and st.phase == "bid"
    assert coins(st, 0)["am"] == 0 and st.bank.amulets == 2
    assert sum(st.players[0].stones) == 0


# -- R12 ---------------------------------------------------------------------------------------


def tied_thief(**kw: Any) -> GameState:
    """Seats 0 and 1 tie at 3 for the red dragon, seat 2 bids 1."""
    st = build(3, card=kw.pop("card", "red_dragon"), pile=["wizard"], **kw)
    st, ev = auction(st, {0: bid(fg=3), 1: bid(cg=1, fg=2), 2: bid(fg=1)})
    assert "tiebreak_started" in types(ev)
    return st


def test_r12_tiebreak_only_the_tied_players() -> None:
    """R12: only the tied players hold the sealed tie-break; the others are not asked."""
    st = tied_thief()
    assert st.phase == "tiebreak"
    assert [(p["seat"], p["kind"]) for p in engine.prompts(st)] == [
        (0, "tiebreak"),
        (1, "tiebreak"),
    ]
    assert engine.legal_actions(st, 2) == []
    assert refused(st, 2, tiebreak()) == "not_your_turn"
    assert refused(st, 2, bid()) == "wrong_phase"


def test_r12_tiebreak_is_sealed_once_per_seat() -> None:
    """R12/R8: a tie-break bid is sealed, accepted once; others see only that it was given."""
    st = tied_thief()
    a, _ = act(st, 0, tiebreak(4))
    b, _ = act(st, 0, tiebreak(0))
    assert engine.view(a, 1) == engine.view(b, 1) and engine.view(a, None) == engine.view(b, None)
    assert engine.view(a, 1)["auction"]["tiebreak_submitted"] == [0]
    assert engine.view(a, 0)["me"]["tiebreak"] == {"silver": 4, "amulet": False}
    assert refused(a, 0, tiebreak(1)) == "already_submitted"


def test_r12_silver_and_amulet_all_to_the_bank() -> None:
    """R12: 2 Silver + an Amulet (4) beat 3 Silver; all Silver and the Amulet go to the bank."""
    st = tied_thief(coins={0: "am1"})
    b0 = bank(st)
    st, _ = act(st, 0, tiebreak(2, amulet=True))
    st, ev = act(st, 1, tiebreak(3))
    (w,) = of_type(ev, "auction_won")
    assert w["winner"] == 0 and w["value"] == 4
    assert stones_of(st, 0)["red"] == 1
    assert coins(st, 0)["si"] == 3 and coins(st, 0)["am"] == 0 and coins(st, 1)["si"] == 2
    assert bank(st)["si"] == b0["si"] + 5 and bank(st)["am"] == b0["am"] + 1
    assert st.records[-1].tiebreak == {0: TieBid(2, True), 1: TieBid(3, False)}


def test_r12_tie_again_nobody_uses_the_power() -> None:
    """R12: a tie again: nobody uses the power, the Silver is still lost."""
    st = tied_thief()
    b0 = bank(st)
    st, _ = act(st, 0, tiebreak(2))
    st, ev = act(st, 1, tiebreak(2))
    assert "no_winner" in types(ev) and "auction_won" not in types(ev)
    assert st.card == "wizard" and st.phase == "bid"
    assert bank(st)["si"] == b0["si"] + 4 and bank(st)["stones"] == b0["stones"]


def test_r12_all_zero_tiebreak_nobody() -> None:
    """R12: an all-zero tie-break is a tie again: nobody uses the power."""
    st = tied_thief()
    st, _ = act(st, 0, tiebreak())
    st, ev = act(st, 1, tiebreak())
    assert "no_winner" in types(ev) and st.card == "wizard"
    assert [sum(p.stones) for p in st.players] == [0, 0, 0]


def test_r12_tiebreak_three_way_among_the_tied() -> None:
    """R12: three tied, two tie again on top: nobody, even though the third bid less."""
    st = build(4, card="red_dragon", pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=2), 1: bid(fg=2), 2: bid(fg=2), 3: bid(fg=1)})
    assert st.tied == [0, 1, 2]
    st, _ = act(st, 0, tiebreak(3))
    st, _ = act(st, 1, tiebreak(3))
    st, ev = act(st, 2, tiebreak(1))
    assert "no_winner" in types(ev)


def test_r12_tiebreak_has_no_gold_and_no_black_magic() -> None:
    """R12: the tie-break is Silver plus optionally one Amulet: no gold, no Black Magic."""
    st = tied_thief(coins={0: "bm1"})
    for action in (
        {**tiebreak(1), "fairy_gold": 1},
        {**tiebreak(), "black_magic": True},
        {**tiebreak(), "common_gold": 1},
    ):
        assert refused(st, 0, action) == "malformed"
    assert refused(st, 0, tiebreak(6)) == "unaffordable"
    assert refused(st, 0, tiebreak(amulet=True)) == "unaffordable"
    assert {tuple(sorted(a)) for a in engine.legal_actions(st, 0)} == {("amulet", "silver", "type")}


# -- R13 ---------------------------------------------------------------------------------------


def test_r13_empty_bid_always_legal() -> None:
    """R13 is a server rule (the time limit lives in the table's settings): a seat that bids
    nothing in time is sent an empty bid by the server. The engine's part is that an empty bid
    and an empty tie-break bid are always legal, in every auction, for every seat."""
    st = engine.new_game(4, seed=3)
    seen_tiebreak = False
    for _ in range(200):
        if st.winner is not None:
            break
        p = engine.prompts(st)[0]
        if p["kind"] == "bid":
            for q in engine.prompts(st):
                assert bid() in engine.legal_actions(st, q["seat"])
            # In odd turns seats 0 and 1 bid 1 each (a tie), in even turns nobody bids.
            st, _ = auction(
                st, {s: bid(fg=1) for s in (0, 1) if st.players[s].fairy_gold and st.turn % 2}
            )
        elif p["kind"] == "tiebreak":
            seen_tiebreak = True
            for q in engine.prompts(st):
                assert tiebreak() in engine.legal_actions(st, q["seat"])
                st, _ = act(st, q["seat"], tiebreak())
        else:
            st, _ = act(st, p["seat"], choose(p["options"][-1]["id"]))
    assert seen_tiebreak


# == Powers ====================================================================================

# -- R14 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "stones", "coin", "gain"),
    [
        ("magician", "rby", "si", 3),  # 3 stones: cannot pay 4
        ("wizard", "rrbb", "si", 3),  # no yellow: cannot pay one of each
        ("sorcerer", "r3 b3 y3", "cg", 1),  # no 4 of one colour
        ("enchantress", "r2 b2", "fg", 1),  # 4 stones: cannot pay 5
    ],
)
def test_r14_unpayable_option_not_offered_single_option_resolves_at_once(
    card: str, stones: str, coin: str, gain: int
) -> None:
    """R14: the option the winner cannot pay is not offered; the single option left is taken at
    once, without a prompt."""
    st = build(3, card=card, stones={0: stones}, pile=["wizard" if card != "wizard" else "thief"])
    before = coins(st, 0)
    st, ev = auction(st, {0: bid(cg=1)})
    assert "auto_choice" in types(ev)
    assert st.phase == "bid"  # nobody is asked anything: the next auction is open
    assert coins(st, 0)[coin] == before[coin] + gain - (1 if coin == "cg" else 0)
    assert st.players[0].score == 0 and stones_of(st, 0) == stones_of(
        build(3, stones={0: stones}), 0
    )


def test_r14_power_is_compulsory_no_way_to_pass() -> None:
    """R14: the winner must use the power: the options are the power's, there is no 'pass'."""
    st = build(3, card="magician", stones={0: "rrbb"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["pay", "silver"]
    for bogus in ("pass", "decline", "done", "keep"):
        assert refused(st, 0, choose(bogus)) == "unknown_option"
    assert refused(st, 1, choose("silver")) == "not_your_turn"
    assert refused(st, 0, bid()) == "wrong_phase"


def test_r14_power_without_a_choice_resolves_at_once() -> None:
    """R14: a power that needs no choice (the Gnome) resolves at once; the next card opens."""
    st = build(3, card="gnome", pile=["wizard"])
    st, ev = auction(st, {2: bid(fg=1)})
    assert coins(st, 2)["cg"] == 4 and coins(st, 2)["si"] == 7
    assert st.card == "wizard" and st.phase == "bid" and "choice" not in types(ev)


def test_r14_single_way_to_pay_is_paid_at_once() -> None:
    """R14: a decision with a single option (the only 4 stones to pay) resolves at once."""
    st = build(3, card="magician", stones={0: "rrby"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    st, ev = act(st, 0, choose("pay"))
    assert "auto_choice" in types(ev) and st.players[0].score == 1


def test_r14_several_ways_to_pay_are_all_offered() -> None:
    """R14: with 5 stones the Magician's winner chooses which 4 to pay, among every way."""
    st = build(3, card="magician", stones={0: "rrbby"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("pay"))
    assert sorted(options(st)) == sorted(["red2-blue2", "red2-blue1-yellow1", "red1-blue2-yellow1"])
    st, _ = act(st, 0, choose("red1-blue2-yellow1"))
    assert stones_of(st, 0) == {"red": 1, "blue": 0, "yellow": 0}


# -- R15 ---------------------------------------------------------------------------------------


def thief_auction(
    bids: Mapping[int, Mapping[str, object]], players: int = 4, **kw: Any
) -> tuple[GameState, Events]:
    st = build(players, card="thief", pile=kw.pop("pile", ["wizard"]), **kw)
    return auction(st, bids)


def victims(st: GameState) -> list[int]:
    p = prompt(st)
    assert p["step"] == "victim"
    return sorted(o["seat"] for o in p["options"])


def test_r15_seconds_are_the_highest_below_the_winner() -> None:
    """R15: the second bidders are those with the highest value below the winner's."""
    st, _ = thief_auction(
        {0: bid(fg=5), 1: bid(fg=3), 2: bid(cg=1, fg=2), 3: bid(fg=1)},
        stones={1: "r", 2: "b", 3: "y"},
    )
    assert victims(st) == [1, 2]
    st, _ = act(st, 0, choose("seat2"))  # one stone: taken at once
    assert stones_of(st, 0) == {"red": 0, "blue": 1, "yellow": 0}
    assert sum(st.players[2].stones) == 0 and sum(st.players[1].stones) == 1


def test_r15_single_second_is_robbed_at_once() -> None:
    """R15: a single second bidder is the victim (a single option: at once, R14)."""
    st, _ev = thief_auction(
        {0: bid(fg=5), 1: bid(fg=3), 2: bid(fg=1)}, stones={1: "rb", 2: "y", 3: "y"}
    )
    assert prompt(st)["step"] == "stone"
    assert sorted(options(st)) == ["blue", "red"]  # the winner takes a stone of his choice
    st, _ = act(st, 0, choose("blue"))
    assert stones_of(st, 1) == {"red": 1, "blue": 0, "yellow": 0}
    assert stones_of(st, 0) == {"red": 0, "blue": 1, "yellow": 0}


def test_r15_thief_only_bidder_robs_any_other() -> None:
    """R15: when the winner is the only one to bid any value, every other player is second."""
    st, _ = thief_auction({2: bid(fg=1)}, stones={0: "r", 1: "b", 3: "y"})
    assert victims(st) == [0, 1, 3]
    st, _ = act(st, 2, choose("seat3"))
    assert stones_of(st, 2)["yellow"] == 1 and sum(st.players[3].stones) == 0


def test_r15_only_bidder_counts_zero_value_bids_as_nothing() -> None:
    """R15: an Amulet with no gold is worth 0: still 'only one bid any value'."""
    st, _ = thief_auction(
        {2: bid(fg=1), 0: bid(amulet=True)}, coins={0: "am1"}, stones={0: "r", 1: "b", 3: "y"}
    )
    assert victims(st) == [0, 1, 3]


def test_r15_must_pick_a_second_who_has_a_stone() -> None:
    """R15: among several seconds the winner must choose one who has a stone if any has."""
    st, _ = thief_auction({0: bid(fg=5), 1: bid(fg=3), 2: bid(fg=3)}, stones={2: "y", 3: "rr"})
    # Seat 1 (second, no stone) is not offered; seat 3 (stones, but not second) neither.
    assert engine.prompts(st)[0]["kind"] == "bid"  # no question: robbed at once
    assert stones_of(st, 0)["yellow"] == 1 and sum(st.players[2].stones) == 0
    st2, _ = thief_auction(
        {0: bid(fg=5), 1: bid(fg=3), 2: bid(fg=3), 3: bid(fg=3)}, stones={2: "y", 3: "r"}
    )
    assert victims(st2) == [2, 3]


def test_r15_seconds_without_stones_are_all_offered() -> None:
    """R15: when no second has a stone, the winner chooses among all of them."""
    st, _ = thief_auction({0: bid(fg=2)}, players=3, coins={1: "cg1", 2: "cg1"})
    assert victims(st) == [1, 2]
    st, _ev = act(st, 0, choose("seat1"))
    assert coins(st, 1)["cg"] == 0 and coins(st, 0)["cg"] == 3 and coins(st, 2)["cg"] == 1


def test_r15_tiebreak_seconds_are_only_the_other_tiebreak_bidders() -> None:
    """R15: after a tie-break the seconds are the other tie-break bidders with the highest Silver
    value below the winner's; players outside the tie are never seconds."""
    st, _ = thief_auction(
        {0: bid(fg=3), 1: bid(fg=3), 2: bid(fg=3), 3: bid(fg=2)},
        stones={1: "r", 2: "b", 3: "yy"},
        coins={1: "am1"},
    )
    assert st.tied == [0, 1, 2]
    st, _ = act(st, 0, tiebreak(3))
    st, _ = act(st, 1, tiebreak(1, amulet=True))  # 2
    st, _ = act(st, 2, tiebreak(1))
    # Seat 1 (value 2) is the only second: robbed at once.
    assert stones_of(st, 0) == {"red": 1, "blue": 0, "yellow": 0}
    assert sum(st.players[1].stones) == 0 and stones_of(st, 3)["yellow"] == 2


def test_r15_tiebreak_second_without_stone_loses_gold_not_the_outsider() -> None:
    """R15: the tie-break second has no stone: he loses a Common Gold, even though a player
    outside the tie-break has stones."""
    st, _ = thief_auction({0: bid(fg=3), 1: bid(fg=3), 3: bid(fg=1)}, stones={3: "rr"})
    st, _ = act(st, 0, tiebreak(2))
    st, _ev = act(st, 1, tiebreak(1))
    assert coins(st, 1)["cg"] == 1 and coins(st, 0)["cg"] == 3
    assert stones_of(st, 3)["red"] == 2 and sum(st.players[0].stones) == 0


def test_r15_tiebreak_all_nothing_every_other_tied_player_is_second() -> None:
    """R15: the tie-break winner was the only one to bid Silver: every other tie-break bidder
    is second (and only they)."""
    st, _ = thief_auction(
        {0: bid(fg=3), 1: bid(fg=3), 2: bid(fg=3)}, stones={1: "r", 2: "b", 3: "y"}
    )
    st, _ = act(st, 0, tiebreak(1))
    st, _ = act(st, 1, tiebreak())
    st, _ = act(st, 2, tiebreak())
    assert victims(st) == [1, 2]


@pytest.mark.parametrize(
    ("victim_coins", "taken"),
    [
        ("cg2 fg5", "common_gold"),
        ("cg0 fg5", "fairy_gold"),
        ("cg0 fg0 sp4", None),
    ],
)
def test_r15_no_stone_common_gold_then_fairy_gold_then_nothing(
    victim_coins: str, taken: str | None
) -> None:
    """R15: the victim has no stone: a Common Gold; failing that an unspent Fairy Gold;
    failing that nothing (spent Fairy Gold in front of the screen is not taken)."""
    st, ev = thief_auction(
        {0: bid(fg=1)}, players=3, pile=[], coins={1: victim_coins, 2: "cg0 fg0"}, stones={2: ""}
    )
    # Both seats are seconds without stones: seat 1 is chosen.
    st, ev = act(st, 0, choose("seat1"))
    (steal,) = of_type(ev, "steal")
    assert steal["victim"] == 1 and steal["coin"] == taken
    # The turn ended (empty pile): a stolen Fairy Gold changed owner for good.
    assert st.turn == 2
    if taken == "common_gold":
        assert coins(st, 0)["cg"] == 3 and coins(st, 1)["cg"] == 1
    elif taken == "fairy_gold":
        assert coins(st, 0)["fg"] == 9 and coins(st, 1)["fg"] == 4
    else:
        assert coins(st, 0)["fg"] == 8 and coins(st, 1)["fg"] == 4 and coins(st, 0)["cg"] == 2


def test_r15_what_was_taken_is_public() -> None:
    """R15: what the Thief took is public: spectators and third players see it."""
    st, ev = thief_auction({0: bid(fg=2), 1: bid(fg=1)}, stones={1: "b"})
    for seat in (None, 2, 3):
        (steal,) = of_type(engine.visible_events(ev, seat), "steal")
        assert steal["stone"] == "blue" and steal["victim"] == 1 and steal["seat"] == 0
    _, ev = thief_auction({0: bid(fg=2), 1: bid(fg=1)})
    for seat in (None, 2, 3):
        (steal,) = of_type(engine.visible_events(ev, seat), "steal")
        assert steal["coin"] == "common_gold" and steal["victim"] == 1
    assert engine.view(st, None)["players"][0]["stones"]["blue"] == 1


def test_r15_seconds_with_nothing_to_take_are_still_chosen() -> None:
    """R15: every other player is second even with nothing at all to take; the winner still
    chooses (and takes nothing); the game goes on."""
    st, _ = thief_auction({0: bid(fg=2)}, players=3, coins={1: "fg0 cg0", 2: "fg0 cg0"})
    assert victims(st) == [1, 2]
    st, ev = act(st, 0, choose("seat2"))
    assert of_type(ev, "steal")[0]["coin"] is None and st.card == "wizard"


# -- R16 ---------------------------------------------------------------------------------------


def test_r16_brigand_amounts_visible_only_to_the_two() -> None:
    """R16: the victim hands over all Common Gold and Silver; the amounts are shown only to the
    two players; the others (and spectators) only see that the Brigand struck."""
    st = build(4, card="brigand", coins={2: "cg3 si7"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    assert victims(st) == [1, 2, 3]  # another player
    st, ev = act(st, 0, choose("seat2"))
    assert coins(st, 0)["cg"] == 5 and coins(st, 0)["si"] == 12
    assert coins(st, 2)["cg"] == 0 and coins(st, 2)["si"] == 0
    for seat in (0, 2):
        (haul,) = of_type(engine.visible_events(ev, seat), "brigand_haul")
        assert haul["common_gold"] == 3 and haul["silver"] == 7
        assert "private_to" not in haul
    for other in (1, 3, None):
        visible = engine.visible_events(ev, other)
        assert of_type(visible, "brigand_haul") == []
        (struck,) = of_type(visible, "brigand")
        assert struck["seat"] == 0 and struck["victim"] == 2
        text = json.dumps(visible)
        assert "7" not in text.replace("seat", "")  # the Silver amount leaks nowhere
    # The victim's and the robber's coins stay behind their screens.
    assert engine.view(st, 1)["me"]["coins"]["silver"] == 5
    assert engine.view(st, None)["me"] is None


# -- R17 ---------------------------------------------------------------------------------------


def test_r17_merchant_buys_one_at_a_time_and_stops() -> None:
    """R17: each stone is paid with 1 Common Gold, or 1 unspent Fairy Gold (gone for good), or
    3 Silver; only stones in the bank and prices the winner can pay are offered."""
    st = build(3, card="merchant", coins={0: "fg3 cg1 si4"}, bank_stones="r2 y1", pile=[])
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == sorted(
        [
            "red:common_gold",
            "red:fairy_gold",
            "red:silver",
            "yellow:common_gold",
            "yellow:fairy_gold",
            "yellow:silver",
            "done",
        ]
    )
    b0 = bank(st)
    st, _ = act(st, 0, choose("red:common_gold"))
    assert coins(st, 0)["cg"] == 0 and bank(st)["cg"] == b0["cg"] + 1
    assert "red:common_gold" not in options(st)
    st, _ = act(st, 0, choose("red:silver"))
    assert coins(st, 0)["si"] == 1 and bank(st)["si"] == b0["si"] + 3
    assert sorted(options(st)) == ["done", "yellow:fairy_gold"]  # no red left; 1 Silver only
    st, _ev = act(st, 0, choose("yellow:fairy_gold"))
    assert bank(st)["fg"] == b0["fg"] + 1
    # Nothing left to buy: the single option ('done') is taken at once; the turn ends.
    assert st.turn == 2
    assert stones_of(st, 0) == {"red": 2, "blue": 0, "yellow": 1}
    assert coins(st, 0)["fg"] == 2  # 3 - 1 bought + 1 bid returned (the paid one is gone)


def test_r17_merchant_may_stop_at_once() -> None:
    """R17: the winner stops when he wishes, even before buying anything."""
    st = build(3, card="merchant", pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("done"))
    assert sum(st.players[0].stones) == 0 and st.card == "wizard"


def test_r17_merchant_buys_several_of_one_colour() -> None:
    """R17: any number of stones, the same colour again if the bank has it."""
    st = build(3, card="merchant", coins={0: "cg2 fg8"}, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = choose_seq(st, 0, "blue:fairy_gold", "blue:fairy_gold", "blue:common_gold", "done")
    assert stones_of(st, 0)["blue"] == 3 and coins(st, 0)["fg"] == 5


# -- R18 ---------------------------------------------------------------------------------------


def test_r18_necromancer_used_fairy_gold_goes_for_good() -> None:
    """R18: used, the Fairy Gold the winner spent in this auction goes to the bank for good,
    and he scores 1."""
    st = build(3, card="necromancer", pile=[])
    b0 = bank(st)
    st, _ = auction(st, {0: bid(fg=3, cg=1), 1: bid(fg=2)})
    assert prompt(st)["options"][0]["fairy_gold"] == 3
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1
    assert bank(st)["fg"] == b0["fg"] + 3 and bank(st)["cg"] == b0["cg"] + 1
    assert st.turn == 2  # the turn ended: the Fairy Gold given up does not come back
    assert coins(st, 0)["fg"] == 5 and coins(st, 1)["fg"] == 8


def test_r18_necromancer_is_optional() -> None:
    """R18/R14: the Necromancer is the one optional power: declined, the Fairy Gold returns at
    the end of the turn and no point is scored."""
    st = build(3, card="necromancer", pile=[])
    st, _ = auction(st, {0: bid(fg=3)})
    assert sorted(options(st)) == ["decline", "use"]
    st, _ = act(st, 0, choose("decline"))
    assert st.players[0].score == 0 and coins(st, 0)["fg"] == 8


# -- R19 ---------------------------------------------------------------------------------------


def rainbow(bank_stones: str, k: int = 0, **kw: Any) -> tuple[GameState, Events]:
    st = with_rng(
        build(3, card="rainbow_dragon", bank_stones=bank_stones, pile=["wizard"], **kw), k
    )
    return auction(st, {0: bid(fg=1)})


def test_r19_bank_stones_go_into_the_bag_and_a_colour_present_is_named() -> None:
    """R19: all the bank's stones go into the bag; the winner names a colour present in it;
    the bag's content by colour is public while stones are in it."""
    st, _ev = rainbow("r3 b2")
    assert st.bank.stones == [0, 0, 0]
    assert sorted(options(st)) == ["blue", "red"]  # no yellow in the bag
    for seat in (None, 1, 0):
        assert engine.view(st, seat)["bag"] == {"red": 3, "blue": 2, "yellow": 0}


def test_r19_first_draw_compulsory_stop_keeps_named_colour_returns_all() -> None:
    """R19: after naming, the first draw happens at once; each draw is public; drawn stones
    count as the player's (public) stones; stopping keeps them; drawing the named colour
    returns all drawn; what stays in the bag returns to the bank."""
    outcomes: Counter[str] = Counter()
    for k in range(40):
        st, _ = rainbow("r3 b3 y2", k, stones={0: "y"})
        st, ev = act(st, 0, choose("red"))
        (draw,) = of_type(engine.visible_events(ev, None), "rainbow_draw")  # public
        if draw["failed"]:
            outcomes["first_fail"] += 1
            assert draw["stone"] == "red"
            assert stones_of(st, 0) == {"red": 0, "blue": 0, "yellow": 1}
            assert st.bank.stones == [3, 3, 2] and st.bag is None
            assert st.card == "wizard"
            continue
        # Still drawing: the stone lies before the player, counted as his, the bag is public.
        colour = draw["stone"]
        assert colour != "red"
        v = engine.view(st, 2)
        assert v["players"][0]["stones"][colour] == (2 if colour == "yellow" else 1)
        assert sum(v["bag"].values()) == 7 and v["bag"]["red"] == 3
        assert v["rainbow"]["drawn"][colour] == 1
        assert sorted(options(st)) == ["draw", "stop"]
        if k % 2:
            st, _ = act(st, 0, choose("stop"))
            outcomes["stop"] += 1
            assert sum(st.players[0].stones) == 2 and st.bag is None
            assert sum(st.bank.stones) == 7 and st.bank.stones[0] == 3
        else:
            while st.bag is not None:
                st, ev = act(st, 0, choose("draw"))
            outcomes["drew_until_fail"] += 1
            # The bag always holds the named colour, so drawing on ends in failure.
            assert of_type(ev, "rainbow_draw")[-1]["failed"] is True
            assert stones_of(st, 0) == {"red": 0, "blue": 0, "yellow": 1}
            assert st.bank.stones == [3, 3, 2]
    assert set(outcomes) == {"first_fail", "stop", "drew_until_fail"}, outcomes


def test_r19_only_the_named_colour_in_the_bag() -> None:
    """R19/R14: a bag of one colour: that colour is named at once, and the compulsory first
    draw fails: nothing is won, the stones return to the bank."""
    st, ev = rainbow("b2")
    assert "rainbow_named" in types(ev) and of_type(ev, "rainbow_draw")[0]["failed"] is True
    assert sum(st.players[0].stones) == 0 and st.bank.stones == [0, 2, 0] and st.bag is None


def test_r19_empty_bank_does_nothing() -> None:
    """R19/R1: with no stone in the bank there is no bag: nothing happens."""
    st, ev = rainbow("")
    assert "no_effect" in types(ev) and st.card == "wizard" and st.bag is None


# -- R20 ---------------------------------------------------------------------------------------


def test_r20_two_headed_dragon_bag_of_up_to_two_per_colour() -> None:
    """R20: up to 2 stones of each colour go into the bag (here 2 red, 1 blue, 1 yellow out of
    a bank of 9/1/1); 2 are drawn; the rest returns. With the whole bank in the bag the blue
    stone would come out 18% of the time; from the bag of 4, 50%."""
    blue = 0
    n = 200
    for k in range(n):
        st = with_rng(
            build(3, card="two_headed_dragon", bank_stones="r9 b1 y1", pile=["wizard"]), k
        )
        st, ev = auction(st, {1: bid(fg=1)})
        got = st.players[1].stones
        assert sum(got) == 2 and got[0] <= 2 and got[1] <= 1 and got[2] <= 1
        assert [st.bank.stones[c] + got[c] for c in range(3)] == [9, 1, 1]
        assert of_type(engine.visible_events(ev, None), "draw")[0]["stones"] == stones_of(st, 1)
        blue += got[1]
    assert 0.35 * n < blue < 0.65 * n, blue


@pytest.mark.parametrize(
    ("bank_stones", "expected"), [("y1", [0, 0, 1]), ("r5", [2, 0, 0]), ("", [0, 0, 0])]
)
def test_r20_two_headed_dragon_fewer_stones(bank_stones: str, expected: list[int]) -> None:
    """R20: the winner draws 2, fewer if the bag holds fewer."""
    st = build(3, card="two_headed_dragon", bank_stones=bank_stones, pile=["wizard"])
    st, _ = auction(st, {1: bid(fg=1)})
    assert st.players[1].stones == expected and st.card == "wizard"


# -- R21 ---------------------------------------------------------------------------------------


def win_card(card: str, seat: int = 0, players: int = 3, **kw: Any) -> tuple[GameState, Events]:
    st = build(players, card=card, pile=kw.pop("pile", ["wizard"]), **kw)
    return auction(st, {seat: bid(fg=1)})


def test_r21_sorcerers_apprentice() -> None:
    """R21: two stones of one colour: pay two of one colour (his choice), score 1; otherwise
    nothing happens."""
    st, _ = win_card("sorcerers_apprentice", stones={0: "rrb"})
    assert st.players[0].score == 1 and stones_of(st, 0) == {"red": 0, "blue": 1, "yellow": 0}
    st, ev = win_card("sorcerers_apprentice", stones={0: "rby"})
    assert st.players[0].score == 0 and "no_effect" in types(ev) and sum(st.players[0].stones) == 3
    st, _ = win_card("sorcerers_apprentice", stones={0: "rrbbb"})
    assert sorted(options(st)) == ["blue", "red"]
    st, _ = act(st, 0, choose("blue"))
    assert st.players[0].score == 1 and stones_of(st, 0) == {"red": 2, "blue": 1, "yellow": 0}


def test_r21_quack_wizard_pays_all_stones_or_scores_free() -> None:
    """R21: Quack Wizard: pay all stones, score 1; free when he has none."""
    st, _ = win_card("quack_wizard", stones={0: "rrbyy"})
    assert st.players[0].score == 1 and sum(st.players[0].stones) == 0
    assert st.bank.stones == [12, 12, 12]
    st, _ = win_card("quack_wizard")
    assert st.players[0].score == 1


def test_r21_troll_every_player_returns_the_named_colour() -> None:
    """R21: the Troll's winner names any colour; every player, the winner too, returns all
    stones of that colour to the bank."""
    st, _ = win_card("troll", stones={0: "rrb", 1: "r", 2: "by"})
    assert sorted(options(st)) == ["blue", "red", "yellow"]
    st, _ = act(st, 0, choose("red"))
    assert [p.stones for p in st.players] == [[0, 1, 0], [0, 0, 0], [0, 1, 1]]
    assert st.bank.stones[0] == 12
    st, _ = win_card("troll", stones={1: "r"})
    st, _ = act(st, 0, choose("yellow"))  # any colour, even one nobody has
    assert stones_of(st, 1)["red"] == 1


def test_r21_ancient_dragon_stone_of_his_choice() -> None:
    """R21: one stone of the winner's choice from the bank (colours in the bank)."""
    st, _ = win_card("ancient_dragon", bank_stones="b2 y1")
    assert sorted(options(st)) == ["blue", "yellow"]
    st, _ = act(st, 0, choose("yellow"))
    assert stones_of(st, 0)["yellow"] == 1 and st.bank.stones == [0, 2, 0]


def test_r21_enchantress() -> None:
    """R21: Enchantress: pay any 5 stones for 2 points, or take 1 Fairy Gold."""
    st, _ = win_card("enchantress", stones={0: "rrbby"})
    assert sorted(options(st)) == ["fairy_gold", "pay"]
    st, _ = act(st, 0, choose("pay"))
    assert st.players[0].score == 2 and sum(st.players[0].stones) == 0
    st, _ = win_card("enchantress", stones={0: "rrbbyy"})
    st, _ = act(st, 0, choose("fairy_gold"))
    assert coins(st, 0)["fg"] == 8 and st.players[0].score == 0  # 8 - 1 bid + 1


def test_r21_fairy_gold_usable_at_once_and_kept() -> None:
    """R21: the Fairy's Fairy Gold is usable at once and kept for good."""
    st, _ = win_card("fairy", coins={0: "fg1"}, pile=["red_dragon"])
    assert coins(st, 0)["fg"] == 1 and prompt_for(st, 0)["max"]["fairy_gold"] == 1
    st, _ = auction(st, {0: bid(fg=1)})  # the new coin is bid at once
    assert st.turn == 2 and coins(st, 0)["fg"] == 2


@pytest.mark.parametrize(
    ("card", "gain"),
    [
        ("gnome", {"cg": 2, "si": 2}),
        ("alchemist", {"cg": 3}),
        ("dwarf_4", {"si": 4}),
        ("dwarf_5", {"si": 5}),
        ("goldsmith", {"am": 1}),
    ],
)
def test_r21_gifts(card: str, gain: dict[str, int]) -> None:
    """R21: Gnome 2 Common Gold + 2 Silver; Alchemist 3 Common Gold; Dwarf 4 or 5 Silver;
    Goldsmith 1 Amulet (from the bank)."""
    st0 = build(3, card=card, pile=["wizard"])
    st, _ = auction(st0, {0: bid(fg=1)})
    for key in ("cg", "si", "am"):
        assert coins(st, 0)[key] == coins(st0, 0)[key] + gain.get(key, 0)
        assert bank(st)[key] == bank(st0)[key] - gain.get(key, 0)


def test_r21_goldsmith_amulet_can_be_bid() -> None:
    """R21/R9: the Goldsmith's Amulet can be bid later (it doubles)."""
    st, _ = win_card("goldsmith", pile=["red_dragon"])
    assert prompt_for(st, 0)["max"]["amulet"] is True
    st, ev = auction(st, {0: bid(fg=2, amulet=True), 1: bid(fg=3)})
    assert of_type(ev, "auction_won")[0]["winner"] == 0


# -- R22 ---------------------------------------------------------------------------------------


def ghost_state(records: list[Record], players: int = 3, **kw: Any) -> GameState:
    return build(
        players,
        card="ghost",
        records=records,
        pile=kw.pop("pile", ["wizard"]),
        specials=kw.pop("specials", ["ghost", "fairy"]),
        **kw,
    )


def test_r22_ghost_offers_every_card_already_auctioned_but_itself() -> None:
    """R22: any character already auctioned this turn, the Witch included, cursed or unbid ones
    included (and one taken by the Imp, which counts as auctioned), not the Ghost itself."""
    records = [
        won("witch", 1),
        Record("red_dragon", bids={0: Bid(2), 1: Bid(0, black_magic=True), 2: Bid()}, cursed=True),
        Record("thief", bids={0: Bid(), 1: Bid(), 2: Bid()}),  # nobody bid
        won("imp", 2),
        Record("gnome", via="imp"),
    ]
    st = ghost_state(records)
    st, _ = auction(st, {0: bid(fg=1)})
    assert sorted(options(st)) == ["gnome", "imp", "red_dragon", "thief", "witch"]
    st, _ = act(st, 0, choose("red_dragon"))  # the cursed card's power, as if won
    assert stones_of(st, 0)["red"] == 1 and st.card == "wizard"


def test_r22_ghost_copies_the_witch() -> None:
    """R22: the Witch copied gives a Black Magic coin."""
    st = ghost_state([won("witch", 1), won("red_dragon", 2)])
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("witch"))
    assert coins(st, 0)["bm"] == 1


def test_r22_copied_thief_looks_at_the_ghost_auction() -> None:
    """R22: a copied Thief robs the second bidder of the Ghost's auction, not the Thief's."""
    thief_record = Record("thief", bids={0: Bid(3), 1: Bid(), 2: Bid(2)}, winner=0)
    st = ghost_state([won("witch", 1), thief_record], stones={1: "r", 2: "b"})
    st, _ = auction(st, {0: bid(fg=3), 1: bid(fg=2)})
    st, _ = act(st, 0, choose("thief"))
    assert stones_of(st, 0) == {"red": 1, "blue": 0, "yellow": 0}
    assert stones_of(st, 2)["blue"] == 1


def test_r22_copied_necromancer_looks_at_the_ghost_auction() -> None:
    """R22/R18: a copied Necromancer gives up the Fairy Gold bid in the Ghost's auction."""
    necro = Record("necromancer", bids={0: Bid(5), 1: Bid(), 2: Bid()}, winner=0)
    st = ghost_state([won("witch", 1), necro], coins={0: "fg8 sp5"}, pile=[])
    b0 = bank(st)
    st, _ = auction(st, {0: bid(fg=2)})
    st, _ = act(st, 0, choose("necromancer"))
    assert prompt(st)["options"][0]["fairy_gold"] == 2
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and bank(st)["fg"] == b0["fg"] + 2
    assert st.turn == 2 and coins(st, 0)["fg"] == 11  # 6 + 5 returned: the 2 are gone


def test_r22_copying_the_doppelganger_when_nobody_holds_it() -> None:
    """R22: copying the Doppelganger gives the card when no player holds it."""
    unbid = Record("doppelganger", bids={0: Bid(), 1: Bid(), 2: Bid()})
    st = ghost_state([won("witch", 1), unbid], specials=["ghost", "doppelganger"])
    st, _ = auction(st, {2: bid(fg=1)})
    st, _ = act(st, 2, choose("doppelganger"))
    assert st.doppelganger == 2
    assert engine.view(st, None)["players"][2]["has_doppelganger"] is True


def test_r22_copying_the_doppelganger_when_someone_holds_it_does_nothing() -> None:
    """R22: copying the Doppelganger when a player holds it gives nothing."""
    taken = won("doppelganger", 1)
    st = ghost_state([won("witch", 1), taken], specials=["ghost", "doppelganger"], doppelganger=1)
    st, _ = auction(st, {2: bid(fg=1)})
    st, ev = act(st, 2, choose("doppelganger"))
    assert "no_effect" in types(ev) and st.doppelganger == 1


def test_r22_a_doppelganger_played_this_turn_goes_to_the_ghosts_winner() -> None:
    """R22: played earlier this turn, the Doppelganger lies in the used specials and nobody
    holds it: the Ghost's winner takes it from there and keeps it as if he had won it; it stays
    his at the end of the turn (not in the used specials, not in the new deck)."""
    played = won("doppelganger", 0)
    st = ghost_state(
        [won("witch", 1), played],
        specials=["ghost", "doppelganger"],
        used_specials=["doppelganger"],
        pile=[],
    )
    assert st.doppelganger is None
    st, _ = auction(st, {1: bid(fg=1)})
    st, ev = act(st, 1, choose("doppelganger"))
    assert "no_effect" not in types(ev)
    assert of_type(ev, "doppelganger_taken")[0]["seat"] == 1
    assert st.doppelganger == 1 and "doppelganger" not in st.used_specials
    assert engine.view(st, None)["players"][1]["has_doppelganger"] is True
    assert st.turn == 2  # the Ghost was the turn's last card: the card stayed with its taker
    assert st.doppelganger == 1 and "doppelganger" not in st.used_specials + st.special_deck


def test_r22_the_holder_who_plays_the_doppelganger_on_the_ghost_may_copy_it_back() -> None:
    """R22, R24: the holder plays the Doppelganger on the Ghost (it goes to the used specials),
    the first Ghost use copies the Doppelganger and gives it back to him, the second copies
    another card. He keeps the card for a later auction."""
    st = ghost_state(
        [won("witch", 1), won("doppelganger", 0), won("red_dragon", 1)],
        specials=["ghost", "doppelganger"],
        doppelganger=0,
        pile=["blue_dragon"],
    )
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("play"))
    assert st.doppelganger is None and "doppelganger" in st.used_specials
    st, ev = act(st, 0, choose("doppelganger"))
    assert st.doppelganger == 0 and "doppelganger" not in st.used_specials
    assert "no_effect" not in types(ev)
    st, _ = act(st, 0, choose("red_dragon"))
    assert st.players[0].stones == [1, 0, 0] and st.doppelganger == 0 and st.card == "blue_dragon"


def test_r22_a_ghost_reached_through_the_goblin_may_copy_the_goblin() -> None:
    """R22: the Goblin's auction is over, so a Ghost it draws may copy the Goblin."""
    st = build(3, card="goblin", pile=["ghost"], specials=["goblin", "ghost"])
    st, _ = auction(st, {0: bid(1)})  # the Goblin draws the Ghost, the only card left
    ghost_options = options(st)
    assert "goblin" in ghost_options and "witch" in ghost_options and "ghost" not in ghost_options


def test_p12_thief_with_nothing_to_take_still_picks_and_spent_gold_is_safe() -> None:
    st = build(3, card="thief", coins={1: "fg0 cg0 sp3", 2: "fg0 cg0"}, pile=["red_dragon"])
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["seat1", "seat2"]
    st, events = act(st, 0, choose("seat1"))
    assert st.players[1].fairy_gold_spent == 3
    assert any(e["type"] == "steal" and e["coin"] is None for e in events)


def test_p12_a_stolen_fairy_gold_may_be_bid_at_once() -> None:
    st = build(
        3, card="thief", coins={0: "fg0 cg1", 1: "fg1 cg0", 2: "fg0 cg0"}, pile=["red_dragon"]
    )
    st, events = auction(st, {0: bid(0, 1)})
    st, events = act(st, 0, choose("seat1"))
    assert any(e["type"] == "steal" and e["coin"] == "fairy_gold" for e in events)
    assert st.card == "red_dragon"
    assert engine.prompts(st)[0]["max"]["fairy_gold"] == 1
    st, _ = act(st, 0, bid(1))


def test_p13_tiebreak_seconds_count_the_amulet() -> None:
    st = build(4, card="thief", coins={1: "am1"}, stones={1: "r", 2: "b", 3: "y"})
    st, _ = auction(st, {0: bid(2), 1: bid(2), 2: bid(2)})
    st, _ = act(st, 0, tiebreak(3))
    st, _ = act(st, 1, tiebreak(1, amulet=True))  # worth 2
    st, events = act(st, 2, tiebreak(1))
    assert any(e["type"] == "steal" and e["victim"] == 1 for e in events)


def test_p14_a_thief_taken_by_the_imp_looks_at_the_imp_auction() -> None:
    st = build(3, card="imp", pile=["thief"], specials=["imp", "fairy"], stones={1: "r", 2: "b"})
    st, events = auction(st, {0: bid(3), 1: bid(2), 2: bid(1)})
    # The Imp's only card is the Thief (taken at once); seat 1 was second in the Imp's auction.
    assert any(e["type"] == "steal" and e["victim"] == 1 for e in events)


def test_p15_a_declined_first_necromancer_leaves_the_second_free() -> None:
    records = [Record("witch", bids={}), Record("necromancer", bids={}, winner=None)]
    st = build(3, card="ghost", doppelganger=0, records=records, specials=["ghost", "necromancer"])
    st, _ = auction(st, {0: bid(2)})
    st, _ = act(st, 0, choose("play"))
    st, _ = act(st, 0, choose("necromancer"))
    st, _ = act(st, 0, choose("decline"))
    st, _ = act(st, 0, choose("necromancer"))
    assert options(st) == ["use", "decline"]
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.players[0].fairy_gold_spent == 0


def test_p16_doppelganger_is_offered_even_when_the_power_does_nothing() -> None:
    st = build(3, card="imp", doppelganger=0, pile=[], specials=["imp", "doppelganger"])
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["play", "keep"]


def test_p17_an_amulet_without_gold_is_no_value_and_still_spent() -> None:
    st = build(3, card="red_dragon", coins={0: "am1"}, pile=["blue_dragon"])
    st, events = auction(st, {0: bid(0, 0, amulet=True)})
    assert any(e["type"] == "no_winner" for e in events)
    assert st.players[0].amulets == 0 and st.bank.amulets == 2


def test_p18_a_score_may_pass_three_and_wins_at_once() -> None:
    st = build(3, card="sorcerer", scores={0: 2}, stones={0: "r4"})
    st, _ = auction(st, {0: bid(1)})
    st, _ = act(st, 0, choose("pay"))
    assert st.players[0].score == 4 and engine.winner(st) == 0 and engine.prompts(st) == []


def test_start_gives_the_opening_events_of_the_same_game_as_new_game() -> None:
    st, events = engine.start(4, 99)
    assert engine.dumps(st) == engine.dumps(engine.new_game(4, 99))
    assert [e["type"] for e in events] == ["turn_started", "auction_started"]
    assert events[0]["specials"] == st.specials and events[1]["card"] == "witch"
    assert engine.visible_events(events, None) == events  # the opening is public


def test_r22_ghost_copy_is_not_a_win_of_that_card() -> None:
    """R22/R24: the copied card is used once, and the Doppelganger is never offered for it."""
    st = ghost_state([won("witch", 1), won("gnome", 2)], doppelganger=0)
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("keep"))  # offered for the Ghost itself, declined
    st, _ev = act(st, 0, choose("gnome"))
    assert coins(st, 0)["cg"] == 4 and st.card == "wizard" and st.doppelganger == 0


# -- R23 ---------------------------------------------------------------------------------------


def test_r23_imp_picks_a_card_not_yet_auctioned_and_uses_it() -> None:
    """R23: the Imp's winner picks among the cards not yet auctioned this turn and uses its
    power; the picked card counts as auctioned; the rest of the pile is reshuffled."""
    pile = ["red_dragon", "gnome", "wizard", "thief"]
    st = build(3, card="imp", pile=pile, specials=["imp", "gnome"])
    st, _ = auction(st, {1: bid(fg=1)})
    assert sorted(options(st)) == sorted(pile)
    st, _ev = act(st, 1, choose("gnome"))
    assert coins(st, 1)["cg"] == 4
    assert sorted([*st.pile, st.card]) == ["red_dragon", "thief", "wizard"]
    assert [(r.card, r.via) for r in st.records[-2:]] == [("imp", "auction"), ("gnome", "imp")]
    cards = [r["character"] for r in engine.view(st, None)["turn_cards"]]
    assert "gnome" in cards  # public: what the Imp took


def test_r23_imp_reshuffles_the_rest() -> None:
    """R23: after the Imp the cards left are reshuffled (the order differs between generator
    states: the player who saw the options learns nothing of the order)."""
    orders = set()
    for k in range(10):
        st = with_rng(
            build(
                3,
                card="imp",
                pile=["red_dragon", "blue_dragon", "yellow_dragon", "wizard", "thief"],
            ),
            k,
        )
        st, _ = auction(st, {1: bid(fg=1)})
        st, _ = act(st, 1, choose("wizard"))
        orders.add(tuple([*st.pile, st.card]))
    assert len(orders) > 1


def test_r23_imp_picked_card_asks_its_own_questions() -> None:
    """R23: a picked card with choices is used fully (the Magician asks its option)."""
    st = build(3, card="imp", pile=["magician", "wizard"], stones={1: "rrby"})
    st, _ = auction(st, {1: bid(fg=1)})
    st, _ = act(st, 1, choose("magician"))
    assert prompt(st)["character"] == "magician" and sorted(options(st)) == ["pay", "silver"]
    st, _ = act(st, 1, choose("pay"))
    assert st.players[1].score == 1


@pytest.mark.parametrize("card", ["imp", "goblin"])
def test_r23_imp_or_goblin_last_card_does_nothing(card: str) -> None:
    """R23: the Imp or the Goblin as the last card of the turn does nothing."""
    st = build(3, card=card, pile=[], specials=[card, "fairy"])
    st, ev = auction(st, {1: bid(fg=1)})
    assert "no_effect" in types(ev) and st.turn == 2


def test_r23_goblin_draws_at_random_and_uses_the_card() -> None:
    """R23: the Goblin: the same with a card drawn at random (every card can come)."""
    drawn: Counter[str] = Counter()
    for k in range(30):
        st = with_rng(
            build(
                3,
                card="goblin",
                pile=["gnome", "alchemist", "dwarf_4"],
                specials=["goblin", "gnome"],
            ),
            k,
        )
        st, ev = auction(st, {1: bid(fg=1)})
        (copy,) = of_type(ev, "copy")
        drawn[copy["card"]] += 1
        assert st.records[-1].card == copy["card"] and st.records[-1].via == "goblin"
        assert copy["card"] not in [*st.pile, st.card]
        assert "choose" not in [p["kind"] for p in engine.prompts(st)]
    assert set(drawn) == {"gnome", "alchemist", "dwarf_4"}


def test_r23_imp_copied_thief_looks_at_the_imp_auction() -> None:
    """R23 (with R22's reading): a Thief taken by the Imp robs the second of the Imp's auction."""
    st = build(3, card="imp", pile=["thief", "wizard"], stones={1: "r", 2: "b"})
    st, _ = auction(st, {0: bid(fg=3), 2: bid(fg=2)})
    st, _ = act(st, 0, choose("thief"))
    assert stones_of(st, 0)["blue"] == 1 and stones_of(st, 1)["red"] == 1


# -- R24 ---------------------------------------------------------------------------------------


def test_r24_winner_keeps_the_doppelganger_face_up() -> None:
    """R24: the Doppelganger's winner keeps it, face up (public); no offer in its own auction."""
    st, _ev = win_card("doppelganger", seat=1, specials=["doppelganger", "fairy"])
    assert st.doppelganger == 1 and st.card == "wizard" and st.phase == "bid"
    for seat in (None, 0, 1):
        v = engine.view(st, seat)
        assert [p["has_doppelganger"] for p in v["players"]] == [False, True, False]
        assert v["doppelganger"] == 1


def test_r24_play_doubles_the_power_then_the_card_is_used() -> None:
    """R24: after a later win the holder is offered the Doppelganger before the power; played,
    the power is used twice, and the card goes to the used specials."""
    st, _ = win_card("gnome", doppelganger=0)
    p = prompt(st)
    assert p["step"] == "play_doppelganger" and p["character"] == "gnome"
    assert sorted(options(st)) == ["keep", "play"]
    assert coins(st, 0)["cg"] == 2  # the power waits for the answer
    st, _ev = act(st, 0, choose("play"))
    assert coins(st, 0)["cg"] == 6 and coins(st, 0)["si"] == 9
    assert st.doppelganger is None and st.used_specials == ["doppelganger"]
    assert engine.view(st, None)["players"][0]["has_doppelganger"] is False


def test_r24_keep_uses_the_power_once_and_keeps_the_card() -> None:
    """R24: declined ("keep"), the power is used once; the card is offered again next win."""
    st, _ = win_card("gnome", doppelganger=0, pile=["alchemist"])
    st, _ = act(st, 0, choose("keep"))
    assert coins(st, 0)["cg"] == 4 and st.doppelganger == 0
    st, _ = auction(st, {0: bid(fg=1)})
    assert prompt(st)["step"] == "play_doppelganger" and prompt(st)["character"] == "alchemist"


def test_r24_not_offered_on_the_necromancer() -> None:
    """R24: the Doppelganger is not offered on the Necromancer."""
    st, _ = win_card("necromancer", doppelganger=0)
    assert prompt(st)["step"] == "use"
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.doppelganger == 0


def test_r24_not_offered_to_another_winner() -> None:
    """R24: only its holder's wins are doubled."""
    st, _ = win_card("gnome", seat=1, doppelganger=0)
    assert st.card == "wizard" and coins(st, 1)["cg"] == 4


def test_r24_offered_after_a_tiebreak_win() -> None:
    """R24: an auction won in a tie-break is a win: the Doppelganger is offered."""
    st = build(3, card="gnome", doppelganger=0, pile=["wizard"])
    st, _ = auction(st, {0: bid(fg=2), 1: bid(fg=2)})
    st, _ = act(st, 0, tiebreak(1))
    st, _ = act(st, 1, tiebreak(0))
    assert prompt(st)["step"] == "play_doppelganger"


def test_r24_each_use_makes_its_own_choices() -> None:
    """R24: doubled Magician: the first use pays 4 stones for a point, the second takes Silver."""
    st, _ = win_card("magician", stones={0: "r4 b4"}, doppelganger=0)
    st, _ = choose_seq(st, 0, "play", "pay", "red4")
    assert st.players[0].score == 1 and prompt(st)["character"] == "magician"
    assert sorted(options(st)) == ["pay", "silver"]
    st, _ = act(st, 0, choose("silver"))
    assert st.players[0].score == 1 and coins(st, 0)["si"] == 8
    assert stones_of(st, 0) == {"red": 0, "blue": 4, "yellow": 0}


def test_r24_second_witch_gives_another_black_magic_coin() -> None:
    """R24/R1: the second use of the Witch gives another Black Magic coin."""
    st, _ = win_card("witch", doppelganger=0, pile=["wizard"])
    st, _ = act(st, 0, choose("play"))
    assert coins(st, 0)["bm"] == 2


def test_r24_second_imp_takes_another_card() -> None:
    """R24: a doubled Imp picks and uses a card twice."""
    st, _ = win_card("imp", doppelganger=0, pile=["gnome", "alchemist", "wizard"])
    st, _ = choose_seq(st, 0, "play", "gnome")
    assert sorted(options(st)) == ["alchemist", "wizard"]
    st, _ = act(st, 0, choose("alchemist"))
    assert coins(st, 0)["cg"] == 2 + 2 + 3 and st.card == "wizard" and st.pile == []
    assert [r.via for r in st.records[-2:]] == ["imp", "imp"]


def test_r24_second_imp_with_no_card_left_does_nothing() -> None:
    """R24: a second Imp with no card left takes nothing."""
    st, _ = win_card("imp", doppelganger=0, pile=["gnome"])
    st, ev = choose_seq(st, 0, "play")  # one card: the first Imp takes it at once
    assert coins(st, 0)["cg"] == 4
    assert "no_effect" in types(ev) and st.turn == 2


def test_r24_second_goblin_takes_another_card() -> None:
    """R24: a doubled Goblin draws two cards."""
    st, _ = win_card("goblin", doppelganger=0, pile=["gnome", "alchemist", "wizard"])
    st, ev = act(st, 0, choose("play"))
    assert len(of_type(ev, "copy")) == 2 and len(st.pile) == 0


def test_r24_second_quack_wizard_with_no_stones_scores_the_free_point() -> None:
    """R24: a second Quack Wizard with no stones left scores the free point."""
    st, _ = win_card("quack_wizard", stones={0: "rby"}, doppelganger=0)
    st, _ = act(st, 0, choose("play"))
    assert st.players[0].score == 2 and sum(st.players[0].stones) == 0


def test_r24_doubled_ghost_picks_and_uses_a_card_twice() -> None:
    """R24: a doubled Ghost picks and uses a card twice (the same or another)."""
    st = ghost_state([won("witch", 1), won("gnome", 2), won("red_dragon", 2)], doppelganger=0)
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = choose_seq(st, 0, "play", "gnome")
    assert prompt(st)["character"] == "ghost"
    st, _ = act(st, 0, choose("red_dragon"))
    assert coins(st, 0)["cg"] == 4 and stones_of(st, 0)["red"] == 1


def test_r24_never_a_card_reached_through_the_imp() -> None:
    """R24: the Doppelganger doubles the card won, never a card reached through the Imp."""
    st, _ = win_card("imp", doppelganger=0, pile=["gnome", "wizard"])
    st, _ = choose_seq(st, 0, "keep", "gnome")
    assert coins(st, 0)["cg"] == 4 and st.doppelganger == 0 and st.phase == "bid"


def test_r24_never_a_card_reached_through_the_goblin() -> None:
    """R24: nor through the Goblin."""
    st, _ = win_card("goblin", doppelganger=0, pile=["gnome", "alchemist"])
    st, ev = act(st, 0, choose("keep"))
    assert len(of_type(ev, "copy")) == 1 and st.phase == "bid" and st.doppelganger == 0


def test_r24_second_necromancer_in_one_auction_does_nothing() -> None:
    """R24: a doubled Ghost copying the Necromancer twice: the second use does nothing (the bid
    is already given up): one point only."""
    necro = Record("necromancer", bids={0: Bid(1), 1: Bid(), 2: Bid()}, winner=0)
    st = ghost_state([won("witch", 1), necro], doppelganger=0)
    st, _ = auction(st, {0: bid(fg=3)})
    st, _ = choose_seq(st, 0, "play", "necromancer", "use")
    st, ev = act(st, 0, choose("necromancer"))
    assert "no_effect" in types(ev)
    assert st.players[0].score == 1 and st.phase == "bid"


def test_r24_played_doppelganger_is_used_once_at_the_end_of_the_turn() -> None:
    """R24/R6: a Doppelganger won and played in the same turn lies once in the used pile."""
    st = build(3, card="doppelganger", pile=["gnome"], specials=["doppelganger", "gnome"])
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = act(st, 0, choose("play"))
    assert st.turn == 2
    assert Counter(st.used_specials) == Counter({"doppelganger": 1, "gnome": 1})
    assert st.doppelganger is None
    assert Counter(st.used_specials + st.special_deck + st.specials) == Counter(SPECIAL_DECK)


def test_r24_a_doubled_ghost_may_copy_the_played_doppelganger_and_its_winner_keeps_it() -> None:
    """R24, its last sentence: the holder plays the Doppelganger on the Ghost, so it lies in the
    used specials and nobody holds it (R22); the doubled Ghost may copy it (here with its second
    use, the first copying the Red Dragon), and its winner takes it back and keeps it as if he
    had won it: face up, offered at his next win, his at the end of the turn (not in the used
    specials nor the new deck). A copy of it while he holds it again does nothing (R22)."""
    st = ghost_state(
        [won("witch", 1), won("doppelganger", 0), won("red_dragon", 1)],
        specials=["ghost", "doppelganger"],
        doppelganger=0,
        pile=["blue_dragon"],
    )
    st, _ = auction(st, {0: bid(fg=1)})
    assert prompt(st)["step"] == "play_doppelganger" and prompt(st)["character"] == "ghost"
    st, _ = act(st, 0, choose("play"))
    assert st.doppelganger is None and "doppelganger" in st.used_specials
    st, _ = act(st, 0, choose("red_dragon"))  # the first use
    assert stones_of(st, 0)["red"] == 1
    assert prompt(st)["character"] == "ghost" and "doppelganger" in options(st)
    st, ev = act(st, 0, choose("doppelganger"))  # the second use
    assert "no_effect" not in types(ev)
    assert [e["seat"] for e in of_type(ev, "doppelganger_taken")] == [0]
    assert st.doppelganger == 0 and "doppelganger" not in st.used_specials
    assert engine.view(st, None)["players"][0]["has_doppelganger"] is True
    # Kept as if won: offered at his next win, and his after the end of the turn.
    assert st.card == "blue_dragon"
    st, _ = auction(st, {0: bid(fg=1)})
    assert prompt(st)["step"] == "play_doppelganger" and prompt(st)["character"] == "blue_dragon"
    st, _ = act(st, 0, choose("keep"))
    assert st.turn == 2 and st.doppelganger == 0
    assert "doppelganger" not in st.used_specials + st.special_deck

    # Taken back by the first use, the second use's copy finds it held: nothing.
    st = ghost_state(
        [won("witch", 1), won("doppelganger", 0)],
        specials=["ghost", "doppelganger"],
        doppelganger=0,
        pile=["blue_dragon"],
    )
    st, _ = auction(st, {0: bid(fg=1)})
    st, _ = choose_seq(st, 0, "play", "doppelganger")
    assert st.doppelganger == 0
    st, ev = act(st, 0, choose("doppelganger"))
    assert "no_effect" in types(ev) and st.doppelganger == 0 and st.card == "blue_dragon"


# == Information ===============================================================================

# -- R25 ---------------------------------------------------------------------------------------


def midgame() -> GameState:
    """A state with a bit of everything public and private."""
    st = build(
        4,
        card="red_dragon",
        coins={0: "fg5 sp3 am1", 1: "cg4 si9 bm1", 2: "fg2 sp6"},
        stones={0: "rb", 3: "yyy"},
        scores={1: 1},
        doppelganger=3,
        pile=["wizard", "thief", "gnome"],
        specials=["gnome", "fairy"],
        records=[won("witch", 1), won("fairy", 0)],
    )
    return st


def test_r25_coins_behind_screens_only_in_the_owners_me() -> None:
    """R25: the coins behind a screen are in that seat's `me` only; no other view changes when
    they change."""
    st = midgame()
    for seat in range(4):
        p = st.players[seat]
        assert engine.view(st, seat)["me"]["coins"] == {
            "fairy_gold": p.fairy_gold,
            "common_gold": p.common_gold,
            "silver": p.silver,
            "amulets": p.amulets,
            "black_magic": p.black_magic,
        }
    assert engine.view(st, None)["me"] is None
    other = st.clone()
    q = other.players[1]
    q.fairy_gold, q.common_gold, q.silver, q.amulets, q.black_magic = 0, 0, 1, 1, 0
    for viewer in (None, 0, 2, 3):
        assert engine.view(st, viewer) == engine.view(other, viewer)
    assert engine.view(st, 1) != engine.view(other, 1)


def test_r25_sealed_bid_not_shown_to_others() -> None:
    """R25: the content of a bid not yet revealed is private to its owner."""
    st = midgame()
    a, _ = act(st, 1, bid(cg=4, black_magic=True))
    b, _ = act(st, 1, bid())
    for seat in (None, 0, 2, 3):
        assert engine.view(a, seat) == engine.view(b, seat)
    assert engine.view(a, 1)["me"]["bid"]["black_magic"] is True


def test_r25_public_information_in_every_view() -> None:
    """R25: scores, stones, spent Fairy Gold, revealed cards and bids, the specials, who holds
    the Doppelganger, who won each auction, and the bank are public (spectators included)."""
    st = midgame()
    st, _ = auction(st, {0: bid(fg=2), 2: bid(fg=1)})
    for seat in (None, 0, 1, 2, 3):
        v = engine.view(st, seat)
        json.dumps(v)  # JSON-serialisable
        assert [p["score"] for p in v["players"]] == [0, 1, 0, 0]
        assert [p["stones"] for p in v["players"]] == [
            {"red": 2, "blue": 1, "yellow": 0},
            {"red": 0, "blue": 0, "yellow": 0},
            {"red": 0, "blue": 0, "yellow": 0},
            {"red": 0, "blue": 0, "yellow": 3},
        ]
        assert [p["fairy_gold_spent"] for p in v["players"]] == [5, 0, 7, 0]
        assert [p["has_doppelganger"] for p in v["players"]] == [False, False, False, True]
        assert v["specials"] == ["gnome", "fairy"]
        assert [(r["character"], r["winner"]) for r in v["turn_cards"]] == [
            ("witch", 1),
            ("fairy", 0),
            ("red_dragon", 0),
        ]
        assert v["turn_cards"][-1]["bids"]["2"]["fairy_gold"] == 1
        assert v["bank"] == {
            "fairy_gold": st.bank.fairy_gold,
            "common_gold": st.bank.common_gold,
            "silver": st.bank.silver,
            "amulets": st.bank.amulets,
            "stones": {"red": 10, "blue": 11, "yellow": 9},
        }
        assert v["turn"] == 1 and v["winner"] is None
        assert v["auction"]["character"] == "gnome"  # the pile is popped from its end


def test_r25_order_of_piles_and_the_seed_are_secret() -> None:
    """R25: the order of the turn pile and of the special deck, the generator (the bag's draws
    before they happen) and the seed are secret from all: views do not change with them."""
    st = midgame()
    other = st.clone()
    other.pile.reverse()
    other.special_deck.reverse()
    other.rng ^= 0xDEADBEEF
    other.seed += 1
    for seat in (None, 0, 1, 2, 3):
        v = engine.view(st, seat)
        assert v == {**engine.view(other, seat), "seed_commitment": v["seed_commitment"]}
        assert v["seed"] is None
        assert not {"pile", "special_deck", "rng"} & set(v)
        assert v["pile_count"] == 3 and v["special_deck_count"] == len(st.special_deck)


def test_r25_seed_only_after_game_over_commitment_always() -> None:
    """R25: the seed stays secret until the game is over; its commitment is always public."""
    import hashlib

    st = engine.new_game(3, seed=424242)
    commitment = hashlib.sha256(b"dragonstones:424242").hexdigest()
    for seat in (None, 0, 1, 2):
        v = engine.view(st, seat)
        assert v["seed"] is None and v["seed_commitment"] == commitment
        assert "424242" not in json.dumps(v)
    st.players[0].score = 2
    st.players[0].stones = [0, 0, 0]
    st.card, st.pile = "quack_wizard", ["wizard"]
    st, ev = auction(st, {0: bid(fg=1)})
    assert engine.winner(st) == 0
    for seat in (None, 0, 1, 2):
        v = engine.view(st, seat)
        assert v["seed"] == "424242" and v["seed_commitment"] == commitment
    (over,) = of_type(engine.visible_events(ev, None), "game_over")
    assert over["seed"] == "424242"


def test_r25_private_events_stay_private() -> None:
    """R25: no event any seat can see holds another seat's private coins: only the Brigand's haul
    is private, and only to the two players concerned."""
    st = midgame()
    all_events: Events = []
    st, ev = auction(st, {0: bid(fg=2)})
    all_events += ev
    st, ev = auction(st, {1: bid(cg=1)})  # the wizard: silver for seat 1
    all_events += ev
    private = [e for e in all_events if "private_to" in e]
    assert private == []
    for seat in (None, 0, 1, 2, 3):
        for e in engine.visible_events(all_events, seat):
            assert "private_to" not in e


# -- more R24 and R1 combinations -------------------------------------------------------------


def test_r24_doubled_thief_robs_twice_each_use_choosing() -> None:
    """R24/R15: a doubled Thief robs twice; each use chooses its victim and stone."""
    st, _ = win_card("thief", players=4, doppelganger=0, stones={1: "r", 2: "bb", 3: "y"})
    st, _ = act(st, 0, choose("play"))
    assert victims(st) == [1, 2, 3]  # the only bidder: every other player is second
    st, _ = act(st, 0, choose("seat2"))
    assert victims(st) == [1, 2, 3]
    st, _ = act(st, 0, choose("seat3"))
    assert stones_of(st, 0) == {"red": 0, "blue": 1, "yellow": 1}
    assert st.card == "wizard"


def test_r24_doubled_rainbow_dragon_fills_the_bag_again() -> None:
    """R24/R19: the second Rainbow Dragon use puts the whole bank in the bag again."""
    st, _ = win_card("rainbow_dragon", doppelganger=0, bank_stones="r1")
    st, ev = act(st, 0, choose("play"))
    # A bag holding only red: red is named at once and the first draw fails, twice.
    assert [e["failed"] for e in of_type(ev, "rainbow_draw")] == [True, True]
    assert len(of_type(ev, "bag_filled")) == 2
    assert st.bank.stones == [1, 0, 0] and st.bag is None and st.card == "wizard"


def resolve_with_first_options(st: GameState, limit: int = 50) -> GameState:
    """Answer every choose prompt with its first option until an auction opens again."""
    for _ in range(limit):
        ps = engine.prompts(st)
        if not ps or ps[0]["kind"] != "choose":
            return st
        st, _ = act(st, ps[0]["seat"], choose(ps[0]["options"][0]["id"]))
    raise AssertionError("the power never ended")


@pytest.mark.parametrize("card", sorted(CARDS))
def test_r1_every_power_keeps_the_box_exact(card: str) -> None:
    """R1: the bank supply is exactly the box: whatever a power does (here each card, won with a
    mixed bid and resolved with its first options), no coin or stone appears or vanishes."""
    st = build(
        4,
        card=card,
        stones={0: "rrbby", 1: "rby", 2: "yy"},
        coins={0: "am1", 1: "bm1"},
        pile=["magician", "gnome", "wizard"],
        specials=["fairy", card] if CARDS[card].special else ["fairy", "gnome"],
        records=[won("witch", 1), won("thief", 2)],
    )
    assert box_totals(st) == BOX_TOTALS
    st, _ = auction(st, {0: bid(fg=2, cg=1, amulet=True), 1: bid(fg=1), 2: bid(cg=2)})
    st = resolve_with_first_options(st)
    assert box_totals(st) == BOX_TOTALS
    assert st.bag is None


def test_r5_reshuffle_leaves_out_a_doppelganger_won_this_turn() -> None:
    """R5/R6: the Doppelganger won in the turn that empties the deck is not reshuffled into the
    new deck: it stays with its winner."""
    rest = list(SPECIAL_DECK)
    for c in ("fairy", "doppelganger"):
        rest.remove(c)
    st = build(
        3, card="doppelganger", pile=[], specials=["fairy", "doppelganger"], used_specials=rest
    )
    assert st.special_deck == []
    st, ev = auction(st, {2: bid(fg=1)})
    assert "special_deck_reshuffled" in types(ev)
    assert st.turn == 2 and st.doppelganger == 2
    assert "doppelganger" not in st.specials + st.special_deck + st.used_specials
    assert Counter(st.special_deck + st.specials + ["doppelganger"]) == Counter(SPECIAL_DECK)
