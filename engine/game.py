"""The flow of the game: setup, turns, sealed auctions, tie-breaks, the resolution of powers."""

from __future__ import annotations

from typing import Any

from . import rng
from .cards import CARDS, SPECIAL_DECK, STANDARD_PILE
from .errors import IllegalAction
from .powers import POWERS
from .state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    BOX_STONES_PER_COLOUR,
    LATE_TEMPLATES,
    Bank,
    Bid,
    Events,
    GameState,
    Option,
    Player,
    Question,
    Record,
    Task,
    TieBid,
    copy_state,
)

Action = dict[str, Any]
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
        seed=seed, seed_commitment=rng.commitment(seed), rng=rng.initial_state(seed),
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
            ev.add("special_deck_reshuffled", "The used special characters are shuffled into a new deck.")
        st.specials.append(st.special_deck.pop())
    st.pile = list(STANDARD_PILE) + st.specials
    st.shuffle(st.pile)
    st.records = []
    ev.items.append({"type": "turn_started", "template": TURN_STARTED % (
        st.turn, CARDS[st.specials[0]].name_en, CARDS[st.specials[1]].name_en),
        "turn": st.turn, "specials": st.specials[:]})
    start_auction(st, "witch", ev)


# The templates of the events of every auction and turn, made once. (The hot paths build their
# events as dict literals rather than with `Events.add`: the same dicts, made faster.)
AUCTION_STARTED = {c: "The %s is up for auction." % CARDS[c].name_en for c in CARDS}
AUCTION_WON = {c: "{winner} wins the %s." % CARDS[c].name_en for c in CARDS}
CURSED = {c: "Black Magic! The %s is cursed: nobody uses its power." % CARDS[c].name_en
          for c in CARDS}
NO_BID = {c: "Nobody bid for the %s." % CARDS[c].name_en for c in CARDS}
TURN_STARTED = "Turn %d: this turn's special characters are the %s and the %s."
TURN_ENDED = ("Turn %d ends: spent Fairy Gold returns behind the screens, unused Black Magic goes "
              "back to the bank.")


def start_auction(st: GameState, card: str, ev: Events) -> None:
    st.card = card
    st.phase = "bid"
    st.sealed = {}
    st.tied = []
    st.sealed_tiebreak = {}
    ev.items.append({"type": "auction_started", "template": AUCTION_STARTED[card], "card": card,
                     "turn": st.turn})


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
        if card == "doppelganger" and (st.doppelganger is not None
                                       or "doppelganger" in st.used_specials):
            continue  # held by its winner, or already played this turn
        st.used_specials.append(card)
    ev.items.append({"type": "turn_ended", "template": TURN_ENDED % st.turn, "turn": st.turn})
    start_turn(st, ev)


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
        shown[SEAT_KEY[seat]] = {"fairy_gold": fairy_gold, "common_gold": common_gold,
                                 "amulet": amulet, "black_magic": black_magic, "value": value}
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
    ev.add("tiebreak_started", "Tie at %d between %s: they bid Silver to break it." % (
        best, ", ".join(f"Player {s + 1}" for s in top)), seats=top[:], value=best)


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
    ev.add("tiebreak_revealed", None,
           bids={str(s): {"silver": b.silver, "amulet": b.amulet, "value": b.value}
                 for s, b in sorted(bids.items())})
    best = max(b.value for b in bids.values())
    top = [s for s, b in bids.items() if b.value == best]
    if best == 0 or len(top) > 1:
        ev.add("no_winner", "The tie-break is tied again: nobody uses the %s." %
               CARDS[st.card].name_en, card=st.card)
        end_auction(st, ev)
        return
    win(st, top[0], best, ev)


def win(st: GameState, seat: int, value: int, ev: Events) -> None:
    record = st.record(-1)
    record.winner = seat
    ev.items.append({"type": "auction_won", "template": AUCTION_WON[st.card], "winner": seat,
                     "card": st.card, "value": value})
    auction = len(st.records) - 1
    if st.doppelganger == seat and st.card != "necromancer":
        st.tasks.append(Task(st.card, seat, auction, doppel_offer=True))  # R24
    else:
        st.tasks.append(Task(st.card, seat, auction))
    st.phase = "choose"
    advance(st, ev)


