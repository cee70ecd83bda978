"""Fist of Dragonstones: the complete base game as a pure, deterministic rules engine.

    state = engine.new_game(players=4, seed=7)
    engine.prompts(state)                 # who must act now, and on what
    engine.prompts(state, seat=2)         # seat 2's prompts in full, the others' reduced
    engine.prompts(state, seat=None)      # the public list: every prompt reduced
    engine.timeout_action(state, seat)    # the documented default of that seat's open prompt
    engine.time_out(state, seat)          # apply it, with a public `timed_out` event first
    engine.is_over(state)                 # whether the game is over
    engine.legal_actions(state, seat)     # every action that seat may send now
    state2, events = engine.apply(state, seat, action)
    engine.view(state, seat)              # what that seat may know (None: public)
    engine.own(state, seat)               # its "me" alone: view(state, None) with it is view(state, seat)
    engine.winner(state)
    engine.dumps(state) / engine.loads(text)
    engine.sample_world(view, seat, rng)  # a full state drawn from what that seat sees

Standard library only; no I/O, no clock, no global randomness: a game is a seed plus its actions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .action_types import Action, BidAction, ChooseAction, TiebreakAction
from .actions import apply
from .cards import CARDS, CHARACTER_IDS, Card
from .errors import IllegalAction
from .events import render
from .game import new_game, start
from .hard import HardBot
from .prompts import (
    is_over,
    legal_actions,
    prompts,
    time_out,
    timeout_action,
    winner,
)
from .sample import sample_world
from .serialize import dumps, loads
from .state import GameState
from .view import own, public_view, view, visible_events

State = GameState


def replay(
    players: int, seed: int, actions: Iterable[tuple[int, Mapping[str, object]]]
) -> GameState:
    """Play a game again from its seed and its actions in order (each a (seat, action) pair)."""
    state = new_game(players, seed)
    for seat, action in actions:
        state, _ = apply(state, seat, action)
    return state


def render_event(event: dict[str, object], names: list[str]) -> str:
    """An event's sentence with the players' names in place of "Player N"."""
    return render(event, names)


__all__ = [
    "CARDS",
    "CHARACTER_IDS",
    "Action",
    "BidAction",
    "Card",
    "ChooseAction",
    "GameState",
    "HardBot",
    "IllegalAction",
    "State",
    "TiebreakAction",
    "apply",
    "dumps",
    "is_over",
    "legal_actions",
    "loads",
    "new_game",
    "own",
    "prompts",
    "public_view",
    "render_event",
    "replay",
    "sample_world",
    "start",
    "time_out",
    "timeout_action",
    "view",
    "visible_events",
    "winner",
]
