"""The stores as the layers above see them (protocol types), whichever database is behind them:
games, arrivals, tables and seats, the queue, the read model, presence, the chat feed, the bus;
and the errors a game's commit raises. Each one's Postgres or SQLite implementation is chosen
once, where the app is wired (app.store.stores).

A store raises only `ServiceError`s of its own (a table that does not exist) and the store's
errors of app.core.errors (`StoreUnavailable`, `StoreConflict`), never a driver's exception.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.core.errors import StoreConflict
from app.store.records import (
    CHANNELS,
    Arrival,
    Carried,
    Commit,
    FinishedGame,
    Line,
    QueueEntry,
    SeatRec,
    StoredGame,
    TableRec,
    TableRows,
)

# (table_id, version or None for a lobby change, the action when the notification carries it)
Handler = Callable[[str, int | None, Carried | None], None]
# (table_id, line number): a line of the table's feed was stored (app.table.feed)
ChatHandler = Callable[[str, int], None]


class StaleVersion(StoreConflict):
    """The game's version in the database is not the one the action was applied to."""


class DuplicateActionId(StoreConflict):
    """This seat's action_id is already committed (by another process, a moment ago)."""


class GameStore(Protocol):
    """A game's persistence (app.store.games)."""

    async def open(self) -> None:
        """Before the first game: the action path's connections."""
        ...

    async def load(self, table_id: str) -> StoredGame | None:
        """The table's game: its last snapshot and its whole action log (the actions after the
        snapshot to replay), or None before the start."""
        ...

    async def since(
        self, game_id: str, after: int
    ) -> list[tuple[int, int, str, dict[str, Any], list[dict[str, Any]]]]:
        """What another process committed after version `after`, in order: (version, seat,
        action_id, action, raw events) of each new action."""
        ...

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        """The committed version of each of these tables' games."""
        ...

    async def playing_tables(self) -> list[str]: ...

    async def commit(self, c: Commit) -> None:
        """Commit `c.version` (the game must be at `c.version - 1`); returns only once the action
        is durable. `StaleVersion`: another process committed that version first;
        `DuplicateActionId`: this seat's action_id is committed already; `StoreUnavailable`: the
        action may or may not be committed."""
        ...

    async def deadline(self, game_id: str) -> tuple[int, datetime | None, str | None] | None:
        """The game's version and the deadline stored with it."""
        ...

    async def save_deadline(
        self, game_id: str, version: int, at: datetime, key: str
    ) -> tuple[datetime, str] | None:
        """Store the deadline of a prompt that opened without one, if the game is still at
        `version` and has none; the deadline the database holds then (None: it moved on)."""
        ...

    async def stand_ins(self, table_id: str) -> list[tuple[int, str | None, str | None]]:
        """(seat, kind, seed) of every bot seat and stand-in of the table."""
        ...

    async def set_stand_in(
        self, table_id: str, seat: int, on: bool, kind: str | None = None, seed: str | None = None
    ) -> bool:
        """A bot starts or stops playing for a person's seat; False when it already did."""
        ...


class Arrivals(Protocol):
    """A socket's arrival and departure at a table (app.store.arrivals): on Postgres one
    statement each, on SQLite several reads in one transaction."""

    async def arrive(
        self,
        table_id: str,
        token: str,
        now: datetime,
        want_table: bool,
        tell: str,
        read_at: float,
        chat_lines: int = 0,
    ) -> Arrival:
        """A seat's socket arrives: its token checked (a `ServiceError` otherwise), the seat
        written online and the table active, the other processes told (`tell`, a bus payload;
        this process ignores it), the table's rows read when `want_table` (stamped `read_at`)
        and the feed's last `chat_lines` lines."""
        ...

    async def look(self, table_id: str, read_at: float) -> Arrival:
        """A spectator's socket arrives: the table's rows (a `ServiceError` not_found)."""
        ...

    async def depart(self, table_id: str, seat_id: int, now: datetime, tell: str) -> None:
        """A seat's last socket here closed: written away, the table active, the other processes
        told (`tell`)."""
        ...