def doppelganger_offer(st: GameState, task: Task, choice: str | None,
                       ev: Events) -> Question | None:
    name = CARDS[task.card].name_en
    if choice is None:
        task.step = "play_doppelganger"
        return Question(task.seat, task.card, "play_doppelganger",
                        f"Play the Doppelganger to use the {name} twice?", (
                            Option("play", f"Play the Doppelganger: use the {name} twice"),
                            Option("keep", "Keep the Doppelganger for later")))
    first = Task(task.card, task.seat, task.auction)
    st.tasks.append(first)
    if choice == "play":
        st.doppelganger = None
        st.used_specials = [*st.used_specials, "doppelganger"]
        ev.add("doppelganger_played", "{seat} plays the Doppelganger: the %s is used twice." % name,
               seat=task.seat, card=task.card)
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
            ev.add("auto_choice", "{seat}: %s (the only option)." % question.options[0].label,
                   seat=question.seat, character=question.character, step=question.step,
                   option=choice)
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
        f" (= {bid.value})" if bid.amulet else "")


def bids_revealed_template(event: dict[str, object]) -> str:
    bids = event["bids"]
    assert isinstance(bids, dict)
    return "Bids for the %s: %s." % (CARDS[str(event["card"])].name_en, ", ".join(
        describe_bid(int(s), Bid(b["fairy_gold"], b["common_gold"], b["amulet"], b["black_magic"]))
        for s, b in bids.items()))


def tiebreak_revealed_template(event: dict[str, object]) -> str:
    bids = event["bids"]
    assert isinstance(bids, dict)
    return "Tie-break: %s." % ", ".join(
        "Player %d %d Silver%s" % (int(s) + 1, b["silver"], " with an Amulet" if b["amulet"] else "")
        for s, b in bids.items())


LATE_TEMPLATES["bids_revealed"] = bids_revealed_template
LATE_TEMPLATES["tiebreak_revealed"] = tiebreak_revealed_template


def bid_dict(bid: Bid) -> dict[str, int | bool]:
    return {"fairy_gold": bid.fairy_gold, "common_gold": bid.common_gold, "amulet": bid.amulet,
            "black_magic": bid.black_magic, "value": bid.value}


# -- the public API: prompts, legal actions, apply ---------------------------------------------

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
        return {"seat": seat, "kind": "bid", "character": st.card,
                "max": {"fairy_gold": player.fairy_gold, "common_gold": player.common_gold,
                        "amulet": player.amulets > 0, "black_magic": player.black_magic > 0}}
    if kind == "tiebreak":
        player = st.players[seat]
        return {"seat": seat, "kind": "tiebreak", "character": st.card,
                "max": {"silver": player.silver, "amulet": player.amulets > 0}}
    q = st.question
    assert q is not None
    return {"seat": q.seat, "kind": "choose", "character": q.character, "step": q.step,
            "question": q.text,
            "options": [_option(o) for o in q.options]}


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
                            "fairy_gold": p.fairy_gold, "common_gold": p.common_gold,
                            "amulet": p.amulets > 0, "black_magic": p.black_magic > 0}
                    out.append({"seat": p.seat, "kind": "bid", "character": card,
                                "max": limits.copy()})
            return out
        return [_full_prompt(st, s, kind) for s, kind in _open_seats(st)]
    return [_full_prompt(st, s, kind) if s == seat else _public_prompt(st, s, kind)
            for s, kind in _open_seats(st)]


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
            return {"type": "bid", "fairy_gold": 0, "common_gold": 0, "amulet": False,
                    "black_magic": False}
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
    if kind == "bid":
        what = "no bid"
    elif kind == "tiebreak":
        what = "no Silver in the tie-break"
    else:
        q = state.question
        assert q is not None
        label = next(o.label for o in q.options if o.id == action["option"])
        what = label.replace("{", "{{").replace("}", "}}")
    event: Event = {"type": "timed_out", "template": "Time ran out for {seat}: %s." % what,
                    "seat": seat, "prompt": kind, "action": action}
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
            return [{"type": "bid", "fairy_gold": f, "common_gold": c, "amulet": a,
                     "black_magic": b}
                    for f in range(limits["fairy_gold"] + 1)
                    for c in range(limits["common_gold"] + 1)
                    for a in ((False, True) if limits["amulet"] else (False,))
                    for b in ((False, True) if limits["black_magic"] else (False,))]
        if prompt["kind"] == "tiebreak":
            return [{"type": "tiebreak", "silver": s, "amulet": a}
                    for s in range(limits["silver"] + 1)
                    for a in ((False, True) if limits["amulet"] else (False,))]
        return [{"type": "choose", "option": o["id"]} for o in prompt["options"]]
    return []


