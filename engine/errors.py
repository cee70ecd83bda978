"""Typed errors raised by the engine."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow now. Nothing was changed.

    `code` is stable and machine-readable; the message is for people.

    Codes: ``malformed`` (not an action of a known shape), ``unknown_seat``, ``game_over``,
    ``wrong_phase`` (an action of another kind than the one asked now), ``not_your_turn`` (this seat
    is not asked anything now), ``already_submitted`` (a sealed bid or tie-break was already given
    in this auction), ``unaffordable`` (more than the seat holds), ``unknown_option`` (a choice that
    is not among the prompt's options).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
