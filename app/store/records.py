"""What the store hands the layers above, and what they hand it: plain records of its rows
(dataclasses, no database session behind them): tables, seats, queue entries, feed lines, games
as loaded, an action to commit, a socket's arrival; and the clock every stored stamp is written
with.

A record is read once and then belongs to its reader: the table's audience keeps a table's rows in
memory and patches them as its sockets come and go (app.table.audience)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import engine
from app.core.clock import server_clock
from app.core.messages import ChatLine

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def utcnow() -> datetime:
    # The server's clock (app.core.clock), which tests may move forward.
    return server_clock.now()


def as_utc(stamp: datetime) -> datetime:
    # SQLite keeps no time zone; every stamp is written in UTC.
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


# open (filling seats) -> playing -> over; or closed (nobody came back to it)
TableStatus = Literal["open", "playing", "over", "closed"]
# waiting -> matched (seated) | left (left, or expired: its socket did not come back)
EntryStatus = Literal["waiting", "matched", "left"]

R = TypeVar("R", bound="DataclassInstance")
_FIELDS: dict[type, tuple[str, ...]] = {}


def record_of(kind: type[R], source: Any) -> R:
    """A record of `kind` with the same-named attributes of `source` (a row), or keys of it (a
    mapping: a row as JSON); what else `source` holds is left out."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    if isinstance(source, Mapping):
        return kind(**{name: source[name] for name in names})
    return kind(**{name: getattr(source, name) for name in names})


@dataclass(slots=True)
class TableRec:
    """A table (the `tables` row): its size, settings and status."""

    id: str
    seats: int
    public: bool = True
    status: TableStatus = "open"
    turn_seconds: int | None = None
    choose_seconds: int | None = None
    grace_seconds: int | None = None
    stand_in_kind: str | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    rematch_id: str | None = None
    creator_address: str | None = None


@dataclass(slots=True)
class SeatRec:
    """A taken seat (the `seats` row, its token's hash left out): a person or a bot."""

    id: int
    table_id: str
    seat: int
    name: str
    bot: bool
    bot_kind: str | None
    bot_seed: str | None
    stand_in: bool
    joined_at: datetime
    away_since: datetime | None
    seen_at: datetime | None


@dataclass(frozen=True, slots=True)
class GameRef:
    """What a table's frame says of its game."""

    id: str
    winner: int | None


@dataclass(slots=True)
class TableRows:
    """A table as stored: the table, its seats in seat order, its game (None before the start),
    and when it was read (monotonic seconds; 0: not kept in memory)."""

    table: TableRec
    seats: list[SeatRec]
    game: GameRef | None
    read_at: float = 0.0
    # The people's seats by their tokens' hashes (seat ids), when read with them: a room that
    # holds the rows finds a socket's seat without the database (app.edge.ws).
    tokens: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameStart:
    """A table's game as it starts (version 0), with the bots' seeds a known deal fixes (seat id
    -> seed; none for a deal nobody knows)."""

    game_id: str
    table_id: str
    players: int
    seed: str
    seed_commitment: str
    state: str
    opening: list[dict[str, Any]]
    deadline_at: datetime | None
    deadline_key: str | None
    now: datetime
    bot_seeds: dict[int, str] = field(default_factory=dict)
    # The game's notice to the other processes, sent at the commit (Bus.told_at_commit).
    tell: str | None = None


