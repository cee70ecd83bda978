"""The stores as the layers above see them (protocol types), whichever database is behind them:
games, arrivals, presence, the chat feed, the bus, the database's health (app.store.lobby_ports
has the lobby's: tables and seats, the queue, the read model); the errors a game's commit raises;
and `Stores`, all of them as the app is wired. Each one's Postgres or SQLite implementation is
chosen once, where the app is wired (app.store.stores).

A store raises only `ServiceError`s of its own (a table that does not exist) and the store's
errors of app.core.errors (`StoreUnavailable`, `StoreConflict`), never a driver's exception.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import engine
from app.core.errors import StoreConflict
from app.store.lobby_ports import QueueStore, ReadModel, TableStore
from app.store.player_ports import HistoryStore, LeagueStore, PlayerStore
from app.store.push_ports import PushStore
from app.store.records import CHANNELS, Arrival, Carried, Commit, Line, Noted, StoredGame

# (table_id, version or None for a lobby change, the action when the notification carries it)
Handler = Callable[[str, int | None, Carried | None], None]
# (table_id, line number): a line of the table's feed was stored (app.table.chat)
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
    ) -> list[tuple[int, int, str, engine.Action, list[dict[str, Any]]]]:
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

    async def extend_deadline(self, game_id: str, version: int, key: str, at: datetime) -> bool:
        """Move the open prompt's deadline to `at`, if the game is still at `version` with the
        deadline `key`; False when it moved on."""
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

    async def noted(self, noted: Noted) -> bool:
        """A seat's socket arrives whose seat the room found by its token in memory: written as
        `arrive` writes it, where the seat still holds that token, with the other arrivals
        noted meanwhile (app.store.arrival_batch); False when not written: ask `arrive`."""
        ...

    async def depart(self, table_id: str, seat_id: int, now: datetime, tell: str) -> None:
        """A seat's last socket here closed: written away, the table active, the other processes
        told (`tell`)."""
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
    """Tables' feeds: chat lines and notices, numbered per table (app.store.chat)."""

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
    async def seat_names(self, table_id: str) -> list[str]: ...


class Bus(Protocol):
    """How processes hear of each other's commits, lobby changes and chat lines
    (app.store.bus)."""

    origin: str  # this process, in the payloads it ignores
    on_chat: ChatHandler | None
    # This process's own lobby notices, heard back: the table's id only.
    on_own: Callable[[str], None] | None
    # Other processes' presence changes reach this one as notices, as they happen (Postgres);
    # else (SQLite) only this process's own are known without a read.
    hears_presence: bool

    async def start(self, handler: Handler, on_reconnect: Callable[[], None]) -> None: ...
    async def publish(self, table_id: str, version: int | None) -> None: ...
    async def publish_change(self, table_id: str) -> None:
        """A lobby change this process made under the table's room and has told that room's
        sockets of: the other processes read the table again; this one hears only its table's
        id (`on_own`)."""

    def told_at_commit(self, table_id: str, version: int | None = None) -> str | None:
        """The NOTIFY payload that a store's own statement can send at its commit in place of
        `publish_change(table_id)` (`version` None) or `publish(table_id, version)`: one
        statement fewer (Postgres). None: this bus tells without the database (SQLite); call
        the method after the commit."""
        ...

    def tell(self, table_id: str) -> str:
        """The NOTIFY payload of a presence change this process made (app.store.arrivals): the
        other processes read the table again; this one, which shows it already, ignores it."""
        ...

    async def close(self) -> None: ...


class Health(Protocol):
    async def problem(self, timeout: float) -> str | None:
        """None when the database answers within `timeout`, else what went wrong, in a few
        words."""
        ...


class AnalysisStore(Protocol):
    """The analyses of finished games, decision by decision (app.store.analyses)."""

    async def request(self, game_id: str, worlds: int, total: int) -> bool: ...
    async def decisions(self, game_id: str, worlds: int) -> list[dict[str, Any]]: ...
    async def add(self, game_id: str, worlds: int, decisions: list[dict[str, Any]]) -> None: ...
    async def finish(self, game_id: str, worlds: int) -> None: ...
    async def unfinished(self, worlds: int) -> list[str]: ...


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
    analyses: AnalysisStore
    players: PlayerStore
    history: HistoryStore
    leagues: LeagueStore
    push: PushStore
    close: Callable[[], Awaitable[None]]  # the pools and connections, at shutdown
