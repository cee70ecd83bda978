"""The rulings this project added where the rules and the rulings R1-R25 are silent
(docs/rules.md, "Rulings this project added": P1-P3 and P5-P19; P4 was withdrawn when R22 ruled
on the played Doppelganger, whose tests are in test_rulings.py)."""

from __future__ import annotations

import engine

from .builder import act, auction, bid, build, choose, options, stones_of, tiebreak


def test_p1_a_player_with_nothing_still_bids_and_is_never_skipped() -> None:
    st = build(3, card="red_dragon", coins={1: "fg0 cg0 si0"})
    prompts = engine.prompts(st)
    assert [p["seat"] for p in prompts] == [0, 1, 2]
    assert engine.legal_actions(st, 1) == [bid()]
    st, _ = act(st, 0, bid(2))
    st, _ = act(st, 2, bid(1))
    assert st.phase == "bid"  # the empty fist is still awaited
    st, events = act(st, 1, bid())
    assert any(e["type"] == "auction_won" and e["winner"] == 0 for e in events)


def test_p1_a_tied_player_without_silver_still_answers_the_tiebreak() -> None:
    st = build(3, card="red_dragon", coins={1: "si0"})
    st, _ = auction(st, {0: bid(2), 1: bid(2)})
    assert st.phase == "tiebreak"
    assert {p["seat"] for p in engine.prompts(st)} == {0, 1}
    assert engine.legal_actions(st, 1) == [tiebreak()]


def test_p2_magician_asks_which_stones_only_when_there_is_a_choice() -> None:
    st = build(3, card="magician", stones={0: "rrbyy"})
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["pay", "silver"]
    st, _ = act(st, 0, choose("pay"))
    assert engine.prompts(st)[0]["step"] == "stones"
    assert "red2-blue1-yellow1" in options(st)
    st = build(3, card="magician", stones={0: "rrby"})
    st, _ = auction(st, {0: bid(1)})
    st, events = act(st, 0, choose("pay"))
    assert stones_of(st, 0) == {"red": 0, "blue": 0, "yellow": 0}
    assert st.players[0].score == 1
    assert any(e["type"] == "auto_choice" for e in events)


def test_p3_ghost_may_copy_a_card_taken_by_the_imp_and_the_imp_itself() -> None:
    st = build(3, card="imp", pile=["ghost", "red_dragon"], specials=["imp", "ghost"])
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["ghost", "red_dragon"]
    st, _ = act(st, 0, choose("ghost"))
    ghost_options = options(st)
    assert "imp" in ghost_options and "witch" in ghost_options and "ghost" not in ghost_options


def test_p5_rainbow_dragon_stops_when_the_bag_runs_out() -> None:
    st = build(3, card="rainbow_dragon", bank_stones="b1", stones={0: "r12 b5", 1: "b6 y12"})
    st, _ = auction(st, {2: bid(1)})
    # Only blue is in the bag, so the named colour is blue and the first draw fails.
    assert st.phase == "bid" and stones_of(st, 2) == {"red": 0, "blue": 0, "yellow": 0}
    st = build(3, card="rainbow_dragon", bank_stones="b1 r1", stones={0: "r11 b5", 1: "b6 y12"})
    st, _ = auction(st, {2: bid(1)})
    st, _ = act(st, 2, choose("red"))
    if stones_of(st, 2)["blue"] == 1:  # drew the blue: the bag holds only red, which he named
        assert st.phase == "choose" and options(st) == ["draw", "stop"]
        st, _ = act(st, 2, choose("draw"))
        assert stones_of(st, 2)["blue"] == 0  # drew the red: everything back
    assert st.bag is None
    assert st.bank.stones[0] + st.bank.stones[1] == 2


def test_p5_rainbow_dragon_with_an_empty_bank_has_no_effect() -> None:
    st = build(3, card="rainbow_dragon", stones={0: "r12 b12", 1: "y12"})
    st, events = auction(st, {2: bid(1)})
    assert any(e["type"] == "no_effect" and e["card"] == "rainbow_dragon" for e in events)
    assert st.bag is None and st.phase == "bid"


