"""The game state and the small operations every rule is written with.

The state is a tree of plain slotted dataclasses. `apply` works on a `clone()` and never touches the
state it was given; `clone()` is written by hand because it is on the hot path of every action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from . import rng

COLOURS: tuple[str, str, str] = ("red", "blue", "yellow")
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}

# The box (R1). Black Magic coins are unlimited, so the bank does not count them.
BOX_FAIRY_GOLD = 60
BOX_SILVER = 40
BOX_COMMON_GOLD = 15
BOX_AMULETS = 2
BOX_STONES_PER_COLOUR = 12
WINNING_SCORE = 3

Phase = Literal["bid", "tiebreak", "choose", "over"]
JSONScalar = str | int | bool | None
OptionData = dict[str, JSONScalar | list[int] | dict[str, int]]


@dataclass(slots=True)
class Player:
    """One seat: public score and stones, private coins behind the screen."""

    seat: int
    score: int = 0
    stones: list[int] = field(default_factory=lambda: [0, 0, 0])  # by COLOURS, public
    fairy_gold: int = 0  # unspent, behind the screen
    common_gold: int = 0
    silver: int = 0
    amulets: int = 0
    black_magic: int = 0
    fairy_gold_spent: int = 0  # in front of the screen until the end of the turn, public

    def clone(self) -> Player:
        return Player(self.seat, self.score, self.stones[:], self.fairy_gold, self.common_gold,
                      self.silver, self.amulets, self.black_magic, self.fairy_gold_spent)


@dataclass(slots=True)
class Bank:
    fairy_gold: int = 0
    common_gold: int = 0
    silver: int = 0
    amulets: int = 0
    stones: list[int] = field(default_factory=lambda: [0, 0, 0])

    def clone(self) -> Bank:
        return Bank(self.fairy_gold, self.common_gold, self.silver, self.amulets, self.stones[:])


@dataclass(frozen=True, slots=True)
class Bid:
    """A sealed bid (R8): gold, plus optionally one Amulet and one Black Magic coin."""

    fairy_gold: int = 0
    common_gold: int = 0
    amulet: bool = False
    black_magic: bool = False

    @property
    def value(self) -> int:
        gold = self.fairy_gold + self.common_gold
        return gold * 2 if self.amulet else gold


@dataclass(frozen=True, slots=True)
class TieBid:
    """A sealed tie-break bid (R12): Silver, plus optionally one Amulet."""

    silver: int = 0
    amulet: bool = False

    @property
    def value(self) -> int:
        return self.silver * 2 if self.amulet else self.silver


@dataclass(slots=True)
class Record:
    """One character auctioned this turn (or taken by the Imp or the Goblin)."""

    card: str
    via: str = "auction"  # "auction", "imp" or "goblin"
    bids: dict[int, Bid] | None = None  # revealed bids, by seat
    tied: list[int] | None = None
    tiebreak: dict[int, TieBid] | None = None
    winner: int | None = None
    cursed: bool = False
    necromancer_used: bool = False

    def clone(self) -> Record:
        return Record(self.card, self.via, self.bids, self.tied, self.tiebreak, self.winner,
                      self.cursed, self.necromancer_used)


@dataclass(slots=True)
class Task:
    """A power (or the Doppelganger offer) waiting to be resolved, on the resolution stack.

    `auction` is the index in `records` of the auction whose bids the power looks at (the Thief's
    second bidder, the Necromancer's Fairy Gold): for a card reached through the Ghost, the Imp or
    the Goblin it is that card's auction (R22, R23).
    """

    card: str
    seat: int
    auction: int
    step: str = ""
    target: int | None = None  # a chosen seat or colour, kept between two steps
    drawn: list[int] | None = None  # Rainbow Dragon: stones drawn so far, by colour
    doppel_offer: bool = False

    def clone(self) -> Task:
        return Task(self.card, self.seat, self.auction, self.step, self.target,
                    None if self.drawn is None else self.drawn[:], self.doppel_offer)


@dataclass(frozen=True, slots=True)
class Option:
    id: str
    label: str
    data: OptionData = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Question:
    """The open `choose` prompt: one seat, one decision of one power."""

    seat: int
    character: str
    step: str
    text: str
    options: tuple[Option, ...]
    # Asked even with a single option, when the options follow from coins behind the screen:
    # resolving it at once would tell the table what the screen hides (R14, R25).
    always_ask: bool = False


@dataclass(slots=True)
class GameState:
    players: list[Player]
    bank: Bank
    seed: int
    seed_commitment: str
    rng: int
    turn: int = 0
    phase: Phase = "bid"
    card: str = "witch"  # the card under auction (or whose power is resolving)
    specials: list[str] = field(default_factory=list)  # announced this turn
    pile: list[str] = field(default_factory=list)  # cards still to auction this turn; order secret
    special_deck: list[str] = field(default_factory=list)  # order secret
    used_specials: list[str] = field(default_factory=list)
    doppelganger: int | None = None  # the seat holding the Doppelganger
    records: list[Record] = field(default_factory=list)
    sealed: dict[int, Bid] = field(default_factory=dict)  # bids submitted, not yet revealed
    tied: list[int] = field(default_factory=list)
    sealed_tiebreak: dict[int, TieBid] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)  # resolution stack, top last
    question: Question | None = None
    bag: list[int] | None = None  # stones in the bag, by colour, while a power uses it
    winner: int | None = None

    def clone(self) -> GameState:
        return GameState(
            [p.clone() for p in self.players], self.bank.clone(), self.seed, self.seed_commitment,
            self.rng, self.turn, self.phase, self.card, self.specials[:], self.pile[:],
            self.special_deck[:], self.used_specials[:], self.doppelganger,
            [r.clone() for r in self.records], dict(self.sealed), self.tied[:],
            dict(self.sealed_tiebreak), [t.clone() for t in self.tasks], self.question,
            None if self.bag is None else self.bag[:], self.winner,
        )

    # -- randomness -------------------------------------------------------------------------

    def below(self, n: int) -> int:
        self.rng, value = rng.below(self.rng, n)
        return value

    def shuffle(self, items: list[str]) -> None:
        """Fisher-Yates, in place, with the game's generator."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def draw_stone(self, bag: list[int]) -> int:
        """Draw one stone at random from `bag` (by colour); returns its colour index."""
        k = self.below(sum(bag))
        for colour, count in enumerate(bag):
            if k < count:
                bag[colour] -= 1
                return colour
            k -= count
        raise AssertionError("empty bag")


class Events:
    """Collects the events of one `apply`, in order."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[dict[str, object]] = []

    def add(self, type_: str, template: str, private_to: list[int] | None = None,
            **data: object) -> None:
        """Record an event. `template` names seats as {seat}, {victim}, ... (see render)."""
        event: dict[str, object] = {"type": type_, "template": template, **data}
        event["text"] = render(event, None)
        if private_to is not None:
            event["private_to"] = sorted(set(private_to))
        self.items.append(event)


SEAT_KEYS = ("seat", "victim", "winner")


def render(event: dict[str, object], names: list[str] | None) -> str:
    """The event's sentence, with seats named by `names` (or "Player N", N = seat + 1)."""
    values: dict[str, object] = {}
    for key, value in event.items():
        if key in SEAT_KEYS and isinstance(value, int):
            values[key] = names[value] if names and value < len(names) else f"Player {value + 1}"
        else:
            values[key] = value
    template = event["template"]
    assert isinstance(template, str)
    return template.format_map(values)


# -- operations -------------------------------------------------------------------------------

COIN_LABELS = {"fairy_gold": "Fairy Gold", "common_gold": "Common Gold", "silver": "Silver",
               "amulets": "Amulet"}


def take_from_bank(st: GameState, seat: int, coin: str, n: int, ev: Events) -> int:
    """Give a player up to `n` coins of a kind from the bank; a short bank gives what it has (R1)."""
    have: int = getattr(st.bank, coin)
    got = min(n, have)
    setattr(st.bank, coin, have - got)
    player = st.players[seat]
    setattr(player, coin, getattr(player, coin) + got)
    label = COIN_LABELS[coin] + ("s" if coin == "amulets" and got != 1 else "")
    if got == n:
        ev.add("gain", "{seat} takes %d %s from the bank." % (got, label), seat=seat, coin=coin,
               amount=got)
    elif got == 0:
        ev.add("gain", "{seat} gets no %s: the bank has none." % COIN_LABELS[coin], seat=seat,
               coin=coin, amount=0, wanted=n)
    else:
        ev.add("gain", "{seat} takes only %d %s: the bank had no more." % (got, label),
               seat=seat, coin=coin, amount=got, wanted=n)
    return got


def take_stone_from_bank(st: GameState, seat: int, colour: int, ev: Events) -> bool:
    name = COLOURS[colour]
    if st.bank.stones[colour] == 0:
        ev.add("gain", "{seat} gets no %s stone: the bank has none." % name, seat=seat,
               stone=name, amount=0)
        return False
    st.bank.stones[colour] -= 1
    st.players[seat].stones[colour] += 1
    ev.add("gain", "{seat} takes a %s stone from the bank." % name, seat=seat, stone=name,
           amount=1)
    return True


def pay_stones(st: GameState, seat: int, stones: list[int], ev: Events) -> None:
    player = st.players[seat]
    for colour, n in enumerate(stones):
        player.stones[colour] -= n
        st.bank.stones[colour] += n
    ev.add("pay_stones", "{seat} pays %s to the bank." % describe_stones(stones), seat=seat,
           stones=stones_dict(stones))


def score(st: GameState, seat: int, points: int, ev: Events) -> None:
    """Add points; reaching 3 ends the game at once, even mid-power (R7)."""
    player = st.players[seat]
    player.score += points
    ev.add("score", "{seat} scores %d point%s (now %d)." % (points, "" if points == 1 else "s",
           player.score), seat=seat, points=points, score=player.score)
    if player.score >= WINNING_SCORE and st.winner is None:
        st.winner = seat
        st.phase = "over"
        st.tasks.clear()
        st.question = None
        st.sealed.clear()
        st.sealed_tiebreak.clear()
        st.tied.clear()
        if st.bag is not None:  # a game can end with stones in the bag: they go back
            for colour in range(3):
                st.bank.stones[colour] += st.bag[colour]
            st.bag = None
        ev.add("game_over", "{winner} wins the game with %d points." % player.score,
               winner=seat, seed=str(st.seed))


def stones_dict(stones: list[int]) -> dict[str, int]:
    return {COLOURS[i]: stones[i] for i in range(3)}


def describe_stones(stones: list[int]) -> str:
    parts = [f"{n} {COLOURS[i]}" for i, n in enumerate(stones) if n]
    if not parts:
        return "no stones"
    total = sum(stones)
    return ", ".join(parts) + (" stone" if total == 1 else " stones")