class TableWrite(Protocol):
    """One write transaction on tables and seats (a lobby operation): committed when its block
    ends, rolled back when the block raises. `StoreConflict` (at a statement or at the commit):
    another writer took the same seat or key first, and nothing was written."""

    async def table(self, table_id: str) -> TableRec:
        """The table; `ServiceError` not_found when there is none."""
        ...

    async def seats(self, table_id: str) -> list[SeatRec]:
        """Its seats, in seat order."""
        ...

    async def seat_holding(self, table_id: str, token_hash: str) -> int | None:
        """The seat this token's hash holds at the table, if any."""
        ...

    async def add_table(self, table: TableRec) -> None: ...

    async def add_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        *,
        token_hash: str | None = None,
        bot_kind: str | None = None,
        bot_seed: str | None = None,
        away_since: datetime | None = None,
    ) -> None:
        """A person's seat (with its token's hash), or a bot's (with its kind and seed)."""
        ...

    async def update_seat(self, seat_id: int, **values: Any) -> None:
        """Change these columns of the seat."""
        ...

    async def games_count(self) -> int:
        """How many games were ever started here (tests' seeds, app.core.seeds)."""
        ...

    async def remove_seat(self, seat_id: int) -> None: ...

    async def remove_bot(self, table_id: str, seat: int) -> bool:
        """False when no bot sits there."""
        ...

    async def update_table(self, table_id: str, **values: Any) -> None:
        """Change these columns of the table, and mark it changed now (`updated_at`)."""
        ...

    async def start_game(
        self,
        *,
        game_id: str,
        table_id: str,
        players: int,
        seed: str,
        seed_commitment: str,
        state: str,
        opening: list[dict[str, Any]],
        deadline_at: datetime | None,
        deadline_key: str | None,
    ) -> bool:
        """Store the game at version 0 and move the table from open to playing; False when the
        table was no longer open (another process started it)."""
        ...

    async def link_rematch(self, table_id: str, rematch_id: str) -> bool:
        """Link the table's rematch; False when another one was linked first."""
        ...

    async def serialize_address(self, address: str) -> None:
        """Until the end of this transaction, other writers that ask for the same address wait
        (one writer at a time on SQLite already)."""
        ...

    async def empty_tables_of(self, address: str, listed: timedelta) -> tuple[int, datetime | None]:
        """How many open tables opened from `address` have no person seated and changed within
        `listed`, and the oldest change among them."""
        ...


class TableStore(Protocol):
    """Tables and seats, written by the lobby."""

    def write(self) -> AbstractAsyncContextManager[TableWrite]: ...


class QueueRead(Protocol):
    """Reads of the matchmaking queue in one session."""

    async def entry(self, ticket: str, *, lock: bool = False) -> QueueEntry | None:
        """The ticket's entry (`lock`: locked until the transaction ends)."""
        ...

    async def entries(self, tickets: Sequence[str]) -> list[QueueEntry]: ...

    async def live(self, now: datetime, grace: timedelta, *, lock: bool = True) -> list[QueueEntry]:
        """The entries that may be matched, in queue order: waiting, a socket open, refreshed
        within `grace` (`lock`: locked until the transaction ends)."""
        ...

    async def waiting_by_size(self, now: datetime, grace: timedelta) -> Counter[int | None]:
        """How many of those wait for each table size (None: any)."""
        ...


class QueueWrite(TableWrite, QueueRead, Protocol):
    """One write transaction on the queue (and the tables it forms)."""

    async def waiting_from(self, address: str) -> int:
        """How many entries from this address wait."""
        ...

    async def add_entry(self, entry: QueueEntry) -> None: ...

    async def leave(self, ticket: str, now: datetime) -> bool:
        """The entry leaves the queue; False when it was no longer waiting."""
        ...

    async def matched(
        self, ticket: str, *, table_id: str, seat: int, seat_token: str, bots: int, now: datetime
    ) -> bool:
        """The entry is seated; False when it was no longer waiting."""
        ...

    async def expire(self, now: datetime, grace: timedelta, keep: timedelta) -> None:
        """Entries whose sockets are gone for `grace` leave; those ended `keep` ago go."""
        ...

    async def stranded(self, now: datetime, after: timedelta) -> list[tuple[str, str]]:
        """(table, its first seat's token) of the queue's tables formed `after` ago or more and
        still not started."""
        ...


