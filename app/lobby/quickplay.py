"""Quick play: a seat at the public open table closest to full, beside someone online, else at a
new public table with the player already seated."""

from __future__ import annotations

from typing import Protocol

from app.core.config import Settings
from app.core.errors import Code, ServiceError
from app.core.schemas import JoinOut, TableOut
from app.core.security import hash_token, new_id, new_token
from app.store.lobby_ports import TableStore
from app.store.records import TableRec, utcnow
from app.table.listing import Listing


class Lobby(Protocol):
    """What quick play uses of the lobby (app.lobby.tables.Lobby)."""

    tables: TableStore
    settings: Settings

    @property
    def listing(self) -> Listing: ...

    async def join(self, *, table_id: str, name: str, need_online: bool = False) -> JoinOut: ...


# The size of the table quick play opens when no open table fits.
DEFAULT_QUICKPLAY_SEATS = 4
# Refusals after which quick play tries the next table.
_QUICKPLAY_SKIP = (
    Code.TABLE_FULL,
    Code.ALREADY_STARTED,
    Code.NAME_TAKEN,
    Code.CONFLICT,
    Code.TABLE_CLOSED,
)


async def seat(lobby: Lobby, *, name: str, seats: int | None, open_only: bool = False) -> JoinOut:
    """A seat at the public open table closest to full, else at a new public table (with
    `open_only`: only a waiting table of the size asked, else `no_open_table`).

    Each try is an ordinary join (the table's lock, the seat count read in the transaction
    and the unique seat): who loses the race for a last seat moves on to the next table."""
    # Never beside nobody: a table where no seated person is online is skipped.
    tables = [t for t in await lobby.listing.open_tables() if t.online > 0]
    if open_only and seats is not None:
        tables = [t for t in tables if t.seats == seats]
    for table in _order(tables, seats):
        try:
            return await lobby.join(table_id=table.id, name=name, need_online=True)
        except ServiceError as exc:
            if exc.code not in _QUICKPLAY_SKIP:
                raise
    if open_only:
        raise ServiceError(Code.NO_OPEN_TABLE, "no open table is waiting for players")
    return await _create_and_join(lobby, seats=seats or DEFAULT_QUICKPLAY_SEATS, name=name)


def _order(tables: list[TableOut], seats: int | None) -> list[TableOut]:
    # The size asked first; then the fewest free seats (it starts soonest); then the table
    # waiting longest.
    return sorted(
        tables,
        key=lambda t: (
            seats is not None and t.seats != seats,
            t.seats - t.taken,
            -t.taken / t.seats,
            t.created_at,
        ),
    )


async def _create_and_join(lobby: Lobby, *, seats: int, name: str) -> JoinOut:
    """A new public table with this player already seated, in one transaction: nobody can
    take the creator's seat between the two."""
    table_id, token = new_id(), new_token()
    async with lobby.tables.write() as tx:
        limits = lobby.settings.default_limits()
        await tx.add_table(
            TableRec(
                id=table_id,
                seats=seats,
                turn_seconds=limits["turn_seconds"],
                choose_seconds=limits["choose_seconds"],
            )
        )
        await tx.add_seat(table_id, 0, name, token_hash=hash_token(token), away_since=utcnow())
    return JoinOut(table_id=table_id, seat=0, token=token)
