"""What every power is made of: the registry of powers by card id (POWERS, filled by the `power`
decorator in engine/powers.py, engine/specials.py and engine/borrowed.py) and the helpers both use
to ask a question or say that a power had no effect."""

from __future__ import annotations

from collections.abc import Callable

from .cards import CARDS
from .events import Events
from .state import COLOURS, GameState, Option, Question, Task

Power = Callable[[GameState, Task, "str | None", Events], "Question | None"]
POWERS: dict[str, Power] = {}


def power(*card_ids: str) -> Callable[[Power], Power]:
    def register(fn: Power) -> Power:
        for card_id in card_ids:
            POWERS[card_id] = fn
        return fn

    return register


def ask(
    task: Task, step: str, text: str, options: list[Option], always_ask: bool = False
) -> Question:
    task.step = step
    return Question(task.seat, task.card, step, text, tuple(options), always_ask)


def name(card: str) -> str:
    return CARDS[card].name_en


def colour_options(colours: list[int], what: str = "") -> list[Option]:
    return [
        Option(COLOURS[c], f"{COLOURS[c].capitalize()}{what}", {"colour": COLOURS[c]})
        for c in colours
    ]


def seat_options(seats: list[int]) -> list[Option]:
    return [Option(f"seat{s}", f"Player {s + 1}", {"seat": s}) for s in seats]


def nothing(task: Task, ev: Events, why: str) -> None:
    ev.items.append(
        {
            "type": "no_effect",
            "template": "{seat}'s %s has no effect: %s." % (name(task.card), why),
            "seat": task.seat,
            "card": task.card,
        }
    )
