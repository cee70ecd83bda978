"""Every character's power, one function each, registered in POWERS by card id (the special
characters' in engine/specials.py and engine/borrowed.py; the registry and the helpers both use in
engine/power_kit.py).

A power is called with the task being resolved and `choice=None` the first time. It either finishes
(returns None) or asks a question (returns a Question, after setting `task.step`); the engine then
calls it again with the chosen option id. Powers never see illegal choices: the engine checks the
option against the question first. A question with a single option is answered at once (R14).
"""

from __future__ import annotations

from . import borrowed, specials  # noqa: F401  (the special characters register themselves on import)
from .cards import CARDS
from .events import Events
from .ledger import (
    describe_stones,
    pay_stones,
    score,
    stones_dict,
    take_from_bank,
    take_stone_from_bank,
)
from .power_kit import POWERS as POWERS
from .power_kit import ask, colour_options, name, nothing, power, seat_options
from .state import (
    COLOURS,
    GameState,
    Option,
    Question,
    Task,
)


def stone_combinations(have: list[int], n: int) -> list[list[int]]:
    """Every way to pay `n` stones out of `have` (by colour), in a stable order."""
    combos = []
    for r in range(min(have[0], n), -1, -1):
        for b in range(min(have[1], n - r), -1, -1):
            y = n - r - b
            if 0 <= y <= have[2]:
                combos.append([r, b, y])
    return combos


def combo_id(stones: list[int]) -> str:
    return "-".join(f"{COLOURS[i]}{k}" for i, k in enumerate(stones) if k)


def combo_options(have: list[int], n: int) -> list[Option]:
    return [
        Option(combo_id(c), f"Pay {describe_stones(c)}", {"stones": stones_dict(c)})
        for c in stone_combinations(have, n)
    ]


def parse_combo(option: str) -> list[int]:
    stones = [0, 0, 0]
    for part in option.split("-"):
        for i, colour in enumerate(COLOURS):
            if part.startswith(colour):
                stones[i] = int(part[len(colour) :])
    return stones


# -- standard characters ----------------------------------------------------------------------


