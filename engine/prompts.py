"""Who must act now and on what: the prompts (each viewer's own in full, the others' reduced),
the documented default of an open prompt (for a time limit), the legal actions, the end of the
game. The only place that decides what a prompt shows."""

from __future__ import annotations

from typing import Any

from .action_types import Action
from .actions import apply
from .errors import IllegalAction
from .game import Event
from .state import GameState, Option, Question

# `prompts(state)` without a seat: every prompt in full, as before the viewer argument existed.
_EVERY_SEAT: Any = object()


def is_over(st: GameState) -> bool:
    """Whether the game is over: the one place that says so (a winner ends it, R7)."""
    return st.winner is not None


def _open_seats(st: GameState) -> list[tuple[int, str]]:
    """(seat, kind) of every open prompt, in seat order ([] once the game is over)."""
    if st.winner is not None:
        return []
    if st.phase == "bid":
        sealed = st.sealed
        return [(p.seat, "bid") for p in st.players if p.seat not in sealed]
    if st.phase == "tiebreak":
        return [(s, "tiebreak") for s in st.tied if s not in st.sealed_tiebreak]
    q = st.question
    assert q is not None
    return [(q.seat, "choose")]


def _full_prompt(st: GameState, seat: int, kind: str) -> dict[str, Any]:
    if kind == "bid":
        player = st.players[seat]
        return {
            "seat": seat,
            "kind": "bid",
            "character": st.card,
            "max": {
                "fairy_gold": player.fairy_gold,
                "common_gold": player.common_gold,
                "amulet": player.amulets > 0,
                "black_magic": player.black_magic > 0,
            },
        }
    if kind == "tiebreak":
        player = st.players[seat]
        return {
            "seat": seat,
            "kind": "tiebreak",
            "character": st.card,
            "max": {"silver": player.silver, "amulet": player.amulets > 0},
        }
    q = st.question
    assert q is not None
    return {
        "seat": q.seat,
        "kind": "choose",
        "character": q.character,
        "step": q.step,
        "question": q.text,
        "options": [_option(o) for o in q.options],
    }


def _option(o: Option) -> dict[str, Any]:
    out: dict[str, Any] = {"id": o.id, "label": o.label}
    for key, value in o.data.items():
        # A copy of any list or dict: what a prompt returns is the caller's to change.
        out[key] = value.copy() if isinstance(value, (list, dict)) else value
    return out


def _public_prompt(st: GameState, seat: int, kind: str) -> dict[str, Any]:
    # Limits and options could reveal coins behind the screen (R25): only who and on what.
    q = st.question
    character = q.character if kind == "choose" and q is not None else st.card
    return {"seat": seat, "kind": kind, "character": character}


def prompts(st: GameState, seat: Any = _EVERY_SEAT) -> list[dict[str, Any]]:
    """Who must act now, and on what. [] once the game is over.

    Without `seat`: every prompt in full. With `seat=<int>`: that seat's prompts in full, the
    others' as `seat`/`kind`/`character` only. With `seat=None`: the public list (every prompt
    reduced), the same list as the public view's "awaiting".
    """
    if seat is _EVERY_SEAT:
        if st.phase == "bid" and st.winner is None:  # the common case, built in one go
            sealed, card = st.sealed, st.card
            out = []
            for p in st.players:  # a loop, not a comprehension: no function call (Python 3.11)
                if p.seat not in sealed:
                    # A player's limits, made once per player (see Player.bid_max); a copy given.
                    limits = p.bid_max
                    if limits is None:
                        limits = p.bid_max = {
                            "fairy_gold": p.fairy_gold,
                            "common_gold": p.common_gold,
                            "amulet": p.amulets > 0,
                            "black_magic": p.black_magic > 0,
                        }
                    out.append(
                        {"seat": p.seat, "kind": "bid", "character": card, "max": limits.copy()}
                    )
            return out
        return [_full_prompt(st, s, kind) for s, kind in _open_seats(st)]
    if seat is None and st.phase == "bid" and st.winner is None:  # every view asks for this one
        sealed, card = st.sealed, st.card
        out = []
        for p in st.players:
            if p.seat not in sealed:
                out.append({"seat": p.seat, "kind": "bid", "character": card})
        return out
    return [
        _full_prompt(st, s, kind) if s == seat else _public_prompt(st, s, kind)
        for s, kind in _open_seats(st)
    ]