def test_p6_necromancer_won_with_common_gold_scores_for_nothing() -> None:
    st = build(3, card="necromancer")
    st, _ = auction(st, {0: bid(0, 2)})
    assert options(st) == ["use", "decline"]
    st, _ = act(st, 0, choose("use"))
    assert st.players[0].score == 1 and st.players[0].fairy_gold_spent == 0


def test_p7_doppelganger_played_on_the_witch_gives_two_black_magic_coins() -> None:
    st = build(
        3, card="witch", doppelganger=0, pile=["red_dragon"], specials=["doppelganger", "fairy"]
    )
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["play", "keep"]
    st, _ = act(st, 0, choose("play"))
    assert st.players[0].black_magic == 2
    assert st.doppelganger is None


def test_p8_troll_may_name_a_colour_nobody_holds() -> None:
    st = build(3, card="troll", stones={0: "rr", 1: "b"})
    st, _ = auction(st, {0: bid(1)})
    assert options(st) == ["red", "blue", "yellow"]
    before = [p.stones[:] for p in st.players]
    st, _ = act(st, 0, choose("yellow"))
    assert [p.stones for p in st.players] == before


def test_p9_imp_options_are_sorted_not_in_pile_order() -> None:
    pile = ["wizard", "blue_dragon", "thief", "alchemist"]
    for seed in range(5):
        st = build(3, seed=seed, card="imp", pile=pile, specials=["imp", "alchemist"])
        st, _ = auction(st, {0: bid(1)})
        assert options(st) == sorted(pile)


def test_p10_events_name_players_from_one_and_can_use_names() -> None:
    st = build(3, card="red_dragon")
    st, events = auction(st, {1: bid(1)})
    won = next(e for e in engine.visible_events(events, None) if e["type"] == "auction_won")
    assert won["winner"] == 1 and won["text"] == "Player 2 wins the Red Dragon."
    assert engine.render_event(won, ["Ann", "Bob", "Cid"]) == "Bob wins the Red Dragon."


def test_p11_merchant_may_buy_nothing_and_one_who_cannot_pay_is_still_asked() -> None:
    st = build(3, card="merchant")
    st, _ = auction(st, {0: bid(1)})
    assert "done" in options(st) and len(options(st)) > 1
    st, events = act(st, 0, choose("done"))
    assert stones_of(st, 0) == {"red": 0, "blue": 0, "yellow": 0} and st.phase == "bid"
    st = build(3, card="merchant", coins={0: "fg1 cg0 si2"})
    st, events = auction(st, {0: bid(1)})
    assert not any(e["type"] == "auto_choice" for e in events)
    assert options(st) == ["done"]  # the table cannot tell this from a player who stops
    assert engine.view(st, 1) == engine.view(build_twin_with_coins(st), 1)
    st, _ = act(st, 0, choose("done"))
    assert st.phase == "bid"


def build_twin_with_coins(st: engine.GameState) -> engine.GameState:
    twin = engine.loads(engine.dumps(st))
    twin.players[0].common_gold += 1  # a twin world: only what is behind the screen differs
    return twin


def test_p11_merchant_facing_an_empty_bank_ends_at_once() -> None:
    st = build(3, card="merchant", bank_stones="", stones={1: "r12 b12", 2: "y12"})
    st, events = auction(st, {0: bid(1)})
    assert st.phase == "bid" and not any(e["type"] == "auto_choice" for e in events)


def test_p19_merchant_facing_an_empty_bank_logs_that_nothing_happens() -> None:
    """Like the other stone powers with an empty bank (Ancient Dragon, Rainbow Dragon)."""
    st = build(3, card="merchant", bank_stones="", stones={1: "r12 b12", 2: "y12"})
    st, events = auction(st, {0: bid(1)})
    (nothing,) = [e for e in engine.visible_events(events, None) if e["type"] == "no_effect"]
    assert nothing["seat"] == 0 and nothing["card"] == "merchant"
    assert nothing["text"] == "Player 1's Merchant has no effect: the bank has no stone."
    # A Merchant who empties the bank by buying ends without that event: something happened.
    st = build(3, card="merchant", bank_stones="r1", stones={1: "r11 b12", 2: "y12"})
    st, _ = auction(st, {0: bid(1)})
    st, events = act(st, 0, choose("red:common_gold"))
    assert st.phase == "bid" and not any(e["type"] == "no_effect" for e in events)
