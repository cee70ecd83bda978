"""The analysis of a finished game (engine/analysis.py): a planted blunder is labelled a blunder,
a seat's decision is judged from what it could see only, the same game gives the same analysis,
and four hard bots make few decisions it calls mistakes.

Small budgets (a few worlds per decision): these check the method, not its figures, which
bench/analysis.py prints at the default budget.
"""

from __future__ import annotations

import random

import engine
from engine.action_types import Action, ChooseAction
from engine.analysis import (
    analyse_at,
    analyse_game,
    key_moments,
    label,
    share_mistakes,
    summary,
)
from engine.bots import HeuristicBot
from engine.hard import HardBot
from engine.state import GameState
from tests.engine.test_hard_bot import own_prompt, twin
from tests.engine.test_sample import game_state


def heuristic_game(
    players: int, seed: int, stop: int
) -> tuple[GameState, list[tuple[int, Action]]]:
    """The state after `stop` actions of heuristic bots (the first open prompt acts first)."""
    st = engine.new_game(players, seed)
    bots = [HeuristicBot(seed * 10 + s) for s in range(players)]
    actions: list[tuple[int, Action]] = []
    while len(actions) < stop and not engine.is_over(st):
        seat = engine.prompts(st)[0]["seat"]
        prompt = own_prompt(st, seat)
        assert prompt is not None
        action = bots[seat].act(engine.view(st, seat), prompt)
        actions.append((seat, action))
        st, _ = engine.apply(st, seat, action)
    return st, actions


def test_a_planted_blunder_is_labelled_a_blunder() -> None:
    # Seed 10, action 144: the Necromancer offers a seat the point that wins the game.
    st, actions = heuristic_game(4, 10, 144)
    seat = engine.prompts(st)[0]["seat"]
    prompt = own_prompt(st, seat)
    assert prompt is not None and prompt["character"] == "necromancer"
    use: ChooseAction = {"type": "choose", "option": "use"}
    decline: ChooseAction = {"type": "choose", "option": "decline"}
    assert engine.apply(st, seat, use)[0].winner == seat  # the premise: "use" wins at once
    blunder = analyse_game(4, 10, [*actions, (seat, decline)], worlds=6, skip=len(actions))
    assert [d.index for d in blunder] == [144]
    d = blunder[0]
    assert d.label == "blunder", d
    assert d.best == use and d.best_chance == 1.0 and d.chance is not None and d.chance < 0.5
    assert d.loss >= 0.5 and d.playouts > 0
    # The winning choice itself is the best.
    assert analyse_at(st, seat, use, worlds=6).label == "best"


def test_twin_games_the_seat_cannot_tell_apart_get_the_same_analysis() -> None:
    rng = random.Random(8)
    checked = {"bid": 0, "tiebreak": 0, "choose": 0}
    for case in range(300):
        if min(checked.values()) >= 2 and sum(checked.values()) >= 10:
            break
        st = game_state(3 + case % 4, case, rng.randrange(0, 300), 0.3)
        if st.winner is not None:
            continue
        seat = rng.choice([p["seat"] for p in engine.prompts(st)])
        tw = twin(st, seat, rng)
        if engine.dumps(tw) == engine.dumps(st):
            continue
        prompt = own_prompt(st, seat)
        assert prompt is not None
        # The seat's action: anything legal (the same in both games, since it sees the same).
        action = rng.choice(engine.legal_actions(st, seat))
        assert action in engine.legal_actions(tw, seat)
        real, other = (analyse_at(s, seat, action, worlds=3, salt=case) for s in (st, tw))
        assert real == other, (case, st.phase)
        checked[st.phase] += 1
    assert min(checked.values()) >= 2, checked


def test_the_same_game_gives_the_same_analysis_and_the_salt_changes_the_worlds() -> None:
    _, actions = heuristic_game(3, 4, 30)
    first = analyse_game(3, 4, actions, worlds=2)
    assert first == analyse_game(3, 4, actions, worlds=2)
    assert len(first) == 30
    resumed = analyse_game(3, 4, actions, worlds=2, skip=20)
    assert resumed == first[20:]
    salted = analyse_game(3, 4, actions, worlds=2, salt=1)
    assert [d.chance for d in salted] != [d.chance for d in first]


def test_labels_follow_the_thresholds_and_the_noise() -> None:
    assert label(0.0, 0.0) == "best"
    assert label(0.3, 0.2) == "good"  # within the noise
    assert label(0.03, 0.001) == "good"
    assert label(0.06, 0.001) == "inaccuracy"
    assert label(0.12, 0.001) == "mistake"
    assert label(0.25, 0.001) == "blunder"


def test_four_hard_bots_make_few_mistakes() -> None:
    st = engine.new_game(4, 21)
    bots = [HardBot(300 + s, playouts=16) for s in range(4)]
    actions: list[tuple[int, Action]] = []
    while not engine.is_over(st):
        seat = engine.prompts(st)[0]["seat"]
        prompt = own_prompt(st, seat)
        assert prompt is not None
        action = bots[seat].act(engine.view(st, seat), prompt)
        actions.append((seat, action))
        st, _ = engine.apply(st, seat, action)
    decisions = analyse_game(4, 21, actions, worlds=3)
    share = share_mistakes(decisions)
    print(f"four hard bots: {len(decisions)} decisions, {share:.1%} labelled mistake or worse")
    assert share <= 0.10
    rows = summary(decisions, 4)
    assert sum(r["decisions"] for r in rows) == len(actions)
    assert all(set(r["labels"]) >= {"best", "blunder", "forced"} for r in rows)
    moments = key_moments(decisions)
    assert 0 < len(moments) <= 5 and all(m["swing"] != 0 for m in moments)
