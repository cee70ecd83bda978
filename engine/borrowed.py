"""The special characters that use another character's power (R23, R24): the Ghost copies one
auctioned before it this turn; the Imp picks and the Goblin draws one from the characters not yet
auctioned, which then counts as auctioned. Registered in POWERS like the others (engine/power_kit.py;
engine/powers.py imports this module)."""

from __future__ import annotations

from .events import Events
from .power_kit import ask, name, nothing, power
from .state import GameState, Option, Question, Record, Task


@power("ghost")
def ghost(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        cards: list[str] = []
        for record in st.records:
            if record.card != "ghost" and record.card not in cards:
                cards.append(record.card)
        if not cards:
            nothing(task, ev, "no character was auctioned before it")
            return None
        return ask(
            task,
            "card",
            "Ghost: which character's power do you use?",
            [Option(c, name(c), {"card": c}) for c in cards],
        )
    assert choice is not None
    ev.add(
        "copy",
        "{seat} uses the %s's power through the Ghost." % name(choice),
        seat=task.seat,
        card=choice,
        via="ghost",
    )
    st.tasks.append(Task(choice, task.seat, task.auction))
    return None


def take_from_pile(st: GameState, task: Task, card: str, via: str, ev: Events) -> None:
    """R23: the card counts as auctioned, the rest is reshuffled, its power is used at once."""
    st.pile = st.pile[:]  # shared with the state before (see GameState.derive)
    st.pile.remove(card)
    st.records.append(Record(card, via=via))
    st.shuffle(st.pile)
    how = "picks" if via == "imp" else "draws"
    ev.add(
        "copy",
        "{seat} %s the %s with the %s and uses its power." % (how, name(card), name(via)),
        seat=task.seat,
        card=card,
        via=via,
    )
    st.tasks.append(Task(card, task.seat, task.auction))


@power("imp")
def imp(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        if not st.pile:
            nothing(task, ev, "it is the last character of the turn")
            return None
        return ask(
            task,
            "card",
            "Imp: which character not yet auctioned do you take?",
            [Option(c, name(c), {"card": c}) for c in sorted(set(st.pile))],
        )
    assert choice is not None
    take_from_pile(st, task, choice, "imp", ev)
    return None


@power("goblin")
def goblin(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if not st.pile:
        nothing(task, ev, "it is the last character of the turn")
        return None
    take_from_pile(st, task, st.pile[st.below(len(st.pile))], "goblin", ev)
    return None