@dataclass(frozen=True, slots=True)
class Noted:
    """A seat's arrival found in memory, to check and write (app.store.arrival_batch): its seat
    row, the token hash it was found by, the bus payload that tells the other processes."""

    table_id: str
    seat_id: int
    token_hash: str
    tell: str


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What the public record of a finished game is made of (app.edge shapes it)."""

    id: str
    table_id: str
    players: int
    seed: str
    seed_commitment: str
    winner: int | None
    version: int
    state: str  # engine.dumps of the final state
    created_at: datetime
    finished_at: datetime | None
    seats: list[tuple[int, str, bool]]  # (seat, name, bot)
    actions: list[tuple[int, int, engine.Action]]  # (version, seat, action)


@dataclass(slots=True)
class QueueEntry:
    """A ticket of the matchmaking queue (the `queue_entries` row)."""

    id: str
    token_hash: str
    name: str
    size: int | None
    bots_after: int
    address: str
    status: EntryStatus = "waiting"
    left_reason: str | None = None
    created_at: datetime = field(default_factory=utcnow)
    heartbeat_at: datetime = field(default_factory=utcnow)
    closed_at: datetime | None = None
    table_id: str | None = None
    seat: int | None = None
    seat_token: str | None = None
    bots: int = 0
    ended_at: datetime | None = None


# -- a table's feed (app.store.chat) ---------------------------------------------------------

CHANNELS = ("players", "spectators", "notices")


@dataclass(frozen=True, slots=True)
class Line:
    """One stored line of a table's feed."""

    id: int  # the per-table number (seq)
    channel: str
    seat: int | None
    name: str | None
    text: str | None
    kind: str | None
    data: dict[str, Any] | None
    at: datetime

    def out(self) -> ChatLine:
        """The line as sent to clients (see docs/protocol.md, "Table chat")."""
        notice = self.channel == "notices"
        return ChatLine(
            id=self.id,
            channel=self.channel,  # type: ignore[arg-type]
            seat=self.seat,
            name=self.name,
            text=None if notice else self.text,
            kind=self.kind if notice else None,
            data=(self.data or {}) if notice else None,
            at=round(as_utc(self.at).timestamp(), 3),
        )


# -- games (app.store.games, app.store.bus) ---------------------------------------------------


@dataclass
class StoredGame:
    """A game as read from the database: the latest snapshot and every action's log row."""

    id: str
    table_id: str
    players: int
    seed: str
    state: str  # engine.dumps text of the snapshot (version `snapshot_version`)
    version: int
    over: bool
    opening: list[dict[str, Any]] | None
    turn_seconds: int | None
    bots: list[tuple[int, str | None, str | None]]  # (seat, kind, seed), stand-ins included
    # One entry per version after 0: (version, seat, action_id, raw events).
    actions: list[tuple[int, int, str, list[dict[str, Any]]]]
    # -- timers and absent players --
    choose_seconds: int | None = None
    deadline_at: datetime | None = None  # the open prompt's stored deadline
    deadline_key: str | None = None
    # -- snapshots --
    snapshot_version: int | None = None  # None: `state` is the state of `version`
    # (seat, action) of every version after the snapshot's, in order: replayed on load.
    replay: list[tuple[int, engine.Action]] = field(default_factory=list)

    def current_state(self) -> engine.State:
        """The state of `version`: the snapshot, then the actions after it (the engine is
        deterministic)."""
        state = engine.loads(self.state)
        for seat, action in self.replay:
            state, _events = engine.apply(state, seat, action)
        return state


@dataclass(frozen=True, slots=True)
class Commit:
    """One action to commit: the game moves from `version - 1` to `version`."""

    game_id: str
    table_id: str
    version: int
    seat: int
    action: engine.Action
    action_id: str
    events: list[dict[str, Any]]
    state: str | None  # engine.dumps of the new state when this version is a snapshot
    winner: int | None
    over: bool
    now: datetime = field(default_factory=utcnow)
    # The deadline of the prompt open after this action (app.table.clock), null: none.
    deadline_at: datetime | None = None
    deadline_key: str | None = None

    @property
    def status(self) -> str:
        return "over" if self.over else "playing"


@dataclass(frozen=True, slots=True)
class Carried:
    """The committed action a notification carries (app.store.games.notify_payload)."""

    seat: int
    action_id: str
    action: engine.Action
    events: list[dict[str, Any]]
    deadline_at: float | None  # Unix seconds of the deadline stored with it
    deadline_key: str | None


# -- a socket's arrival (app.store.arrivals) ----------------------------------------------------


@dataclass
class Arrival:
    """A socket at a table (app.store.ports.Arrivals): the seat its token holds (None: a
    spectator), whether the game exists, the feed's last line number, and what was asked for of
    the table's rows and the feed's last lines."""

    seat_id: int | None  # None: a spectator
    seat: int | None
    name: str | None
    has_game: bool
    rows: TableRows | None  # None when not asked for
    chat_last: int = 0  # the table feed's last line number (app.table.chat), 0: none yet
    # Its last lines (as many as asked for, all channels), when asked for.
    chat: list[Line] | None = None