@power("witch")
def witch(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    # Black Magic coins are unlimited (R1): a second Witch use gives another one (R24).
    st.player(task.seat).black_magic += 1
    ev.items.append(
        {
            "type": "gain",
            "template": "{seat} takes a Black Magic coin.",
            "seat": task.seat,
            "coin": "black_magic",
            "amount": 1,
        }
    )
    return None


DRAGON_COLOUR = {"red_dragon": 0, "blue_dragon": 1, "yellow_dragon": 2}


@power(*DRAGON_COLOUR)
def dragon(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    take_stone_from_bank(st, task.seat, DRAGON_COLOUR[task.card], ev)
    return None


def pay_or_take(
    st: GameState,
    task: Task,
    choice: str | None,
    ev: Events,
    *,
    can_pay: bool,
    pay_label: str,
    coin: str,
    amount: int,
    take_label: str,
) -> str | Question | None:
    """The either/or cards (R14): returns "pay" when the player chose to pay."""
    if task.step == "":
        options = [Option("pay", pay_label)] if can_pay else []
        options.append(Option(coin, take_label))
        return ask(task, "option", f"{name(task.card)}: which power do you use?", options)
    if task.step == "option" and choice == coin:
        take_from_bank(st, task.seat, coin, amount, ev)
        return None
    return "pay"


# Cards that pay any N stones for points, or else take coins (R4, R21).
ANY_STONES: dict[str, tuple[int, int, str, int, str]] = {
    # card: (stones, points, coin taken instead, how many, label)
    "magician": (4, 1, "silver", 3, "Take 3 Silver"),
    "enchantress": (5, 2, "fairy_gold", 1, "Take 1 Fairy Gold"),
}


@power(*ANY_STONES)
def any_stones(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    n, points, coin, amount, take_label = ANY_STONES[task.card]
    have = st.players[task.seat].stones
    if task.step == "stones":
        assert choice is not None
        pay_stones(st, task.seat, parse_combo(choice), ev)
        score(st, task.seat, points, ev)
        return None
    r = pay_or_take(
        st,
        task,
        choice,
        ev,
        can_pay=sum(have) >= n,
        pay_label=f"Pay {n} stones for {points} point{'s' if points > 1 else ''}",
        coin=coin,
        amount=amount,
        take_label=take_label,
    )
    if r != "pay":
        return r if isinstance(r, Question) else None
    return ask(
        task, "stones", f"{name(task.card)}: which {n} stones do you pay?", combo_options(have, n)
    )


@power("wizard")
def wizard(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    have = st.players[task.seat].stones
    r = pay_or_take(
        st,
        task,
        choice,
        ev,
        can_pay=min(have) >= 1,
        pay_label="Pay 1 red, 1 blue and 1 yellow stone for 1 point",
        coin="silver",
        amount=3,
        take_label="Take 3 Silver",
    )
    if r != "pay":
        return r if isinstance(r, Question) else None
    pay_stones(st, task.seat, [1, 1, 1], ev)
    score(st, task.seat, 1, ev)
    return None


@power("sorcerer")
def sorcerer(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    have = st.players[task.seat].stones
    if task.step == "colour":
        assert choice is not None
        stones = [0, 0, 0]
        stones[COLOURS.index(choice)] = 4
        pay_stones(st, task.seat, stones, ev)
        score(st, task.seat, 2, ev)
        return None
    r = pay_or_take(
        st,
        task,
        choice,
        ev,
        can_pay=max(have) >= 4,
        pay_label="Pay 4 stones of one colour for 2 points",
        coin="common_gold",
        amount=1,
        take_label="Take 1 Common Gold",
    )
    if r != "pay":
        return r if isinstance(r, Question) else None
    colours = [c for c in range(3) if have[c] >= 4]
    return ask(
        task,
        "colour",
        "Sorcerer: which colour do you pay 4 stones of?",
        colour_options(colours, " ×4"),
    )


def thief_seconds(st: GameState, task: Task) -> list[int]:
    """R15: the highest values below the winner's in the auction won (its tie-break if any)."""
    record = st.records[task.auction]
    pool: dict[int, int]
    if record.tiebreak is not None:
        pool = {s: b.value for s, b in record.tiebreak.items()}
    else:
        pool = {s: b.value for s, b in (record.bids or {}).items()}
    others = {s: v for s, v in pool.items() if s != task.seat}
    if not others:
        return []
    best = max(others.values())
    return sorted(s for s, v in others.items() if v == best)


@power("thief")
def thief(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        seconds = thief_seconds(st, task)
        with_stones = [s for s in seconds if sum(st.players[s].stones) > 0]
        victims = with_stones or seconds
        if not victims:
            nothing(task, ev, "there is no second bidder")
            return None
        return ask(task, "victim", "Thief: whom do you rob?", seat_options(victims))
    if task.step == "victim":
        assert choice is not None
        victim = int(choice.removeprefix("seat"))
        task.target = victim
        have = st.players[victim].stones
        if sum(have) > 0:
            return ask(
                task,
                "stone",
                "Thief: which stone do you take?",
                colour_options([c for c in range(3) if have[c] > 0], " stone"),
            )
        steal_coin(st, task, victim, ev)
        return None
    assert task.step == "stone" and choice is not None and task.target is not None
    colour = COLOURS.index(choice)
    st.player(task.target).stones[colour] -= 1
    st.player(task.seat).stones[colour] += 1
    ev.add(
        "steal",
        "{seat} steals a %s stone from {victim}." % choice,
        seat=task.seat,
        victim=task.target,
        stone=choice,
    )
    return None


def steal_coin(st: GameState, task: Task, victim: int, ev: Events) -> None:
    """R15: no stone, then a Common Gold; failing that an unspent Fairy Gold; failing that nothing."""
    thief_p, victim_p = st.player(task.seat), st.player(victim)
    for coin, label in (("common_gold", "Common Gold"), ("fairy_gold", "Fairy Gold")):
        if getattr(victim_p, coin) > 0:
            setattr(victim_p, coin, getattr(victim_p, coin) - 1)
            setattr(thief_p, coin, getattr(thief_p, coin) + 1)
            ev.add(
                "steal",
                "{seat} steals a %s from {victim}, who has no stone." % label,
                seat=task.seat,
                victim=victim,
                coin=coin,
            )
            return None
    ev.add(
        "steal",
        "{seat} steals nothing: {victim} has no stone and no gold.",
        seat=task.seat,
        victim=victim,
        coin=None,
    )
    return None


assert set(POWERS) == set(CARDS), set(CARDS) ^ set(POWERS)
