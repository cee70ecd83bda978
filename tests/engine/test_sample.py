"""engine.sample_world: a world drawn from one seat's view is a legal state, shows that seat exactly
what its view shows, and holds every coin, stone and card of the box.

The states are taken at random points of games played by a mix of random and heuristic players (so
that odd corners: ties, curses, the Merchant, the Rainbow Dragon's bag, a played Doppelganger, are
reached), for a random seat; the drawn world is then played on to check the engine accepts it.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import engine
from engine.bots import HeuristicBot
from engine.state import GameState
from tests.engine.builder import random_legal_action, state_problems

PLAY_ON = 40  # actions played in the drawn world after it is drawn


def game_state(players: int, seed: int, steps: int, random_share: float) -> GameState:
    """The state after `steps` actions (or the end) of a game of mixed random/heuristic play."""
    rng = random.Random(seed)
    heuristic = [HeuristicBot(seed * 7 + s) for s in range(players)]
    st = engine.new_game(players, seed)
    for _ in range(steps):
        if st.winner is not None:
            break
        prompt = engine.prompts(st)[rng.randrange(len(engine.prompts(st)))]
        seat = prompt["seat"]
        if rng.random() < random_share:
            action = random_legal_action(st, seat, prompt, rng)
        else:
            action = heuristic[seat].act(engine.view(st, seat), prompt)
        st, _ = engine.apply(st, seat, action)
    return st


def play_on(st: GameState, rng: random.Random) -> None:
    """Any legal action of any open prompt is accepted, for a few dozen actions."""
    for _ in range(PLAY_ON):
        if st.winner is not None:
            return
        prompt = rng.choice(engine.prompts(st))
        legal = engine.legal_actions(st, prompt["seat"])
        assert legal
        st, _ = engine.apply(
            st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng)
        )
        assert not state_problems(st), state_problems(st)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=hs.integers(3, 6),
    seed=hs.integers(0, 2**32),
    steps=hs.integers(0, 400),
    random_share=hs.sampled_from([0.0, 0.3, 1.0]),
    seat_pick=hs.integers(0, 5),
    world_seed=hs.integers(0, 2**32),
)
def test_a_drawn_world_is_legal_agrees_with_the_view_and_holds_the_box(
    players: int, seed: int, steps: int, random_share: float, seat_pick: int, world_seed: int
) -> None:
    st = game_state(players, seed, steps, random_share)
    seat = seat_pick % players
    seen = engine.view(st, seat)
    world = engine.sample_world(seen, seat, random.Random(world_seed))
    # Agrees exactly with the view; the seat's own prompts (limits, options) are the same too.
    assert engine.view(world, seat) == seen
    assert engine.prompts(world, seat=seat) == engine.prompts(st, seat=seat)
    assert engine.legal_actions(world, seat) == engine.legal_actions(st, seat)
    # The box: every coin, stone and special card in exactly one place; phase and prompts agree.
    assert state_problems(world) == []
    # A legal state: it survives a round trip and the engine plays on from it.
    assert engine.view(engine.loads(engine.dumps(world)), seat) == seen
    play_on(world, random.Random(world_seed))


def test_the_hidden_part_is_drawn_not_copied() -> None:
    """Worlds differ where the seat cannot see (else the search would be reading the real
    state): over a few draws the others' coins and the pile's order take several values."""
    st = game_state(4, 11, 30, 0.0)
    seen = engine.view(st, 0)
    rng = random.Random(3)
    worlds = [engine.sample_world(seen, 0, rng) for _ in range(20)]
    assert len({(w.players[1].fairy_gold, w.players[2].silver) for w in worlds}) > 1
    assert len({tuple(w.pile) for w in worlds}) > 1
    assert all(engine.view(w, 0) == seen for w in worlds)


def test_the_same_view_and_generator_give_the_same_world() -> None:
    st = game_state(5, 4, 120, 0.3)
    seen = engine.view(st, 2)
    a = engine.sample_world(seen, 2, random.Random(9))
    b = engine.sample_world(seen, 2, random.Random(9))
    assert engine.dumps(a) == engine.dumps(b)


def test_only_the_seats_own_view_is_accepted() -> None:
    st = engine.new_game(3, 1)
    try:
        engine.sample_world(engine.view(st, None), 0, random.Random(1))
    except ValueError:
        pass
    else:
        raise AssertionError("a public view was accepted")
    try:
        engine.sample_world(engine.view(st, 1), 0, random.Random(1))
    except ValueError:
        pass
    else:
        raise AssertionError("another seat's view was accepted")