# The default of each `choose` step when its seat runs out of time or leaves (docs/rules.md):
# the option that gives up nothing, else the first option in the prompt's stable order.
PASSIVE_OPTIONS = ("keep", "stop", "done", "decline")
TAKE_COINS_STEP = "option"  # Magician, Wizard, Sorcerer, Enchantress: take the coins, pay nothing


def timeout_action(st: GameState, seat: int) -> Action:
    """The documented default action of `seat`'s open prompt: an empty bid, a tie-break of zero
    Silver, or a `choose` prompt's default (see docs/rules.md). Always legal.

    Raises IllegalAction("not_your_turn") if the seat is asked nothing now.
    """
    for s, kind in _open_seats(st):
        if s != seat:
            continue
        if kind == "bid":
            return {
                "type": "bid",
                "fairy_gold": 0,
                "common_gold": 0,
                "amulet": False,
                "black_magic": False,
            }
        if kind == "tiebreak":
            return {"type": "tiebreak", "silver": 0, "amulet": False}
        q = st.question
        assert q is not None
        return {"type": "choose", "option": default_option(q)}
    if st.winner is not None:
        raise IllegalAction("game_over", "the game is over")
    raise IllegalAction("not_your_turn", f"seat {seat!r} is asked nothing now")


def time_out(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """`seat` ran out of time (or is answered for): apply its documented default action, with a
    public `timed_out` event first so that the log says so ("Time ran out for Bea: no bid.").

    The action to store and replay is `timeout_action(state, seat)`: `apply` of it gives the same
    state. Raises IllegalAction like `timeout_action`."""
    action = timeout_action(state, seat)
    st, events = apply(state, seat, action)
    kind = action["type"]
    if action["type"] == "bid":
        what = "no bid"
    elif action["type"] == "tiebreak":
        what = "no Silver in the tie-break"
    else:
        q = state.question
        assert q is not None
        label = next(o.label for o in q.options if o.id == action["option"])
        what = label.replace("{", "{{").replace("}", "}}")
    event: Event = {
        "type": "timed_out",
        "template": "Time ran out for {seat}: %s." % what,
        "seat": seat,
        "prompt": kind,
        "action": action,
    }
    return st, [event, *events]


def default_option(q: Question) -> str:
    ids = [o.id for o in q.options]
    for passive in PASSIVE_OPTIONS:
        if passive in ids:
            return passive
    if q.step == TAKE_COINS_STEP:
        return next(i for i in ids if i != "pay")
    return ids[0]


def legal_actions(st: GameState, seat: int) -> list[Action]:
    """Every action `seat` may send now, in a stable order ([] if none)."""
    for prompt in prompts(st):
        if prompt["seat"] != seat:
            continue
        limits = prompt.get("max", {})
        if prompt["kind"] == "bid":
            return [
                {"type": "bid", "fairy_gold": f, "common_gold": c, "amulet": a, "black_magic": b}
                for f in range(limits["fairy_gold"] + 1)
                for c in range(limits["common_gold"] + 1)
                for a in ((False, True) if limits["amulet"] else (False,))
                for b in ((False, True) if limits["black_magic"] else (False,))
            ]
        if prompt["kind"] == "tiebreak":
            return [
                {"type": "tiebreak", "silver": s, "amulet": a}
                for s in range(limits["silver"] + 1)
                for a in ((False, True) if limits["amulet"] else (False,))
            ]
        return [{"type": "choose", "option": o["id"]} for o in prompt["options"]]
    return []


def winner(st: GameState) -> int | None:
    """The winning seat, or None while the game goes on."""
    return st.winner
