"""The viewer-aware API: `prompts(state, seat=...)`, `timeout_action`, `is_over`.

- `prompts(state)` is every prompt in full; `prompts(state, seat=s)` is the same list with the
  other seats' prompts cut to `seat`/`kind`/`character`; `prompts(state, seat=None)` cuts them all,
  and is the public view's "awaiting" (which adds a choose prompt's public `step`).
- `timeout_action(state, seat)` is always among `legal_actions(state, seat)` when the seat is asked
  something, is the documented default (empty bid, zero Silver, the choose defaults of
  docs/rules.md), and raises `not_your_turn` (or `game_over`) when it is not.
- `is_over` is true exactly when there is a winner, and then there is no prompt.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import engine
from engine.state import GameState
from tests.engine.builder import act, auction, bid, build, choose, random_legal_action

PUBLIC_KEYS = {"seat", "kind", "character"}
EMPTY_BID = {
    "type": "bid",
    "fairy_gold": 0,
    "common_gold": 0,
    "amulet": False,
    "black_magic": False,
}
ZERO_TIEBREAK = {"type": "tiebreak", "silver": 0, "amulet": False}
# docs/rules.md, "Defaults when time runs out": the option a choose step falls back to.
PASSIVE = ("keep", "stop", "done", "decline")


def check_api(st: GameState) -> None:
    full = engine.prompts(st)
    assert engine.is_over(st) == (engine.winner(st) is not None)
    assert engine.is_over(st) == (not full)
    public = engine.prompts(st, seat=None)
    assert public == [{k: p[k] for k in PUBLIC_KEYS} for p in full]
    awaiting = engine.view(st, None)["awaiting"]
    assert [{k: a[k] for k in PUBLIC_KEYS} for a in awaiting] == public
    for seat in range(len(st.players)):
        mine = engine.prompts(st, seat=seat)
        assert mine == [p if p["seat"] == seat else {k: p[k] for k in PUBLIC_KEYS} for p in full]
        assert engine.view(st, seat)["awaiting"] == awaiting
        legal = engine.legal_actions(st, seat)
        if not legal:
            with pytest.raises(engine.IllegalAction) as exc:
                engine.timeout_action(st, seat)
            assert exc.value.code == ("game_over" if engine.is_over(st) else "not_your_turn")
            continue
        default = engine.timeout_action(st, seat)
        assert default in legal, (default, st.phase)
        (prompt,) = [p for p in full if p["seat"] == seat]
        if prompt["kind"] == "bid":
            assert default == EMPTY_BID
        elif prompt["kind"] == "tiebreak":
            assert default == ZERO_TIEBREAK
        else:
            assert default["type"] == "choose"
            ids = [o["id"] for o in prompt["options"]]
            passive = [i for i in PASSIVE if i in ids]
            if passive:
                assert default["option"] == passive[0]
            elif prompt["step"] == "option":
                assert default["option"] != "pay"
            else:
                assert default["option"] == ids[0]
        after, events = engine.apply(st, seat, default)
        timed, timed_events = engine.time_out(st, seat)
        # time_out is that default with a public "time ran out" line first, and nothing else.
        assert engine.dumps(timed) == engine.dumps(after)
        first = timed_events[0]
        assert first["type"] == "timed_out" and first["seat"] == seat
        assert first["prompt"] == prompt["kind"] and first["action"] == default
        assert timed_events[1:] == events
        (line,) = engine.visible_events([first], None)
        text = line["text"]
        assert isinstance(text, str) and text.startswith(f"Time ran out for Player {seat + 1}: ")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=hs.integers(3, 6), seed=hs.integers(0, 2**64), timeouts=hs.floats(0, 1))
def test_prompts_by_viewer_and_timeout_action_in_random_games(
    players: int, seed: int, timeouts: float
) -> None:
    """Random games where a share of the actions are the timeout defaults: at every step the
    three prompt lists agree and every default is legal."""
    rng = random.Random(seed)
    st = engine.new_game(players, seed)
    steps = 0
    while not engine.is_over(st) and steps < 3000:
        check_api(st)
        prompt = rng.choice(engine.prompts(st))
        seat = prompt["seat"]
        if rng.random() < timeouts:
            action = engine.timeout_action(st, seat)
        else:
            action = random_legal_action(st, seat, prompt, rng)
        st, _ = engine.apply(st, seat, action)
        steps += 1
    check_api(st)


def test_a_game_of_timeouts_only_ends() -> None:
    """Defaults alone never loop forever: empty bids let nobody win, so the game goes on turn
    after turn; this checks only that every step accepts its default."""
    st = engine.new_game(4, 11)
    for _ in range(500):
        prompt = engine.prompts(st)[0]
        st, _ = engine.apply(st, prompt["seat"], engine.timeout_action(st, prompt["seat"]))
    assert st.turn > 10


def test_prompts_for_a_seat_reduce_the_others() -> None:
    st = engine.new_game(3, 5)
    mine = engine.prompts(st, seat=1)
    assert [set(p) for p in mine] == [PUBLIC_KEYS, {*PUBLIC_KEYS, "max"}, PUBLIC_KEYS]
    assert engine.prompts(st, seat=None) == [
        {"seat": s, "kind": "bid", "character": "witch"} for s in range(3)
    ]
    # A seat number with no prompt (a spectator's socket, a bad number) sees the public list.
    assert engine.prompts(st, seat=7) == engine.prompts(st, seat=None)


def won_by_seat0(card: str, **kwargs: Any) -> GameState:
    """Seat 0 wins `card` with 1 Fairy Gold; the power's first question is open."""
    st, _ = auction(build(3, card=card, **kwargs), {0: bid(1)})
    return st