ACTION_KEYS = {
    "bid": ({"type", "fairy_gold", "common_gold", "amulet", "black_magic"}),
    "tiebreak": ({"type", "silver", "amulet"}),
    "choose": ({"type", "option"}),
}


def _int(action: Action, key: str) -> int:
    value = action[key]
    if type(value) is int and value >= 0:  # the common case, checked first for speed
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IllegalAction("malformed", f"{key} must be a non-negative integer, not {value!r}")
    return value


def _bool(action: Action, key: str) -> bool:
    value = action[key]
    if not isinstance(value, bool):
        raise IllegalAction("malformed", f"{key} must be true or false, not {value!r}")
    return value


SEAT_KEY = tuple(str(seat) for seat in range(6))  # seats as JSON object keys
PHASE_ACTION = {"bid": "bid", "tiebreak": "tiebreak", "choose": "choose", "over": None}


def _bid(action: Action) -> Bid:
    """A bid from its action, or IllegalAction("malformed") naming the field at fault."""
    return Bid(_int(action, "fairy_gold"), _int(action, "common_gold"), _bool(action, "amulet"),
               _bool(action, "black_magic"))


def apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """Apply one seat's action; returns the new state and the events. `state` is not changed.

    Raises IllegalAction (with a stable `code`) when the action is not legal now.
    """
    # Most actions are bids: a well-formed, affordable bid by a seat yet to bid is recognised here
    # in one go. Anything else, every illegal action included, takes the full checks of `_apply`,
    # in their documented order. (Five keys, the four bid fields among them and "type" equal to
    # "bid": exactly the keys of a bid.)
    if type(action) is dict and state.phase == "bid" and len(action) == 5:
        try:
            kind, fairy_gold = action["type"], action["fairy_gold"]
            common_gold, amulet = action["common_gold"], action["amulet"]
            black_magic = action["black_magic"]
        except KeyError:
            return _apply(state, seat, action)
        if (kind == "bid" and type(fairy_gold) is int and type(common_gold) is int
                and (amulet is True or amulet is False)
                and (black_magic is True or black_magic is False) and type(seat) is int
                and state.winner is None):
            players = state.players
            if 0 <= seat < len(players) and seat not in state.sealed:
                player = players[seat]
                if (0 <= fairy_gold <= player.fairy_gold
                        and 0 <= common_gold <= player.common_gold
                        and (player.amulets or not amulet)
                        and (player.black_magic or not black_magic)):
                    # One number for the four fields (common_gold < 16 keeps it one-to-one).
                    key = fairy_gold * 64 + common_gold * 4 + amulet * 2 + black_magic
                    bid = BIDS.get(key) if common_gold < 16 else None
                    if bid is None:
                        bid = Bid(fairy_gold, common_gold, amulet, black_magic)
                        if fairy_gold <= BOX_FAIRY_GOLD and common_gold <= BOX_COMMON_GOLD:
                            BIDS[key] = bid
                    sealed = state.sealed.copy()
                    sealed[seat] = bid
                    if len(sealed) < len(players):  # not the last bid: only `sealed` changes
                        st = copy_state(state)
                        st.sealed = sealed
                        return st, [{"type": "bid_submitted", "template": "{seat} has bid.",
                                     "seat": seat}]
                    return _reveal(state, seat, sealed)
    return _apply(state, seat, action)


# Bids are immutable: each one (within what the box holds) is made once and shared, as making a
# named tuple costs twice as much as looking it up. A cache only: it changes no result.
BIDS: dict[int, Bid] = {}


def _seal_bid(state: GameState, seat: int, bid: Bid) -> tuple[GameState, list[Event]]:
    """Seal a checked bid; the last one reveals them all."""
    sealed = state.sealed.copy()
    sealed[seat] = bid
    if len(sealed) < len(state.players):
        st = copy_state(state)  # not the last bid: only `sealed` changes
        st.sealed = sealed
        return st, [{"type": "bid_submitted", "template": "{seat} has bid.", "seat": seat}]
    return _reveal(state, seat, sealed)


