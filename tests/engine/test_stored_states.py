"""States stored by an older engine (games in databases) load and play on.

tests/engine/data/states_5827035.json holds states dumped by the engine at commit 5827035 (state
format 1) in every phase, each with an action and the state that engine's `apply` made of it. The
engine of today loads each, dumps it back to the same text, and applies the action to the same
next state; it also plays each loaded state on to the end without error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from tests.engine.builder import random_legal_action

STORED = json.loads((Path(__file__).parent / "data" / "states_5827035.json").read_text())
CASES: list[dict[str, Any]] = STORED["states"]


def test_every_phase_is_stored() -> None:
    phases = {engine.loads(case["state"]).phase for case in CASES}
    assert phases == {"bid", "tiebreak", "choose", "over"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: engine.loads(c["state"]).phase)
def test_an_older_state_loads_and_plays_on(case: dict[str, Any]) -> None:
    st = engine.loads(case["state"])
    assert engine.dumps(st) == case["state"]
    if case["action"] is None:
        assert engine.is_over(st) and engine.prompts(st) == []
        return
    after, _ = engine.apply(st, case["seat"], case["action"])
    assert engine.dumps(after) == case["after"]
    rng = random.Random(0)
    for _ in range(2000):
        if engine.is_over(after):
            break
        prompt = rng.choice(engine.prompts(after))
        after, _ = engine.apply(
            after, prompt["seat"], random_legal_action(after, prompt["seat"], prompt, rng)
        )
