"""Actions are typed once: the engine's (engine.action_types) are what the socket's models
(app.core.actions) take and give back, field for field; every action the engine offers passes
the socket unchanged."""

from __future__ import annotations

import random
import typing

from pydantic import BaseModel

import engine
from app.core.actions import Bid, Choose, Tiebreak, game_action
from app.core.messages import ActionIn, client_message


def test_the_sockets_models_have_the_engines_fields() -> None:
    pairs: list[tuple[type, type[BaseModel]]] = [
        (engine.BidAction, Bid),
        (engine.TiebreakAction, Tiebreak),
        (engine.ChooseAction, Choose),
    ]
    for typed, model in pairs:
        hints = typing.get_type_hints(typed)
        assert set(hints) == set(model.model_fields), model
        for name, field in model.model_fields.items():
            assert field.is_required(), (model, name)
            if name != "type":
                assert field.annotation is hints[name], (model, name)
        assert typing.get_args(hints["type"]) == typing.get_args(
            model.model_fields["type"].annotation
        )


def test_every_action_the_engine_offers_passes_the_socket_unchanged() -> None:
    rng = random.Random(5)
    state = engine.new_game(players=4, seed=5)
    kinds: set[str] = set()
    for _ in range(400):
        if engine.is_over(state):
            break
        seat = rng.choice(engine.prompts(state))["seat"]
        for action in [engine.timeout_action(state, seat), *engine.legal_actions(state, seat)]:
            message = client_message.validate_python(
                {"type": "action", "action": action, "action_id": "a1"}
            )
            assert isinstance(message, ActionIn)
            assert message.action.engine_action() == action
            assert game_action.validate_python(action).engine_action() == action
            kinds.add(action["type"])
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    assert kinds == {"bid", "tiebreak", "choose"}
