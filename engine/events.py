"""Events: what `apply` returns, one dict per thing that happened, and their sentences for the log.

An event carries its fields and a `template` naming seats as {seat}, {victim}, {winner}; the
sentence ("text") is built only when asked for (`complete`, `render`), since most readers of
events never need it.
"""

from __future__ import annotations

from collections.abc import Callable


class Events:
    """Collects the events of one `apply`, in order."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[dict[str, object]] = []

    def add(
        self, type_: str, template: str | None, private_to: list[int] | None = None, **data: object
    ) -> None:
        """Record an event. `template` names seats as {seat}, {victim}, ... (see render); None
        for the types of LATE_TEMPLATES, built from the fields when asked for."""
        # The sentence ("text") is built only when asked for, by view.visible_events.
        event: dict[str, object] = (
            {"type": type_, **data}
            if template is None
            else {"type": type_, "template": template, **data}
        )
        if private_to is not None:
            event["private_to"] = sorted(set(private_to))
        self.items.append(event)


SEAT_KEYS = ("seat", "victim", "winner")
# Event types whose template is built from their fields only when asked for (by `complete` or
# `render`): the long ones, which most events' readers never need.
LATE_TEMPLATES: dict[str, Callable[[dict[str, object]], str]] = {}


def complete(event: dict[str, object]) -> dict[str, object]:
    """Add, in place, the template and the sentence that `apply` left out; returns the event."""
    if "template" not in event:
        event["template"] = LATE_TEMPLATES[str(event["type"])](event)
    if "text" not in event:
        event["text"] = render(event, None)
    return event


def render(event: dict[str, object], names: list[str] | None) -> str:
    """The event's sentence, with seats named by `names` (or "Player N", N = seat + 1)."""
    template = event.get("template")
    if template is None:
        template = LATE_TEMPLATES[str(event["type"])](event)
    assert isinstance(template, str)
    if "{" not in template:
        return template
    values: dict[str, object] = {}
    for key, value in event.items():
        if key in SEAT_KEYS and isinstance(value, int):
            values[key] = names[value] if names and value < len(names) else f"Player {value + 1}"
        else:
            values[key] = value
    return template.format_map(values)