def _reveal(state: GameState, seat: int, sealed: dict[int, Bid]) -> tuple[GameState, list[Event]]:
    """The last bid, `seat`'s, is in `sealed`: reveal them all."""
    ev = Events()
    ev.items.append({"type": "bid_submitted", "template": "{seat} has bid.", "seat": seat})
    st = state.derive()
    st.sealed = sealed
    reveal_bids(st, ev)
    return st, ev.items


def _apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """`apply` with every check, in order: what an illegal action is told."""
    kind = action.get("type") if isinstance(action, dict) else None
    keys = ACTION_KEYS.get(kind) if isinstance(kind, str) else None
    if keys is None:
        raise IllegalAction("malformed", f"an action is an object with a type among "
                                         f"{sorted(ACTION_KEYS)}, not {action!r}")
    assert isinstance(action, dict)
    if action.keys() != keys:
        raise IllegalAction("malformed", f"a {kind} action has exactly the fields "
                                         f"{sorted(keys)}")
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise IllegalAction("unknown_seat", f"there is no seat {seat!r} in this game")
    if state.winner is not None:
        raise IllegalAction("game_over", "the game is over")
    if kind != PHASE_ACTION[state.phase]:
        raise IllegalAction("wrong_phase", f"a {kind} is not asked now: the game waits for "
                                           f"a {state.phase}")
    player = state.players[seat]
    if kind == "bid":
        fairy_gold, common_gold = action["fairy_gold"], action["common_gold"]
        amulet, black_magic = action["amulet"], action["black_magic"]
        if (type(fairy_gold) is int and fairy_gold >= 0 and type(common_gold) is int
                and common_gold >= 0 and (amulet is True or amulet is False)
                and (black_magic is True or black_magic is False)):
            bid = Bid(fairy_gold, common_gold, amulet, black_magic)  # the common case, at once
        else:
            bid = _bid(action)
        if seat in state.sealed:
            raise IllegalAction("already_submitted", "you have already bid in this auction")
        if (bid.fairy_gold > player.fairy_gold or bid.common_gold > player.common_gold
                or (bid.amulet and player.amulets == 0)
                or (bid.black_magic and player.black_magic == 0)):
            raise IllegalAction("unaffordable", "you do not hold the coins of that bid")
        return _seal_bid(state, seat, bid)
    elif kind == "tiebreak":
        tiebid = TieBid(_int(action, "silver"), _bool(action, "amulet"))
        if seat not in state.tied:
            raise IllegalAction("not_your_turn", "only the tied players bid in the tie-break")
        if seat in state.sealed_tiebreak:
            raise IllegalAction("already_submitted", "you have already bid in this tie-break")
        if tiebid.silver > player.silver or (tiebid.amulet and player.amulets == 0):
            raise IllegalAction("unaffordable", "you do not hold the coins of that tie-break bid")
        ev = Events()
        ev.items.append({"type": "tiebreak_submitted", "template": "{seat} has bid in the tie-break.",
                         "seat": seat})
        if len(state.sealed_tiebreak) + 1 < len(state.tied):
            st = state.share()
            st.sealed_tiebreak = {**state.sealed_tiebreak, seat: tiebid}
            return st, ev.items
        st = state.derive()
        st.sealed_tiebreak = {**state.sealed_tiebreak, seat: tiebid}
        reveal_tiebreak(st, ev)
    else:
        option = action["option"]
        q = state.question
        assert q is not None
        if not isinstance(option, str):
            raise IllegalAction("malformed", f"option must be a string, not {option!r}")
        if seat != q.seat:
            raise IllegalAction("not_your_turn", f"Player {q.seat + 1} is choosing, not you")
        if option not in {o.id for o in q.options}:
            raise IllegalAction("unknown_option", f"{option!r} is not one of the options: "
                                f"{', '.join(o.id for o in q.options)}")
        st = state.derive()
        st.question = None
        label = next(o.label for o in q.options if o.id == option)
        ev = Events()
        ev.items.append({"type": "choice", "template": "{seat}: %s." % label, "seat": seat,
                         "character": q.character, "step": q.step, "option": option})
        advance(st, ev, option)
    return st, ev.items


def winner(st: GameState) -> int | None:
    """The winning seat, or None while the game goes on."""
    return st.winner

