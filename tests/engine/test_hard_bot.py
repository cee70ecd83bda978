"""The hard bot (engine/hard.py): it decides from what its seat sees, and nothing else; it plays
only legal actions; its budget is respected; its sealed bids are mixed.

Its strength is measured by `dragonstones simulate --bots hard,heuristic,heuristic` (see
docs/rules.md, "The hard bot"), not here.
"""

from __future__ import annotations

import random

import engine
from engine.hard import HardBot
from engine.state import Bid, GameState, TieBid
from tests.engine.test_sample import game_state


def twin(st: GameState, seat: int, rng: random.Random) -> GameState:
    """`st` changed in everything `seat` cannot see: the others' coins (moved between them, each
    still covering his sealed bid), their sealed bids, the order of the pile and of the special
    deck, and the dice to come."""
    tw = engine.loads(engine.dumps(st))
    others = [s for s in range(len(tw.players)) if s != seat]
    for _ in range(20):
        a, b = rng.sample(others, 2)
        giver = tw.players[a]
        for coin in ("fairy_gold", "common_gold", "silver"):
            if getattr(giver, coin) > 0:
                setattr(giver, coin, getattr(giver, coin) - 1)
                setattr(tw.players[b], coin, getattr(tw.players[b], coin) + 1)
    tw.sealed = {s: (b if s == seat else Bid(0, 0)) for s, b in tw.sealed.items()}
    tw.sealed_tiebreak = {s: (b if s == seat else TieBid(0)) for s, b in tw.sealed_tiebreak.items()}
    tw.pile = tw.pile[::-1]
    tw.special_deck = tw.special_deck[::-1]
    tw.rng ^= 0x5DEECE66D
    for p in tw.players:
        p.bid_max = None
    return tw


def own_prompt(st: GameState, seat: int) -> dict[str, object] | None:
    return next((p for p in engine.prompts(st, seat=seat) if p["seat"] == seat), None)


def test_twin_worlds_the_seat_cannot_tell_apart_get_the_same_decision() -> None:
    rng = random.Random(5)
    checked = {"bid": 0, "tiebreak": 0, "choose": 0}
    for case in range(400):
        if min(checked.values()) >= 4 and sum(checked.values()) >= 30:
            break
        st = game_state(3 + case % 4, case, rng.randrange(0, 300), 0.3)
        if st.winner is not None:
            continue
        prompt_seats = [p["seat"] for p in engine.prompts(st)]
        seat = rng.choice(prompt_seats)
        tw = twin(st, seat, rng)
        if engine.dumps(tw) == engine.dumps(st):
            continue
        assert engine.view(tw, seat) == engine.view(st, seat)  # a true twin, for that seat
        prompt = own_prompt(st, seat)
        assert prompt is not None and own_prompt(tw, seat) == prompt
        decisions = [HardBot(case, playouts=60).act(engine.view(s, seat), prompt) for s in (st, tw)]
        assert decisions[0] == decisions[1], (case, st.phase, decisions)
        checked[st.phase] += 1
    assert min(checked.values()) >= 4, checked


def test_the_twins_really_differ_where_the_seat_cannot_see() -> None:
    """The check above can fail: the twin changes the others' coins and the pile."""
    st = game_state(4, 3, 40, 0.0)
    tw = twin(st, 0, random.Random(1))
    assert [p.fairy_gold for p in st.players[1:]] != [p.fairy_gold for p in tw.players[1:]] or [
        p.silver for p in st.players[1:]
    ] != [p.silver for p in tw.players[1:]]
    assert engine.view(tw, 1) != engine.view(st, 1)


def test_it_plays_whole_games_with_legal_actions_and_its_budget() -> None:
    for players in (3, 6):
        st = engine.new_game(players, 17)
        bots = [
            HardBot(s, playouts=30) if s == 0 else engine.bots.make_bot("heuristic", s)
            for s in range(players)
        ]
        while st.winner is None:
            for prompt in engine.prompts(st):
                seat = prompt["seat"]
                action = bots[seat].act(engine.view(st, seat), prompt)
                assert action in engine.legal_actions(st, seat)
                if seat == 0:
                    hard = bots[0]
                    assert isinstance(hard, HardBot)
                    # Whole worlds only: at most the count, bar the first world when it has
                    # more candidates than the count.
                    assert hard.last_playouts <= max(
                        30, len(hard.candidates(engine.view(st, 0), prompt))
                    )
                st, _ = engine.apply(st, seat, action)


def test_a_time_budget_stops_the_search() -> None:
    """With a clock that runs 1 second per call and a 2.5 second budget, three worlds at most."""
    ticks = iter(range(10_000))
    st = engine.new_game(3, 2)
    prompt = own_prompt(st, 0)
    assert prompt is not None
    bot = HardBot(1, playouts=100_000, clock=lambda: float(next(ticks)), seconds=2.5)
    bot.act(engine.view(st, 0), prompt)
    worlds = bot.last_playouts / len(bot.candidates(engine.view(st, 0), prompt))
    assert worlds == 3


def test_sealed_bids_are_mixed_not_a_function_of_the_public_situation() -> None:
    """The same view and prompt, other seeds: the bids differ (near-best candidates are mixed)."""
    st = game_state(4, 8, 0, 0.0)
    prompt = own_prompt(st, 1)
    assert prompt is not None and prompt["kind"] == "bid"
    bids = {
        tuple(sorted(HardBot(seed, playouts=200).act(engine.view(st, 1), prompt).items()))
        for seed in range(12)
    }
    assert len(bids) > 1


def test_make_bot_knows_the_hard_kind() -> None:
    bot = engine.bots.make_bot("hard", 3)
    assert bot.kind == "hard"
    assert isinstance(bot, HardBot)