@pytest.mark.parametrize(
    ("card", "stones", "expected"),
    [
        ("magician", "r4", "silver"),  # pay or take: take the coins
        ("wizard", "rby", "silver"),
        ("sorcerer", "r4", "common_gold"),
        ("enchantress", "r5", "fairy_gold"),
    ],
)
def test_either_or_cards_default_to_the_coins(card: str, stones: str, expected: str) -> None:
    st = won_by_seat0(card, stones={0: stones})
    assert st.question is not None and st.question.step == "option", st.question
    assert engine.timeout_action(st, 0) == choose(expected)


def test_passive_defaults() -> None:
    """Necromancer: decline; Merchant: done; the Doppelganger offer: keep; Rainbow: stop."""
    st = won_by_seat0("necromancer")
    assert engine.timeout_action(st, 0) == choose("decline")
    st = won_by_seat0("merchant", coins={0: "cg3"})
    assert engine.timeout_action(st, 0) == choose("done")
    st = won_by_seat0("troll", doppelganger=0)
    assert engine.timeout_action(st, 0) == choose("keep")
    st = won_by_seat0("rainbow_dragon")
    assert engine.timeout_action(st, 0) == choose("red")
    st, _ = act(st, 0, choose("red"))
    while st.question is not None and st.question.step == "draw":
        assert engine.timeout_action(st, 0) == choose("stop")
        st, _ = act(st, 0, choose("draw"))


def test_other_steps_default_to_the_first_option() -> None:
    st = won_by_seat0("troll")
    assert engine.timeout_action(st, 0) == choose("red")
    st = won_by_seat0("brigand")
    assert engine.timeout_action(st, 0) == choose("seat1")
    st = won_by_seat0("imp", pile=["wizard", "thief", "magician"])
    assert engine.timeout_action(st, 0) == choose("magician")  # options sorted by id


def test_timeout_action_refuses_a_seat_with_nothing_to_do() -> None:
    st = won_by_seat0("troll")
    with pytest.raises(engine.IllegalAction) as exc:
        engine.timeout_action(st, 1)
    assert exc.value.code == "not_your_turn"
