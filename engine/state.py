"""The game state: the players, the bank, the auction records, the tasks and questions, and how a
state is copied (the coin and stone ledger every rule is written with is engine/ledger.py).

The state is a tree of plain slotted dataclasses, treated as immutable once `apply` (or `new_game`,
or `loads`) has returned it: nothing in the engine changes a state it was given or one it returned.
`apply` builds the next state by copy-on-write: `derive()` copies the state's containers (cheap
lists) but shares the players and the auction records; a rule that changes a player or a record
first takes its own copy with `st.player(seat)` or `st.record(i)`, which copy it once per `apply`
(the copies carry the new state's `owner` token). An action that changes nothing but one sealed
bid skips even that (see `apply`). tests/engine/test_immutable.py proves no call changes a state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

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


# A copy is made field by field into `new_object(cls)`: calling the class instead would pass its
# arguments to `__init__` packed in a tuple first, which costs about twice as much, and copying
# states and players is most of what `apply` does. tests/engine/test_immutable.py checks that
# every copy function copies every field.
new_object = object.__new__


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
    owner: object = field(default=None, compare=False, repr=False)  # see GameState.player
    # The `max` of this player's bid prompt, made by the first `prompts` that needs it: a player
    # never changes once its state is returned (a change copies it first, see GameState.player).
    # Not part of the game; `prompts` hands out copies.
    bid_max: dict[str, int | bool] | None = field(default=None, compare=False, repr=False)

    def clone(self, owner: object = None) -> Player:
        return _copy_player(self, owner)


@dataclass(slots=True)
class Bank:
    fairy_gold: int = 0
    common_gold: int = 0
    silver: int = 0
    amulets: int = 0
    stones: list[int] = field(default_factory=lambda: [0, 0, 0])

    def clone(self) -> Bank:
        return _copy_bank(self)


class Bid(NamedTuple):
    """A sealed bid (R8): gold, plus optionally one Amulet and one Black Magic coin.

    A named tuple: immutable, and cheap to make (one per bid of every auction)."""

    fairy_gold: int = 0
    common_gold: int = 0
    amulet: bool = False
    black_magic: bool = False

    @property
    def value(self) -> int:
        gold = self.fairy_gold + self.common_gold
        return gold * 2 if self.amulet else gold


class TieBid(NamedTuple):
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
    owner: object = field(default=None, compare=False, repr=False)  # see GameState.record

    def clone(self, owner: object = None) -> Record:
        # bids, tied and tiebreak are never changed once set: shared.
        return _copy_record(self, owner)


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
        return _copy_task(self)


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
    # The token of the `apply` that made this state: players and records carrying it are this
    # state's own copies, which that `apply` may still change. Not part of the game.
    owner: object = field(default=None, compare=False, repr=False)

    def clone(self) -> GameState:
        """A full, independent copy (for tests and tools that change a state by hand)."""
        st = self.derive()
        st.players = [p.clone() for p in self.players]
        st.records = [r.clone() for r in self.records]
        st.specials, st.pile = self.specials[:], self.pile[:]
        st.special_deck, st.used_specials = self.special_deck[:], self.used_specials[:]
        st.sealed, st.tied = dict(self.sealed), self.tied[:]
        st.sealed_tiebreak = dict(self.sealed_tiebreak)
        return st

    def derive(self) -> GameState:
        """A state to build the next one in: its own bank, tasks, bag and lists of players and
        records; players and records shared until `player`/`record` copies them.

        The other containers (specials, pile, special_deck, used_specials, sealed, tied,
        sealed_tiebreak) are shared too: the rules replace them with new ones, never change them
        in place."""
        st = copy_state(self)
        st.players = self.players[:]
        st.bank = _copy_bank(self.bank)
        st.records = self.records[:]
        st.tasks = [_copy_task(t) for t in self.tasks] if self.tasks else []
        if self.bag is not None:
            st.bag = self.bag[:]
        st.owner = object()
        return st

    def share(self) -> GameState:
        """A new state sharing every part of this one: for an action that only replaces one of
        its containers (a sealed bid before the reveal). The caller replaces, never changes,
        what it touches."""
        return copy_state(self)

    def player(self, seat: int) -> Player:
        """Seat `seat`'s player, to be changed: copied on the first change in this `apply`."""
        p = self.players[seat]
        if p.owner is not self.owner or p.owner is None:
            p = self.players[seat] = p.clone(self.owner)
        return p

    def record(self, index: int) -> Record:
        """The auction record at `index`, to be changed: copied on the first change."""
        r = self.records[index]
        if r.owner is not self.owner or r.owner is None:
            r = self.records[index] = r.clone(self.owner)
        return r

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


def _copy_player(p: Player, owner: object) -> Player:
    new: Player = new_object(Player)
    new.seat = p.seat
    new.score = p.score
    new.stones = p.stones[:]
    new.fairy_gold = p.fairy_gold
    new.common_gold = p.common_gold
    new.silver = p.silver
    new.amulets = p.amulets
    new.black_magic = p.black_magic
    new.fairy_gold_spent = p.fairy_gold_spent
    new.owner = owner
    new.bid_max = None
    return new


def _copy_bank(b: Bank) -> Bank:
    new: Bank = new_object(Bank)
    new.fairy_gold = b.fairy_gold
    new.common_gold = b.common_gold
    new.silver = b.silver
    new.amulets = b.amulets
    new.stones = b.stones[:]
    return new


def _copy_record(r: Record, owner: object) -> Record:
    new: Record = new_object(Record)
    new.card = r.card
    new.via = r.via
    new.bids = r.bids
    new.tied = r.tied
    new.tiebreak = r.tiebreak
    new.winner = r.winner
    new.cursed = r.cursed
    new.necromancer_used = r.necromancer_used
    new.owner = owner
    return new


def _copy_task(t: Task) -> Task:
    new: Task = new_object(Task)
    new.card = t.card
    new.seat = t.seat
    new.auction = t.auction
    new.step = t.step
    new.target = t.target
    new.drawn = None if t.drawn is None else t.drawn[:]
    new.doppel_offer = t.doppel_offer
    return new


def copy_state(st: GameState) -> GameState:
    """Every field shared; the caller replaces what differs."""
    new: GameState = new_object(GameState)
    new.players = st.players
    new.bank = st.bank
    new.seed = st.seed
    new.seed_commitment = st.seed_commitment
    new.rng = st.rng
    new.turn = st.turn
    new.phase = st.phase
    new.card = st.card
    new.specials = st.specials
    new.pile = st.pile
    new.special_deck = st.special_deck
    new.used_specials = st.used_specials
    new.doppelganger = st.doppelganger
    new.records = st.records
    new.sealed = st.sealed
    new.tied = st.tied
    new.sealed_tiebreak = st.sealed_tiebreak
    new.tasks = st.tasks
    new.question = st.question
    new.bag = st.bag
    new.winner = st.winner
    new.owner = None
    return new
