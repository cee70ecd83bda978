"""No engine call changes a state: not the one passed to it, not one it returned earlier.

`apply` builds each state by copy-on-write, sharing with the state before it every player, record
and list it does not change (engine/state.py). A rule that changed a shared part in place would
change the state before too: a saved game, a state the server still holds, a bot's look-ahead.
So, in random playouts, every state is fingerprinted (a deep structural text of all its fields,
made without any engine code) when it is first returned, and:

- after every call of every public function on the current state (at every tie-break and choice,
  at every fourth bid) (apply, prompts with and without
  a viewer, legal_actions, view, timeout_action, dumps, winner, is_over, visible_events, loads),
  the current state still has its fingerprint;
- what those calls return (and the events of `apply`) is then scribbled over (every list and dict in it changed), and the
  state must still have its fingerprint: nothing returned is a window into the state;
- after every `apply`, the state given; every 100 actions and at the end, every state of the game so far still has its fingerprint;
- a state rebuilt by `loads` plays on without touching the original.
"""

from __future__ import annotations

import contextlib
import copy
import random
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as hs

import engine
from engine.state import GameState
from tests.engine.builder import random_legal_action

CHECK_ALL_EVERY = 100
READ_CALLS_EVERY = 4  # in the bid phase; at every step of the others


def fingerprint(value: Any) -> str:
    """A deep text of a state's fields (slotted dataclasses, named tuples, lists, dicts)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


# The fields a slotted dataclass is fingerprinted by, per class (None: not such a class). Worked
# out once per class: the fingerprints are most of this test's time.
_FIELDS: dict[type, list[str] | None] = {}


def _fields(cls: type) -> list[str] | None:
    if cls not in _FIELDS:
        slots = getattr(cls, "__slots__", None)
        # Fields outside the game (compare=False: the copy-on-write token, caches) left out.
        _FIELDS[cls] = (
            [name for name, f in cls.__dataclass_fields__.items() if f.compare]  # type: ignore[attr-defined]
            if slots and not issubclass(cls, tuple)
            else None
        )
    return _FIELDS[cls]


def _write(value: Any, out: list[str]) -> None:
    cls = type(value)
    if cls is int or cls is str or cls is bool or value is None:
        out.append(repr(value))
        return
    fields = _fields(cls)
    if fields is not None:
        out.append(cls.__name__ + "(")
        for name in fields:
            out.append(name + "=")
            _write(getattr(value, name), out)
            out.append(",")
        out.append(")")
    elif isinstance(value, dict):
        out.append("{")
        for k, v in value.items():
            out.append(repr(k) + ":")
            _write(v, out)
            out.append(",")
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for v in value:
            _write(v, out)
            out.append(",")
        out.append("]")
    else:
        out.append(repr(value))


def scribble(value: Any) -> None:
    """Change every list and dict inside `value`, as a careless caller might."""
    if isinstance(value, dict):
        for v in list(value.values()):
            scribble(v)
        for k in list(value):
            value[k] = "scribbled"
        value["scribbled"] = True
    elif isinstance(value, list):
        for v in value:
            scribble(v)
        value.append("scribbled")


class Watch:
    """Every state of one game with its fingerprint taken when it was first returned."""

    def __init__(self) -> None:
        self.states: list[tuple[GameState, str]] = []

    def add(self, st: GameState) -> None:
        self.states.append((st, fingerprint(st)))

    def check_last(self, what: str) -> None:
        st, mark = self.states[-1]
        assert fingerprint(st) == mark, f"{what} changed the state it was given"

    def check_all(self, what: str) -> None:
        for i, (st, mark) in enumerate(self.states):
            assert fingerprint(st) == mark, f"state {i} changed, found after {what}"


def every_read_call(st: GameState, watch: Watch, events: list[dict[str, object]]) -> None:
    """Call every function that reads a state; check it, and check it again after scribbling
    over each result."""
    n = len(st.players)
    calls: list[tuple[str, Any]] = [
        ("prompts", lambda: engine.prompts(st)),
        ("prompts(seat=None)", lambda: engine.prompts(st, seat=None)),
        ("winner", lambda: engine.winner(st)),
        ("is_over", lambda: engine.is_over(st)),
        ("dumps", lambda: engine.dumps(st)),
        ("visible_events", lambda: [engine.visible_events(events, s) for s in (None, *range(n))]),
        ("view(None)", lambda: engine.view(st, None)),
    ]
    for seat in range(n):
        calls += [
            (f"prompts(seat={seat})", lambda s=seat: engine.prompts(st, seat=s)),
            (f"view({seat})", lambda s=seat: engine.view(st, s)),
        ]
        if st.phase != "bid":  # bids can be thousands of actions: the other phases suffice
            calls.append((f"legal_actions({seat})", lambda s=seat: engine.legal_actions(st, s)))
        if any(p["seat"] == seat for p in engine.prompts(st)):
            calls.append((f"timeout_action({seat})", lambda s=seat: engine.timeout_action(st, s)))
    for what, call in calls:
        result = call()
        watch.check_last(what)
        scribble(result)
        watch.check_last(f"changing what {what} returned")


def playout(players: int, seed: int, rng: random.Random, max_actions: int = 3000) -> int:
    st = engine.new_game(players, seed)
    watch = Watch()
    watch.add(st)
    events: list[dict[str, object]] = []
    steps = 0
    while not engine.is_over(st) and steps < max_actions:
        if st.phase != "bid" or steps % READ_CALLS_EVERY == 0:
            every_read_call(st, watch, events)
        prompt = rng.choice(engine.prompts(st))
        seat = prompt["seat"]
        if rng.random() < 0.1:
            action = engine.timeout_action(st, seat)
        else:
            action = random_legal_action(st, seat, prompt, rng)
        if rng.random() < 0.05:
            # A state rebuilt from its text shares nothing with the original.
            loaded = engine.loads(engine.dumps(st))
            engine.apply(loaded, seat, dict(action))
            watch.check_last("apply on a loaded copy")
        # Refused actions change nothing either.
        for bad in ({**action, "type": "nope"}, {"type": "choose", "option": "nope"}):
            with contextlib.suppress(engine.IllegalAction):
                engine.apply(st, seat, bad)
        st, events = engine.apply(st, seat, action)
        watch.check_all("apply") if steps % CHECK_ALL_EVERY == 0 else watch.check_last("apply")
        watch.add(st)
        kept = copy.deepcopy(events)
        scribble(events)
        watch.check_last("changing the events apply returned")
        events = kept
        steps += 1
    every_read_call(st, watch, events)
    watch.check_all("the end of the game")
    return steps


# No shrinking: each example is a whole game, and the failure message names the call.
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(players=hs.integers(3, 6), seed=hs.integers(0, 2**64), rest=hs.integers(0, 2**32))
def test_no_engine_call_changes_a_state(players: int, seed: int, rest: int) -> None:
    playout(players, seed, random.Random(rest))


def test_the_fingerprint_sees_a_change_anywhere() -> None:
    """The check itself can fail: a change deep in a state changes its fingerprint."""
    st = engine.new_game(4, 3)
    st, _ = engine.apply(st, 0, engine.timeout_action(st, 0))
    mark = fingerprint(st)
    for change in (
        lambda s: s.players[2].stones.__setitem__(1, 99),
        lambda s: s.sealed.clear(),
        lambda s: s.pile.reverse(),
        lambda s: setattr(s.bank, "silver", 0),
    ):
        copy = st.clone()
        change(copy)
        assert fingerprint(copy) != mark
    assert fingerprint(st) == mark
