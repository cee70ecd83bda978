"""The stores the lobby and the edge use, as protocol types (app.store.ports has the others):
tables and seats written in one transaction per lobby operation, the matchmaking queue, and the
read model. Each one's Postgres or SQLite implementation is chosen once (app.store.stores).

A store raises only `ServiceError`s of its own (a table that does not exist) and the store's
errors of app.core.errors (`StoreUnavailable`, `StoreConflict`), never a driver's exception.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any, Protocol

import engine
from app.store.records import (
    FinishedGame,
    GameStart,
    QueueEntry,
    SeatRec,
    TableRec,
    TableRows,
)


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

    async def start_game(self, start: GameStart) -> bool:
        """Store the game at version 0 and move the table from open to playing; False when the
        table was no longer open (another process started it). `start.bot_seeds` and
        `start.tell` are not written here (TableStore.begin_game)."""
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

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        token_hash: str,
        now: datetime,
        tell: str | None = None,
    ) -> bool:
        """A person sits at `seat` (away until their page connects) and the table is marked
        changed, in one step that needs the table still `open`: False if it is not (nothing
        written); `StoreConflict` if the seat or the token was taken meanwhile. `tell`: the
        bus's notice of the change (Bus.told_at_commit), sent with the seat's commit."""
        ...

    async def begin_game(self, start: GameStart) -> bool:
        """The game is stored at version 0, the table moves from open to playing and the bots'
        seeds are written, in one step that needs the table still `open` with every seat taken:
        False if it is not (nothing written: another process started it, or a seat was given
        back meanwhile). `start.tell` goes out with the commit, as `take_seat`'s."""
        ...


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
        self, limit: int, here: Collection[str], live: Mapping[str, tuple[int, engine.State]]
    ) -> list[tuple[TableRows, engine.State]]:
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