class QueueStore(Protocol):
    """The matchmaking queue."""

    def write(self, *, locked: bool = False) -> AbstractAsyncContextManager[QueueWrite]:
        """A write transaction; `locked`: after every other process's locked one (the matching
        pass)."""
        ...

    def read(self) -> AbstractAsyncContextManager[QueueRead]: ...

    async def heartbeat(self, tickets: Sequence[str], now: datetime) -> None:
        """These tickets' sockets are open: refreshed, matchable."""
        ...

    async def socket_closed(self, ticket: str, now: datetime) -> None: ...

    async def anyone_waiting(self) -> bool: ...


class ReadModel(Protocol):
    """What the lobby and the edge read: a table, the lists, a token's seat, a finished game.
    Nothing here writes."""

    async def table(self, table_id: str) -> TableRows:
        """`ServiceError` not_found when there is none."""
        ...

    async def open_tables(self, limit: int, here: Collection[str]) -> list[TableRows]:
        """Public tables that have not started and still have a free seat: those with a person
        online first (`here`: the tables where one is, in this process), then those with a
        person seated, then those with nobody seated (listed only for a while after their last
        change), each newest first. Without their games."""
        ...

    async def playing_tables(
        self, limit: int, here: Collection[str], live: Mapping[str, tuple[int, Any]]
    ) -> list[tuple[TableRows, Any]]:
        """Public tables whose game is being played and not abandoned, the most recently active
        first, each with its game's current state (`live`: table -> (version, state) of the
        games this process holds)."""
        ...

    async def seat_for_token(self, table_id: str, token: str | None) -> SeatRec:
        """The seat a token holds at this table, or a `ServiceError`."""
        ...

    async def finished_game(self, game_id: str) -> FinishedGame:
        """What the public record of a finished game is made of, or a `ServiceError`
        (game_not_found, not_over)."""
        ...


class PresenceStore(Protocol):
    """Who is online at which table, stored (app.store.presence)."""

    @property
    def stale(self) -> timedelta: ...
    @property
    def idle(self) -> timedelta: ...

    async def depart(self, table_id: str, seat_id: int) -> None:
        """The last socket of this seat in this process closed."""
        ...

    async def close_if_idle(self, table_id: str, cutoff: datetime) -> bool: ...

    async def heartbeat(self, seat_ids: Collection[int]) -> list[str]: ...
    def start(
        self,
        seat_ids: Callable[[], Collection[int]],
        online_here: Callable[[str], Collection[int]],
        changed: Callable[[str], Awaitable[None]],
    ) -> None:
        """Its periodic tasks: the heartbeat of this process's seats, closing idle tables."""
        ...

    def stop(self) -> None: ...


class FeedStore(Protocol):
    """Tables' feeds: chat lines and notices, numbered per table (app.store.feeds)."""

    async def append(
        self,
        table_id: str,
        *,
        channel: str,
        seat: int | None = None,
        name: str | None = None,
        text_: str | None = None,
        kind: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Line:
        """Store one line under the table's next number; returns it once committed."""
        ...

    async def after(
        self, table_id: str, after: int, channels: tuple[str, ...] = CHANNELS, limit: int = 500
    ) -> list[Line]: ...

    async def latest(
        self,
        table_id: str,
        limit: int,
        channels: tuple[str, ...] = CHANNELS,
        after: int = 0,
        upto: int | None = None,
    ) -> list[Line]: ...

    async def last_ids(self, table_ids: list[str]) -> dict[str, int]: ...
    async def seat_name(self, table_id: str, seat: int) -> str | None: ...
    async def spectator_names(self, table_id: str) -> set[str]: ...


class Bus(Protocol):
    """How processes hear of each other's commits, lobby changes and chat lines
    (app.store.bus)."""

    origin: str  # this process, in the payloads it ignores
    on_chat: ChatHandler | None

    async def start(self, handler: Handler, on_reconnect: Callable[[], None]) -> None: ...
    async def publish(self, table_id: str, version: int | None) -> None: ...
    async def close(self) -> None: ...


class Health(Protocol):
    async def problem(self, timeout: float) -> str | None:
        """None when the database answers within `timeout`, else what went wrong, in a few
        words."""
        ...


@dataclass(frozen=True)
class Stores:
    """Every store of one database, as the app is wired with them (app.store.stores)."""

    games: GameStore
    arrivals: Arrivals
    tables: TableStore
    queue: QueueStore
    reads: ReadModel
    feeds: FeedStore
    presence: PresenceStore
    bus: Bus
    health: Health
    close: Callable[[], Awaitable[None]]  # the pools and connections, at shutdown
