"""Properties that hold at every step of every game, checked on random and bot-played games.

At each step: every coin and stone of the box is in exactly one place and none is negative; the
25 special cards likewise; `legal_actions` matches what the seat holds and is accepted by `apply`;
a sample of illegal actions is refused with the right `IllegalAction.code` and changes nothing;
`apply` leaves its input untouched and is deterministic; `dumps`/`loads` round-trips and the loaded
state plays on identically. At the end: one winner, the only one with 3 points or more, and a
replay from the seed and the actions gives the same state.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import engine
from engine.state import GameState
from tests.engine.builder import bid, bot_playout, choose, random_legal_action, state_problems
from tests.engine.builder import tiebreak as tiebreak_action

CODES = {
    "malformed",
    "unknown_seat",
    "game_over",
    "wrong_phase",
    "not_your_turn",
    "already_submitted",
    "unaffordable",
    "unknown_option",
}
Action = engine.Action


# -- the checks ---------------------------------------------------------------------------------


def expect_refused(st: GameState, seat: Any, action: Any, code: str) -> None:
    """`apply` refuses the action with `code`. (The caller checks that the state is unchanged.)"""
    try:
        engine.apply(st, seat, action)
    except engine.IllegalAction as exc:
        assert isinstance(exc, ValueError)
        assert exc.code == code, (seat, action, exc)
        assert exc.message
    else:
        raise AssertionError(f"seat {seat!r} may send {action!r} in phase {st.phase!r}")


def expected_legal(st: GameState, seat: int) -> set[tuple[Any, ...]]:
    """The legal actions of `seat`, worked out from the state itself, as tuples."""
    p = st.players[seat]
    if st.winner is not None:
        return set()
    if st.phase == "bid":
        if seat in st.sealed:
            return set()
        return {
            ("bid", f, c, a, b)
            for f in range(p.fairy_gold + 1)
            for c in range(p.common_gold + 1)
            for a in ((False, True) if p.amulets else (False,))
            for b in ((False, True) if p.black_magic else (False,))
        }
    if st.phase == "tiebreak":
        if seat not in st.tied or seat in st.sealed_tiebreak:
            return set()
        return {
            ("tiebreak", s, a)
            for s in range(p.silver + 1)
            for a in ((False, True) if p.amulets else (False,))
        }
    assert st.question is not None
    if seat != st.question.seat:
        return set()
    return {("choose", o.id) for o in st.question.options}


def as_tuple(action: Action) -> tuple[Any, ...]:
    if action["type"] == "bid":
        return (
            "bid",
            action["fairy_gold"],
            action["common_gold"],
            action["amulet"],
            action["black_magic"],
        )
    if action["type"] == "tiebreak":
        return ("tiebreak", action["silver"], action["amulet"])
    return ("choose", action["option"])


def check_legal_actions(st: GameState, rng: random.Random) -> None:
    """legal_actions is exactly what each seat may do, and a sample of it is accepted."""
    prompted = {p["seat"] for p in engine.prompts(st)}
    for seat in range(len(st.players)):
        legal = engine.legal_actions(st, seat)
        tuples = [as_tuple(a) for a in legal]
        assert len(set(tuples)) == len(tuples), "legal_actions lists an action twice"
        assert set(tuples) == expected_legal(st, seat), (seat, st.phase)
        assert bool(legal) == (seat in prompted), (seat, prompted)
        if not legal:
            continue
        # Bids can be thousands: try both ends and a few at random; every choice and tie-break.
        sample = legal
        if st.phase == "bid" and len(legal) > 4:
            sample = [legal[0], legal[-1], *rng.sample(legal, 2)]
        for action in sample:
            engine.apply(st, seat, action)


def check_illegal_actions(st: GameState, rng: random.Random) -> None:
    """A sample of illegal actions of every kind is refused with the right code. (The caller
    checks that the state is unchanged afterwards.)"""
    n = len(st.players)
    expect_refused(st, n, bid(), "unknown_seat")
    expect_refused(st, -1, choose("x"), "unknown_seat")
    expect_refused(st, True, bid(), "unknown_seat")
    seat = rng.randrange(n)
    shapes: list[Any] = [
        {"type": "pass"},
        {"type": "bid"},
        {**bid(), "silver": 1},
        {"type": "choose"},
        {"option": "x"},
        "bid",
        None,
        [],
        3,
    ]
    for action in shapes:
        expect_refused(st, seat, action, "malformed")
    # Values of the wrong kind: checked once the action's kind is the one asked now.
    values: dict[str, list[Mapping[str, object]]] = {
        "bid": [
            bid(fg=-1),
            {**bid(), "common_gold": "1"},
            {**bid(), "fairy_gold": 1.0},
            {**bid(), "amulet": 1},
            {**bid(), "black_magic": None},
        ],
        "tiebreak": [
            tiebreak_action(silver=True),
            tiebreak_action(silver=-2),
            {**tiebreak_action(), "amulet": "yes"},
        ],
        "choose": [{"type": "choose", "option": bad} for bad in (3, None, ["a"])],
        "over": [],
    }
    for action in values[st.phase]:
        expect_refused(st, seat, action, "malformed")
    if st.winner is not None:
        for action in (bid(), tiebreak_action(), choose("done")):
            expect_refused(st, seat, action, "game_over")
        return
    others = {
        "bid": (tiebreak_action(), choose("x")),
        "tiebreak": (bid(), choose("x")),
        "choose": (bid(), tiebreak_action()),
    }[st.phase]
    for action in others:
        expect_refused(st, seat, action, "wrong_phase")
    if st.phase == "bid":
        for s in range(n):
            p = st.players[s]
            if s in st.sealed:
                expect_refused(st, s, bid(), "already_submitted")
                continue
            expect_refused(st, s, bid(fg=p.fairy_gold + 1), "unaffordable")
            expect_refused(st, s, bid(cg=p.common_gold + 1 + rng.randrange(50)), "unaffordable")
            if not p.amulets:
                expect_refused(st, s, bid(amulet=True), "unaffordable")
            if not p.black_magic:
                expect_refused(st, s, bid(black_magic=True), "unaffordable")
    elif st.phase == "tiebreak":
        for s in range(n):
            p = st.players[s]
            if s not in st.tied:
                expect_refused(st, s, tiebreak_action(), "not_your_turn")
            elif s in st.sealed_tiebreak:
                expect_refused(st, s, tiebreak_action(), "already_submitted")
            else:
                expect_refused(st, s, tiebreak_action(silver=p.silver + 1), "unaffordable")
                if not p.amulets:
                    expect_refused(st, s, tiebreak_action(amulet=True), "unaffordable")
    else:
        q = st.question
        assert q is not None
        for s in range(n):
            if s != q.seat:
                expect_refused(st, s, choose(q.options[0].id), "not_your_turn")
        for option in ("nope", "", q.options[0].id.upper() + "?", "seat99"):
            expect_refused(st, q.seat, choose(option), "unknown_option")


def check_contract_shapes(st: GameState) -> None:
    """Prompts and views have the shapes CONTRACT.md fixes, and views agree with the state."""
    for prompt in engine.prompts(st):
        assert isinstance(prompt["seat"], int) and prompt["character"] in engine.CHARACTER_IDS
        if prompt["kind"] == "bid":
            assert set(prompt["max"]) == {"fairy_gold", "common_gold", "amulet", "black_magic"}
        elif prompt["kind"] == "tiebreak":
            assert set(prompt["max"]) == {"silver", "amulet"}
        else:
            assert prompt["kind"] == "choose" and isinstance(prompt["question"], str)
            ids = [o["id"] for o in prompt["options"]]
            # One option resolves at once (R14), except the Merchant's "done", asked so as not
            # to tell the table what the screen lacks (P11).
            assert len(set(ids)) == len(ids), ids
            assert len(ids) >= 2 or (prompt["character"] == "merchant" and ids == ["done"]), ids
            assert all(
                isinstance(o["id"], str) and isinstance(o["label"], str) and o["label"]
                for o in prompt["options"]
            )
    public = engine.view(st, None)
    assert public["me"] is None and public["turn"] == st.turn and public["winner"] == st.winner
    assert [p["seat"] for p in public["players"]] == list(range(len(st.players)))
    for p, shown in zip(st.players, public["players"], strict=True):
        assert shown["score"] == p.score and shown["fairy_gold_spent"] == p.fairy_gold_spent
        assert list(shown["stones"].values()) == p.stones
        assert shown["has_doppelganger"] == (st.doppelganger == p.seat)
    bank = st.bank
    assert public["bank"] == {
        "fairy_gold": bank.fairy_gold,
        "common_gold": bank.common_gold,
        "silver": bank.silver,
        "amulets": bank.amulets,
        "stones": dict(zip(("red", "blue", "yellow"), bank.stones, strict=True)),
    }
    assert public["bag"] == (
        None if st.bag is None else dict(zip(("red", "blue", "yellow"), st.bag, strict=True))
    )
    seat = st.turn % len(st.players)
    me = engine.view(st, seat)["me"]
    p = st.players[seat]
    assert me["seat"] == seat and me["coins"] == {
        "fairy_gold": p.fairy_gold,
        "common_gold": p.common_gold,
        "silver": p.silver,
        "amulets": p.amulets,
        "black_magic": p.black_magic,
    }


def check_step(
    before: GameState,
    before_dump: str,
    seat: int,
    action: Action,
    after: GameState,
    events: list[dict[str, object]],
) -> str:
    """What must hold for one accepted action; returns `dumps(after)`."""
    problems = state_problems(after)
    assert not problems, f"after seat {seat} sent {action}: {problems}"
    text = engine.dumps(after)
    loaded = engine.loads(text)
    assert loaded == after
    assert engine.dumps(loaded) == text
    # Deterministic, and the text form holds everything that matters: the same action on the
    # state rebuilt from its text gives the same result.
    again, again_events = engine.apply(engine.loads(before_dump), seat, action)
    assert engine.dumps(again) == text
    assert again_events == events
    json.dumps(events)
    return text


class GameChecker:
    """Applies actions to one game, checking everything at every step."""

    def __init__(self, players: int, seed: int, rng: random.Random) -> None:
        self.players, self.seed, self.rng = players, seed, rng
        self.state = engine.new_game(players, seed)
        self.dump = engine.dumps(self.state)
        self.history: list[tuple[int, Action]] = []
        self.event_types: Counter[str] = Counter()
        assert not state_problems(self.state), state_problems(self.state)

    def step(self, seat: int, action: Action) -> None:
        st = self.state
        check_legal_actions(st, self.rng)
        check_illegal_actions(st, self.rng)
        check_contract_shapes(st)
        assert as_tuple(action) in expected_legal(st, seat)
        after, events = engine.apply(st, seat, action)
        # Neither the refused actions, nor the legal ones tried, nor this one changed `st`.
        assert engine.dumps(st) == self.dump, "apply changed its input state"
        self.dump = check_step(st, self.dump, seat, action, after, events)
        self.event_types.update(str(e["type"]) for e in events)
        self.history.append((seat, action))
        self.state = after
        if len(self.history) % 97 == 0:
            self.check_replay()

    def check_replay(self) -> None:
        replayed = engine.replay(self.players, self.seed, self.history)
        assert engine.dumps(replayed) == engine.dumps(self.state)

    def finish(self) -> None:
        """The game is over: one winner, the only one with 3 points or more."""
        st = self.state
        assert st.winner is not None
        assert engine.winner(st) == st.winner
        assert [p.seat for p in st.players if p.score >= 3] == [st.winner]
        assert engine.prompts(st) == []
        assert all(engine.legal_actions(st, s) == [] for s in range(self.players))
        assert self.event_types["game_over"] == 1
        check_illegal_actions(st, self.rng)
        check_contract_shapes(st)
        assert engine.dumps(st) == self.dump
        self.check_replay()


# -- hypothesis: the first actions chosen by hypothesis, the rest by a seeded generator ---------

PREFIX = 80  # hypothesis draws this many actions (it shrinks a failure to the fewest)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(players=hs.integers(3, 6), seed=hs.integers(0, 2**64), data=hs.data())
def test_hypothesis_games_keep_every_invariant(
    players: int, seed: int, data: hs.DataObject
) -> None:
    rng = random.Random(data.draw(hs.integers(0, 2**32), label="rest of the game"))
    game = GameChecker(players, seed, rng)
    while game.state.winner is None:
        assert len(game.history) < 20_000, "no winner after 20,000 actions"
        prompts = engine.prompts(game.state)
        if len(game.history) < PREFIX:
            prompt = data.draw(hs.sampled_from(prompts), label="who acts")
            legal = engine.legal_actions(game.state, prompt["seat"])
            action = data.draw(hs.sampled_from(legal), label="action")
        else:
            prompt = rng.choice(prompts)
            action = random_legal_action(game.state, prompt["seat"], prompt, rng)
        game.step(prompt["seat"], action)
    game.finish()


# -- any value at all as an action or a seat: refused with IllegalAction, or legal -------------

json_values = hs.recursive(
    hs.none()
    | hs.booleans()
    | hs.integers(-3, 100)
    | hs.floats(allow_nan=False)
    | hs.text(max_size=8),
    lambda inner: (
        hs.lists(inner, max_size=3) | hs.dictionaries(hs.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=hs.integers(3, 6), seed=hs.integers(0, 2**32), steps=hs.integers(0, 250), data=hs.data()
)
def test_any_action_is_either_legal_or_refused(
    players: int, seed: int, steps: int, data: hs.DataObject
) -> None:
    rng = random.Random(seed)
    st = engine.new_game(players, seed)
    for _ in range(steps):
        if st.winner is not None:
            break
        prompt = rng.choice(engine.prompts(st))
        st, _ = engine.apply(
            st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng)
        )
    seat: Any = data.draw(hs.integers(0, players - 1) | json_values, label="seat")  # any JSON
    prompts = engine.prompts(st)
    base: Action = engine.legal_actions(st, prompts[0]["seat"])[0] if prompts else bid()
    how = data.draw(hs.sampled_from(["any", "field", "drop", "add", "type"]), label="how")
    action: Any
    if how == "any":
        action = data.draw(json_values, label="action")
    elif how == "field":
        key = data.draw(hs.sampled_from(sorted(base)), label="key")
        action = {**base, key: data.draw(json_values, label="value")}
    elif how == "drop":
        key = data.draw(hs.sampled_from(sorted(base)), label="key")
        action = {k: v for k, v in base.items() if k != key}
    elif how == "add":
        action = {**base, data.draw(hs.text(max_size=12), label="key"): 1}
    else:
        action = {
            **base,
            "type": data.draw(
                hs.sampled_from(["bid", "tiebreak", "choose"]) | json_values, label="type"
            ),
        }
    before = engine.dumps(st)
    try:
        engine.apply(st, seat, action)
    except engine.IllegalAction as exc:
        assert exc.code in CODES
        assert engine.dumps(st) == before
    else:
        assert isinstance(seat, int) and 0 <= seat < players
        assert action in engine.legal_actions(st, seat)
        assert engine.dumps(st) == before


# -- long seeded playouts by the bots, at every table size --------------------------------------

MIXES = {"random": ["random"], "heuristic": ["heuristic"], "mixed": ["heuristic", "random"]}
PLAYOUTS = [
    (players, mix, seed)
    for players in (3, 4, 5, 6)
    for mix in MIXES
    for seed in (11 * players + 1, 7919 * players + 3)
]
SEEN: Counter[str] = Counter()  # event types seen in the playouts, for the coverage check


@pytest.mark.parametrize(("players", "mix", "seed"), PLAYOUTS)
def test_bot_playout_keeps_every_invariant(players: int, mix: str, seed: int) -> None:
    rng = random.Random(seed)
    game = GameChecker(players, seed, rng)
    for before, seat, action, _after, _events in bot_playout(players, seed, MIXES[mix]):
        assert engine.dumps(before) == engine.dumps(game.state)
        game.step(seat, action)
    game.finish()
    SEEN.update(game.event_types)


def test_playouts_reach_the_rare_rules() -> None:
    """The playouts above are only worth something if they reach the rare rules."""
    wanted = {
        "tiebreak_revealed",
        "cursed",
        "no_winner",
        "steal",
        "brigand_haul",
        "troll",
        "buy",
        "copy",
        "doppelganger_taken",
        "doppelganger_played",
        "rainbow_draw",
        "rainbow_end",
        "necromancer",
        "special_deck_reshuffled",
        "auto_choice",
        "pay_stones",
        "game_over",
        "turn_ended",
    }
    if not wanted <= set(SEEN):
        # Run alone, or on a worker (pytest-xdist) that ran only some of the playouts: play them
        # all here (they are seeded, so these are the same games).
        for players, mix, seed in PLAYOUTS:
            for _before, _seat, _action, _after, events in bot_playout(players, seed, MIXES[mix]):
                SEEN.update(str(e["type"]) for e in events)
    assert wanted <= set(SEEN), f"never seen: {sorted(wanted - set(SEEN))}"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        "null",
        "1",
        '"state"',
        "{}",
        '{"format": 1}',
        '{"format": 99}',
        '{"format": 1, "players": []}',
    ],
)
def test_loads_refuses_what_is_not_a_state(text: str) -> None:
    with pytest.raises(engine.IllegalAction) as info:
        engine.loads(text)
    assert info.value.code == "malformed"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("bank", [1]),
        ("players", [[0]]),
        ("tasks", [[1]]),
        ("seed", "abc"),
        ("records", [{}]),
        ("sealed", 3),
    ],
)
def test_loads_refuses_a_damaged_state(key: str, value: object) -> None:
    data = json.loads(engine.dumps(engine.new_game(3, 1)))
    data[key] = value
    with pytest.raises(engine.IllegalAction) as info:
        engine.loads(json.dumps(data))
    assert info.value.code == "malformed"


GAME_SCRIPT = """
import hashlib, json, random, sys
sys.path.insert(0, sys.argv[1])
import engine
from tests.engine.builder import random_legal_action
digest = hashlib.sha256()
for players, seed in ((3, 5), (6, 2**70 + 1)):
    rng = random.Random(seed)
    st = engine.new_game(players, seed)
    while st.winner is None:
        prompt = rng.choice(engine.prompts(st))
        st, events = engine.apply(st, prompt["seat"], random_legal_action(st, prompt["seat"], prompt, rng))
        digest.update(json.dumps(events, sort_keys=True).encode())
    digest.update(engine.dumps(st).encode())
print(digest.hexdigest())
"""


def test_the_same_seed_gives_the_same_game_in_every_process() -> None:
    """No set order, str hash or id leaks into the rules: other hash seeds, same games."""
    root = str(Path(__file__).resolve().parents[2])
    digests = set()
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", GAME_SCRIPT, root],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests
