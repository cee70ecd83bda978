"""The actions a seat sends, as types: one per prompt kind, told apart by their "type".

What `legal_actions`, `timeout_action` and the bots return. `apply` takes any mapping all the same
(whatever a client sent) and checks it against these shapes: its `ACTION_KEYS` come from here.
"""

from __future__ import annotations

from typing import Literal, TypedDict


class BidAction(TypedDict):
    """A sealed bid: Fairy Gold and Common Gold, and whether an amulet or a Black Magic token
    goes with it."""

    type: Literal["bid"]
    fairy_gold: int
    common_gold: int
    amulet: bool
    black_magic: bool


class TiebreakAction(TypedDict):
    """A sealed tie-break bid: Silver, and whether an amulet goes with it."""

    type: Literal["tiebreak"]
    silver: int
    amulet: bool


class ChooseAction(TypedDict):
    """The answer to a `choose` prompt: the id of one of its options."""

    type: Literal["choose"]
    option: str


Action = BidAction | TiebreakAction | ChooseAction
