"""What the store hands the layers above: plain records of its rows (dataclasses, no database
session behind them), and the clock every stored stamp is written with.

A record is read once and then belongs to its reader: the table's audience keeps a table's rows in
memory and patches them as its sockets come and go (app.table.audience)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def utcnow() -> datetime:
    return datetime.now(UTC)


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
    """A record of `kind` with the same-named attributes of `source` (a row, a namespace)."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
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
    actions: list[tuple[int, int, dict[str, Any]]]  # (version, seat, action)


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
