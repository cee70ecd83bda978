"""The flow of the game: setup, turns, sealed auctions, tie-breaks, the resolution of powers."""

from __future__ import annotations

from . import rng
from .cards import CARDS, SPECIAL_DECK, STANDARD_PILE
from .errors import IllegalAction
from .events import LATE_TEMPLATES, Events
from .powers import POWERS
from .state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    BOX_STONES_PER_COLOUR,
    Bank,
    Bid,
    GameState,
    Option,
    Player,
    Question,
    Record,
    Task,
)

Event = dict[str, object]


def new_game(players: int, seed: int) -> GameState:
    """Set up a game for 3 to 6 players (R2) and open the first turn's Witch auction."""
    return start(players, seed)[0]


def start(players: int, seed: int) -> tuple[GameState, list[Event]]:
    """`new_game`, with the events of the opening (turn 1 announced, the Witch up for auction)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 3 <= players <= 6:
        raise IllegalAction("malformed", f"players must be an integer from 3 to 6, not {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise IllegalAction("malformed", f"seed must be a non-negative integer, not {seed!r}")
    st = GameState(
        players=[Player(seat) for seat in range(players)],
        bank=Bank(BOX_FAIRY_GOLD, BOX_COMMON_GOLD, BOX_SILVER, BOX_AMULETS, [0, 0, 0]),
        seed=seed,
        seed_commitment=rng.commitment(seed),
        rng=rng.initial_state(seed),
        owner=object(),
    )
    bag = [BOX_STONES_PER_COLOUR] * 3
    for player in st.players:
        player.fairy_gold, player.common_gold, player.silver = 8, 2, 5
        st.bank.fairy_gold -= 8
        st.bank.common_gold -= 2
        st.bank.silver -= 5
        for _ in range(4):
            player.stones[st.draw_stone(bag)] += 1
    st.bank.stones = bag  # the rest of the bag goes to the bank
    st.special_deck = list(SPECIAL_DECK)
    st.shuffle(st.special_deck)
    ev = Events()
    start_turn(st, ev)
    return st, ev.items


# -- turns and auctions -----------------------------------------------------------------------


def start_turn(st: GameState, ev: Events) -> None:
    """R5: draw 2 specials (reshuffling the used ones if needed), announce them, shuffle the pile."""
    st.turn += 1
    st.specials = []
    st.special_deck = st.special_deck[:]  # shared with the state before (see derive)
    for _ in range(2):
        if not st.special_deck:
            st.special_deck, st.used_specials = st.used_specials[:], []
            st.shuffle(st.special_deck)
            ev.add(
                "special_deck_reshuffled",
                "The used special characters are shuffled into a new deck.",
            )
        st.specials.append(st.special_deck.pop())
    st.pile = list(STANDARD_PILE) + st.specials
    st.shuffle(st.pile)
    st.records = []
    ev.items.append(
        {
            "type": "turn_started",
            "template": TURN_STARTED
            % (st.turn, CARDS[st.specials[0]].name_en, CARDS[st.specials[1]].name_en),
            "turn": st.turn,
            "specials": st.specials[:],
        }
    )
    start_auction(st, "witch", ev)


# The templates of the events of every auction and turn, made once. (The hot paths build their
# events as dict literals rather than with `Events.add`: the same dicts, made faster.)
AUCTION_STARTED = {c: "The %s is up for auction." % CARDS[c].name_en for c in CARDS}
AUCTION_WON = {c: "{winner} wins the %s." % CARDS[c].name_en for c in CARDS}
CURSED = {
    c: "Black Magic! The %s is cursed: nobody uses its power." % CARDS[c].name_en for c in CARDS
}
NO_BID = {c: "Nobody bid for the %s." % CARDS[c].name_en for c in CARDS}
TURN_STARTED = "Turn %d: this turn's special characters are the %s and the %s."
TURN_ENDED = (
    "Turn %d ends: spent Fairy Gold returns behind the screens, unused Black Magic goes "
    "back to the bank."
)


def start_auction(st: GameState, card: str, ev: Events) -> None:
    st.card = card
    st.phase = "bid"
    st.sealed = {}
    st.tied = []
    st.sealed_tiebreak = {}
    ev.items.append(
        {
            "type": "auction_started",
            "template": AUCTION_STARTED[card],
            "card": card,
            "turn": st.turn,
        }
    )


def end_auction(st: GameState, ev: Events) -> None:
    if st.pile:
        card = st.pile[-1]
        st.pile = st.pile[:-1]  # shared with the state before (see derive): replaced, not popped
        start_auction(st, card, ev)
        return
    # R6: the end of the turn.
    for seat, player in enumerate(st.players):
        if player.fairy_gold_spent or player.black_magic:
            player = st.player(seat)
            player.fairy_gold += player.fairy_gold_spent
            player.fairy_gold_spent = 0
            player.black_magic = 0
    st.used_specials = st.used_specials[:]
    for card in st.specials:
        if card == "doppelganger" and (
            st.doppelganger is not None or "doppelganger" in st.used_specials
        ):
            continue  # held by its winner, or already played this turn
        st.used_specials.append(card)
    ev.items.append({"type": "turn_ended", "template": TURN_ENDED % st.turn, "turn": st.turn})
    start_turn(st, ev)


SEAT_KEY = tuple(str(seat) for seat in range(6))  # seats as JSON object keys


def reveal_bids(st: GameState, ev: Events) -> None:
    """R8-R12: reveal every bid at once, pay them, and find the winner or the tie."""
    bids = st.sealed
    st.sealed = {}
    cursed = False
    bank = st.bank
    shown = {}
    best, top = 0, []  # the highest value, and the seats that bid it (in seat order)
    for seat in sorted(bids):
        fairy_gold, common_gold, amulet, black_magic = bids[seat]
        value = (fairy_gold + common_gold) * 2 if amulet else fairy_gold + common_gold
        if value > best:
            best, top = value, [seat]
        elif value == best:
            top.append(seat)
        shown[SEAT_KEY[seat]] = {
            "fairy_gold": fairy_gold,
            "common_gold": common_gold,
            "amulet": amulet,
            "black_magic": black_magic,
            "value": value,
        }
        if not (fairy_gold or common_gold or amulet or black_magic):
            continue  # the empty fist pays nothing
        player = st.player(seat)
        player.fairy_gold -= fairy_gold
        player.fairy_gold_spent += fairy_gold  # in front of the screen until the turn ends
        if common_gold:
            player.common_gold -= common_gold
            bank.common_gold += common_gold
        if amulet:
            player.amulets -= 1
            bank.amulets += 1
        if black_magic:
            player.black_magic -= 1  # unlimited coins: the bank does not count them
            cursed = True
    record = Record(st.card, "auction", bids, None, None, None, cursed, False, st.owner)
    st.records.append(record)
    ev.items.append({"type": "bids_revealed", "card": st.card, "bids": shown})
    if cursed:
        ev.items.append({"type": "cursed", "template": CURSED[st.card], "card": st.card})
        end_auction(st, ev)
        return
    if best == 0:
        ev.items.append({"type": "no_winner", "template": NO_BID[st.card], "card": st.card})
        end_auction(st, ev)
        return
    if len(top) == 1:
        win(st, top[0], best, ev)
        return
    st.phase = "tiebreak"
    st.tied = top
    record.tied = top[:]
    ev.add(
        "tiebreak_started",
        "Tie at %d between %s: they bid Silver to break it."
        % (best, ", ".join(f"Player {s + 1}" for s in top)),
        seats=top[:],
        value=best,
    )


def reveal_tiebreak(st: GameState, ev: Events) -> None:
    bids = st.sealed_tiebreak
    st.sealed_tiebreak = {}
    for seat, bid in bids.items():
        player = st.player(seat)
        player.silver -= bid.silver
        st.bank.silver += bid.silver
        if bid.amulet:
            player.amulets -= 1
            st.bank.amulets += 1
    record = st.record(-1)
    record.tiebreak = bids
    ev.add(
        "tiebreak_revealed",
        None,
        bids={
            str(s): {"silver": b.silver, "amulet": b.amulet, "value": b.value}
            for s, b in sorted(bids.items())
        },
    )
    best = max(b.value for b in bids.values())
    top = [s for s, b in bids.items() if b.value == best]
    if best == 0 or len(top) > 1:
        ev.add(
            "no_winner",
            "The tie-break is tied again: nobody uses the %s." % CARDS[st.card].name_en,
            card=st.card,
        )
        end_auction(st, ev)
        return
    win(st, top[0], best, ev)


def win(st: GameState, seat: int, value: int, ev: Events) -> None:
    record = st.record(-1)
    record.winner = seat
    ev.items.append(
        {
            "type": "auction_won",
            "template": AUCTION_WON[st.card],
            "winner": seat,
            "card": st.card,
            "value": value,
        }
    )
    auction = len(st.records) - 1
    if st.doppelganger == seat and st.card != "necromancer":
        st.tasks.append(Task(st.card, seat, auction, doppel_offer=True))  # R24
    else:
        st.tasks.append(Task(st.card, seat, auction))
    st.phase = "choose"
    advance(st, ev)


def doppelganger_offer(
    st: GameState, task: Task, choice: str | None, ev: Events
) -> Question | None:
    name = CARDS[task.card].name_en
    if choice is None:
        task.step = "play_doppelganger"
        return Question(
            task.seat,
            task.card,
            "play_doppelganger",
            f"Play the Doppelganger to use the {name} twice?",
            (
                Option("play", f"Play the Doppelganger: use the {name} twice"),
                Option("keep", "Keep the Doppelganger for later"),
            ),
        )
    first = Task(task.card, task.seat, task.auction)
    st.tasks.append(first)
    if choice == "play":
        st.doppelganger = None
        st.used_specials = [*st.used_specials, "doppelganger"]
        ev.add(
            "doppelganger_played",
            "{seat} plays the Doppelganger: the %s is used twice." % name,
            seat=task.seat,
            card=task.card,
        )
        st.tasks.insert(len(st.tasks) - 1, Task(task.card, task.seat, task.auction))
    return None


def run_task(st: GameState, task: Task, choice: str | None, ev: Events) -> Question | None:
    if task.doppel_offer:
        return doppelganger_offer(st, task, choice, ev)
    return POWERS[task.card](st, task, choice, ev)


def advance(st: GameState, ev: Events, choice: str | None = None) -> None:
    """Resolve the stack of powers until a question needs a player, the game ends, or the
    auction is over (then the next one opens)."""
    while st.winner is None:
        if not st.tasks:
            end_auction(st, ev)
            return
        task = st.tasks.pop()
        question = run_task(st, task, choice, ev)
        choice = None
        if question is None or st.winner is not None:
            continue
        st.tasks.append(task)  # back on top, to be called again with the choice
        if len(question.options) == 1 and not question.always_ask:  # R14: resolves at once
            choice = question.options[0].id
            ev.add(
                "auto_choice",
                "{seat}: %s (the only option)." % question.options[0].label,
                seat=question.seat,
                character=question.character,
                step=question.step,
                option=choice,
            )
            continue
        st.question = question
        st.phase = "choose"
        return


def describe_bid(seat: int, bid: Bid) -> str:
    parts = []
    if bid.fairy_gold:
        parts.append(f"{bid.fairy_gold} Fairy Gold")
    if bid.common_gold:
        parts.append(f"{bid.common_gold} Common Gold")
    if bid.amulet:
        parts.append("an Amulet")
    if bid.black_magic:
        parts.append("a Black Magic coin")
    return f"Player {seat + 1} {' + '.join(parts) or 'nothing'}" + (
        f" (= {bid.value})" if bid.amulet else ""
    )


def bids_revealed_template(event: dict[str, object]) -> str:
    bids = event["bids"]
    assert isinstance(bids, dict)
    return "Bids for the %s: %s." % (
        CARDS[str(event["card"])].name_en,
        ", ".join(
            describe_bid(
                int(s), Bid(b["fairy_gold"], b["common_gold"], b["amulet"], b["black_magic"])
            )
            for s, b in bids.items()
        ),
    )


def tiebreak_revealed_template(event: dict[str, object]) -> str:
    bids = event["bids"]
    assert isinstance(bids, dict)
    return "Tie-break: %s." % ", ".join(
        "Player %d %d Silver%s"
        % (int(s) + 1, b["silver"], " with an Amulet" if b["amulet"] else "")
        for s, b in bids.items()
    )


LATE_TEMPLATES["bids_revealed"] = bids_revealed_template
LATE_TEMPLATES["tiebreak_revealed"] = tiebreak_revealed_template


def bid_dict(bid: Bid) -> dict[str, int | bool]:
    return {
        "fairy_gold": bid.fairy_gold,
        "common_gold": bid.common_gold,
        "amulet": bid.amulet,
        "black_magic": bid.black_magic,
        "value": bid.value,
    }
