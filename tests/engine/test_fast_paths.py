"""The engine's fast paths answer exactly as its general code does.

`apply` recognises a legal bid in one go and leaves everything else to `_apply`, which checks
every action in the documented order; `prompts` builds the bid phase's lists at once. Here, in
random games, every bid (legal or not: bools for numbers, negatives, floats, missing or extra
fields, unknown or already-bidding seats, more than the seat holds) goes through both `apply`
and `_apply` alone, which must give the same state and events or the same error code; and every
prompt list equals the one built prompt by prompt.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

import engine
from engine.actions import _apply
from engine.prompts import _full_prompt, _open_seats, _public_prompt
from engine.state import GameState
from tests.engine.builder import random_legal_action


def outcome(fn: Any, st: GameState, seat: Any, action: Any) -> tuple[str, Any]:
    try:
        new, events = fn(st, seat, action)
    except engine.IllegalAction as exc:
        return "illegal", exc.code
    return engine.dumps(new), events


def odd_bids(st: GameState, rng: random.Random) -> list[tuple[Any, Any]]:
    """(seat, action) pairs around a bid: legal ones and every kind of malformed or illegal one."""
    seat = rng.randrange(len(st.players))
    p = st.players[seat]
    good = {
        "type": "bid",
        "fairy_gold": rng.randint(0, p.fairy_gold),
        "common_gold": rng.randint(0, p.common_gold),
        "amulet": p.amulets > 0,
        "black_magic": False,
    }
    out: list[tuple[Any, Any]] = [(seat, dict(good))]
    for key, value in [
        ("fairy_gold", True),
        ("fairy_gold", -1),
        ("fairy_gold", 1.0),
        ("common_gold", False),
        ("common_gold", p.common_gold + 1),
        ("fairy_gold", p.fairy_gold + 1),
        ("amulet", 1),
        ("amulet", True),
        ("black_magic", True),
        ("black_magic", 0),
        ("type", "tiebreak"),
        ("type", "choose"),
        ("fairy_gold", 2**70),
    ]:
        out.append((seat, {**good, key: value}))
    out.append((seat, {k: v for k, v in good.items() if k != "amulet"}))
    out.append((seat, {**good, "silver": 0}))
    out.append((seat, {k: v for k, v in good.items() if k != "type"} | {"kind": "bid"}))
    out += [
        (len(st.players), dict(good)),
        (-1, dict(good)),
        (True, dict(good)),
        (float(seat), dict(good)),
        (seat, [good]),
        (seat, None),
    ]
    return out


@pytest.mark.parametrize("players", [3, 4, 6])
def test_apply_and_prompts_agree_with_the_general_code(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for game in range(12):
        st = engine.new_game(players, 1000 + game)
        while not engine.is_over(st):
            open_seats = _open_seats(st)
            assert engine.prompts(st) == [_full_prompt(st, s, k) for s, k in open_seats]
            assert engine.prompts(st, None) == [_public_prompt(st, s, k) for s, k in open_seats]
            if st.phase == "bid":
                for seat, action in odd_bids(st, rng):
                    assert outcome(engine.apply, st, seat, action) == outcome(
                        _apply, st, seat, action
                    ), (seat, action)
                    checked += 1
            prompt = rng.choice(engine.prompts(st))
            st, _ = engine.apply(
                st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng)
            )
    assert checked > 1000


@pytest.mark.parametrize("players", [3, 5])
def test_a_seat_view_is_the_public_view_with_its_own_part(players: int) -> None:
    """The server builds the public view once per version and each seat's "me" alone
    (engine.own): together they are exactly engine.view(state, seat), as JSON text too."""
    rng = random.Random(players)
    for game in range(6):
        st = engine.new_game(players, 2000 + game)
        while True:
            public = engine.view(st, None)
            for seat in [None, *range(players), players, -1]:
                whole = engine.view(st, seat)
                built = {**public, "me": engine.own(st, seat)}
                assert built == whole and list(built) == list(whole)
            if engine.is_over(st):
                break
            prompt = rng.choice(engine.prompts(st))
            st, _ = engine.apply(
                st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng)
            )


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_public_view_built_from_an_earlier_one_is_the_whole_view(players: int) -> None:
    """engine.public_view(state, before) keeps the dicts of the players and records the state
    shares with `before`'s: it must still be exactly view(state, None) (as JSON text too), and
    `before`'s view must not change, whether `before` is the version just before, an older
    one, or a state of another game."""
    rng = random.Random(players)
    other = engine.new_game(players, 1)
    other_view = engine.view(other, None)
    for game in range(6):
        st = engine.new_game(players, 3000 + game)
        history = [(st, engine.public_view(st))]
        while not engine.is_over(st):
            prompt = rng.choice(engine.prompts(st))
            st, _ = engine.apply(
                st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng)
            )
            whole = engine.view(st, None)
            for before in {-1: history[-1], -3: history[max(0, len(history) - 3)]}.values():
                kept = orjson.dumps(before[1])
                built = engine.public_view(st, before)
                assert orjson.dumps(built) == orjson.dumps(whole)
                assert orjson.dumps(before[1]) == kept
            assert engine.public_view(st, (other, other_view)) == whole
            history.append((st, engine.public_view(st, history[-1])))
        # A whole game built version by version, each from the one before, ends as the last view.
        assert history[-1][1] == engine.view(st, None)
