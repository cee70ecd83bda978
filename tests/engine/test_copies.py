"""The engine copies its states, players, banks, records and tasks field by field (engine/state.py,
for speed): each copy must carry every field, so that a field added later is not silently lost."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from engine import state as s


def filled(cls: type) -> Any:
    """An instance of `cls` whose every field holds its own marker list."""
    obj: Any = s.new_object(cls)
    for f in fields(cls):
        setattr(obj, f.name, [f.name])
    return obj


def test_every_copy_carries_every_field() -> None:
    owner = object()
    cases: list[tuple[type, Any, set[str], dict[str, Any]]] = [
        # (class, copy function, fields copied rather than shared, fields set by the copy)
        (
            s.Player,
            lambda p: s._copy_player(p, owner),
            {"stones"},
            {"owner": owner, "bid_max": None},
        ),
        (s.Bank, s._copy_bank, {"stones"}, {}),
        (s.Record, lambda r: s._copy_record(r, owner), set(), {"owner": owner}),
        (s.Task, s._copy_task, {"drawn"}, {}),
        (s.GameState, s.copy_state, set(), {"owner": None}),
    ]
    for cls, copy, copied, set_by_copy in cases:
        original = filled(cls)
        new = copy(original)
        assert type(new) is cls
        for f in fields(cls):
            value, before = getattr(new, f.name), getattr(original, f.name)
            if f.name in set_by_copy:
                assert value is set_by_copy[f.name], (cls, f.name)
            elif f.name in copied:
                assert value == before and value is not before, (cls, f.name)
            else:
                assert value is before, (cls, f.name)


def test_derive_and_share_carry_every_field() -> None:
    import engine

    st = engine.new_game(4, 3)
    for new in (st.derive(), st.share()):
        for f in fields(s.GameState):
            if f.name != "owner":
                assert getattr(new, f.name) == getattr(st, f.name), f.name
    assert st.derive().owner is not None and st.share().owner is None
