"""The special characters' powers (R21-R24), one function each, registered in POWERS
(engine/power_kit.py; engine/powers.py imports this module so that the registry is complete)."""

from __future__ import annotations

from .events import Events
from .ledger import (
    describe_stones,
    pay_stones,
    score,
    stones_dict,
    take_from_bank,
    take_stone_from_bank,
)
from .power_kit import (
    ask,
    colour_options,
    nothing,
    power,
    seat_options,
)
from .state import (
    COLOURS,
    GameState,
    Option,
    Question,
    Task,
)

GIFTS: dict[str, tuple[tuple[str, int], ...]] = {
    "alchemist": (("common_gold", 3),),
    "fairy": (("fairy_gold", 1),),
    "gnome": (("common_gold", 2), ("silver", 2)),
    "dwarf_4": (("silver", 4),),
    "dwarf_5": (("silver", 5),),
    "goldsmith": (("amulets", 1),),
}


@power(*GIFTS)
def gift(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    for coin, amount in GIFTS[task.card]:
        take_from_bank(st, task.seat, coin, amount, ev)
    return None


@power("ancient_dragon")
def ancient_dragon(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        colours = [c for c in range(3) if st.bank.stones[c] > 0]
        if not colours:
            nothing(task, ev, "the bank has no stone")
            return None
        return ask(
            task,
            "colour",
            "Ancient Dragon: which stone do you take from the bank?",
            colour_options(colours, " stone"),
        )
    assert choice is not None
    take_stone_from_bank(st, task.seat, COLOURS.index(choice), ev)
    return None


@power("sorcerers_apprentice")
def sorcerers_apprentice(
    st: GameState, task: Task, choice: str | None, ev: Events
) -> Question | None:
    have = st.players[task.seat].stones
    if task.step == "":
        colours = [c for c in range(3) if have[c] >= 2]
        if not colours:
            nothing(task, ev, "no two stones of one colour")
            return None
        return ask(
            task,
            "colour",
            "Sorcerer's Apprentice: which colour do you pay 2 stones of?",
            colour_options(colours, " ×2"),
        )
    assert choice is not None
    stones = [0, 0, 0]
    stones[COLOURS.index(choice)] = 2
    pay_stones(st, task.seat, stones, ev)
    score(st, task.seat, 1, ev)
    return None


@power("quack_wizard")
def quack_wizard(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    have = st.players[task.seat].stones
    if sum(have):
        pay_stones(st, task.seat, have[:], ev)
    score(st, task.seat, 1, ev)  # free when he has no stone (R21, R24)
    return None


@power("brigand")
def brigand(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        others = [p.seat for p in st.players if p.seat != task.seat]
        return ask(
            task,
            "victim",
            "Brigand: whom do you rob of all Common Gold and Silver?",
            seat_options(others),
        )
    assert choice is not None
    victim = int(choice.removeprefix("seat"))
    robber_p, victim_p = st.player(task.seat), st.player(victim)
    common_gold, silver = victim_p.common_gold, victim_p.silver
    robber_p.common_gold += common_gold
    robber_p.silver += silver
    victim_p.common_gold = victim_p.silver = 0
    # R16: the amounts are shown only to the two players concerned.
    ev.add("brigand", "{seat} robs {victim} with the Brigand.", seat=task.seat, victim=victim)
    ev.add(
        "brigand_haul",
        "{seat} takes %d Common Gold and %d Silver from {victim}." % (common_gold, silver),
        private_to=[task.seat, victim],
        seat=task.seat,
        victim=victim,
        common_gold=common_gold,
        silver=silver,
    )
    return None


@power("doppelganger")
def doppelganger(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if st.doppelganger is not None:  # R22: a copy gives the card only if nobody holds it
        nothing(task, ev, "a player holds the Doppelganger")
        return None
    if "doppelganger" in st.used_specials:
        # R22: played earlier this turn, it lies in the used specials, held by nobody: the
        # Ghost's winner takes it from there and keeps it as if he had won it.
        st.used_specials = [c for c in st.used_specials if c != "doppelganger"]
    st.doppelganger = task.seat
    ev.add("doppelganger_taken", "{seat} keeps the Doppelganger face up.", seat=task.seat)
    return None


@power("two_headed_dragon")
def two_headed_dragon(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    bag = [min(2, n) for n in st.bank.stones]
    for c in range(3):
        st.bank.stones[c] -= bag[c]
    drawn = [0, 0, 0]
    for _ in range(min(2, sum(bag))):
        drawn[st.draw_stone(bag)] += 1
    player = st.player(task.seat)
    for c in range(3):
        player.stones[c] += drawn[c]
        st.bank.stones[c] += bag[c]
    ev.add(
        "draw",
        "{seat} draws %s from the bag." % describe_stones(drawn),
        seat=task.seat,
        stones=stones_dict(drawn),
    )
    return None


@power("rainbow_dragon")
def rainbow_dragon(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    player = st.player(task.seat)
    if task.step == "":
        if sum(st.bank.stones) == 0:
            nothing(task, ev, "the bank has no stone")
            return None
        st.bag, st.bank.stones = st.bank.stones, [0, 0, 0]
        ev.add(
            "bag_filled",
            "All %d stones of the bank go into the bag." % sum(st.bag),
            bag=stones_dict(st.bag),
        )
        return rainbow_colour_question(task, st.bag)
    assert st.bag is not None and choice is not None
    if task.step == "colour":
        task.target = COLOURS.index(choice)
        task.drawn = [0, 0, 0]
        ev.add("rainbow_named", "{seat} names %s." % choice, seat=task.seat, colour=choice)
    elif choice == "stop":
        rainbow_end(st, task, ev, "stops and keeps")
        return None
    assert task.target is not None and task.drawn is not None
    colour = st.draw_stone(st.bag)  # the first draw is compulsory (R19)
    if colour == task.target:
        st.bag[colour] += 1
        for c in range(3):  # drawn stones go back into the bag, then all of it to the bank
            player.stones[c] -= task.drawn[c]
            st.bag[c] += task.drawn[c]
        ev.add(
            "rainbow_draw",
            "{seat} draws a %s stone: the named colour! All drawn stones go back."
            % COLOURS[colour],
            seat=task.seat,
            stone=COLOURS[colour],
            failed=True,
            bag=stones_dict(st.bag),
        )
        rainbow_end(st, task, ev, "gives back")
        return None
    player.stones[colour] += 1
    task.drawn[colour] += 1
    ev.add(
        "rainbow_draw",
        "{seat} draws a %s stone." % COLOURS[colour],
        seat=task.seat,
        stone=COLOURS[colour],
        failed=False,
        bag=stones_dict(st.bag),
    )
    # The bag cannot run out here: the named colour stays in it until drawn.
    return rainbow_draw_question(task)


def rainbow_colour_question(task: Task, bag: list[int]) -> Question:
    return ask(
        task,
        "colour",
        "Rainbow Dragon: name a colour. Draw it and you lose all you drew.",
        colour_options([c for c in range(3) if bag[c] > 0]),
    )


def rainbow_draw_question(task: Task) -> Question:
    return ask(
        task,
        "draw",
        "Rainbow Dragon: draw another stone or stop?",
        [Option("draw", "Draw another stone"), Option("stop", "Stop and keep them")],
    )


def rainbow_end(st: GameState, task: Task, ev: Events, verb: str) -> None:
    assert st.bag is not None and task.drawn is not None
    for c in range(3):
        st.bank.stones[c] += st.bag[c]
    st.bag = None
    ev.add(
        "rainbow_end",
        "{seat} %s %s; the bag returns to the bank." % (verb, describe_stones(task.drawn)),
        seat=task.seat,
        stones=stones_dict(task.drawn),
    )
    return None


MERCHANT_PRICES = (
    ("common_gold", 1, "1 Common Gold"),
    ("fairy_gold", 1, "1 Fairy Gold"),
    ("silver", 3, "3 Silver"),
)


@power("merchant")
def merchant(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    player = st.player(task.seat)
    if choice is not None and choice != "done":
        colour_name, coin = choice.split(":")
        colour = COLOURS.index(colour_name)
        price = next(p for c, p, _ in MERCHANT_PRICES if c == coin)
        setattr(player, coin, getattr(player, coin) - price)
        setattr(st.bank, coin, getattr(st.bank, coin) + price)  # Fairy Gold too: gone for good
        st.bank.stones[colour] -= 1
        player.stones[colour] += 1
        ev.add(
            "buy",
            "{seat} buys a %s stone." % colour_name,
            seat=task.seat,
            stone=colour_name,
            coin=coin,
            price=price,
        )
    elif choice == "done":
        return None
    options = []
    for c in range(3):
        if st.bank.stones[c] == 0:
            continue
        for coin, price, label in MERCHANT_PRICES:
            if getattr(player, coin) >= price:
                options.append(
                    Option(
                        f"{COLOURS[c]}:{coin}",
                        f"Buy a {COLOURS[c]} stone for {label}",
                        {"colour": COLOURS[c], "coin": coin, "price": price},
                    )
                )
    options.append(Option("done", "Stop buying"))
    if sum(st.bank.stones) == 0:
        # Nothing to buy: the bank, unlike the screen, is public, so the power ends at once.
        if choice is None:
            nothing(task, ev, "the bank has no stone")
        return None
    # R14: asked even when "done" is all he can afford, so the table learns nothing of his coins.
    return ask(task, "buy", "Merchant: buy a stone, or stop?", options, always_ask=True)


@power("necromancer")
def necromancer(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    record = st.records[task.auction]
    if task.step == "":
        if record.necromancer_used:  # R24: a second use in one auction does nothing
            nothing(task, ev, "the bid is already given up")
            return None
        bid = (record.bids or {}).get(task.seat)
        fairy_gold = bid.fairy_gold if bid else 0
        return ask(
            task,
            "use",
            "Necromancer: give up the %d Fairy Gold you bid for 1 point?" % fairy_gold,
            [
                Option(
                    "use",
                    "Give up %d Fairy Gold for 1 point" % fairy_gold,
                    {"fairy_gold": fairy_gold},
                ),
                Option("decline", "Keep my Fairy Gold"),
            ],
        )
    if choice == "decline":
        ev.add("necromancer_declined", "{seat} declines the Necromancer.", seat=task.seat)
        return None
    bid = (record.bids or {}).get(task.seat)
    fairy_gold = bid.fairy_gold if bid else 0
    record = st.record(task.auction)
    record.necromancer_used = True
    player = st.player(task.seat)
    player.fairy_gold_spent -= fairy_gold
    st.bank.fairy_gold += fairy_gold
    ev.add(
        "necromancer",
        "{seat} gives up %d Fairy Gold to the Necromancer." % fairy_gold,
        seat=task.seat,
        fairy_gold=fairy_gold,
    )
    score(st, task.seat, 1, ev)
    return None


@power("troll")
def troll(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.step == "":
        return ask(
            task,
            "colour",
            "Troll: which colour must every player return?",
            colour_options([0, 1, 2], " stones"),
        )
    assert choice is not None
    colour = COLOURS.index(choice)
    returned = []
    for seat in range(len(st.players)):
        player = st.player(seat)
        returned.append(player.stones[colour])
        st.bank.stones[colour] += player.stones[colour]
        player.stones[colour] = 0
    ev.add(
        "troll",
        "{seat} names %s with the Troll: every player returns their %s stones (%d in all)."
        % (choice, choice, sum(returned)),
        seat=task.seat,
        colour=choice,
        returned=returned,
    )
    return None
