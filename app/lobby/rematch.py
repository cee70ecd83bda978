"""Play again with the same players: at the end of a game, the first seated person who asks opens a
new table with the same size and settings, linked from the old one (`tables.rematch_id`); each
person who asks is seated there under the same name, at the same seat when it is free.

A person's seat at the new table is found again from their old token: the new token is derived
from it (a hash of the old table's id and the old token), so asking twice answers the same seat and
the same token, and nobody can take another person's place without that person's old token. The
host of the new table is the first to accept (the earliest seated person). Bots keep their seats
unless the old table's host opens the new table with `bots: false`.
"""

from __future__ import annotations

import base64
import hashlib

from app.core import names
from app.core.errors import Code, ServiceError, StoreConflict
from app.core.schemas import JoinOut
from app.core.security import hash_token, new_id, new_seed
from app.lobby.tables import SETTINGS_COLUMNS, Lobby, closed_error
from app.store.presence import host_seat
from app.store.records import SeatRec, TableRec, utcnow


class _Lost(Exception):
    """Another process linked its new table first."""


def rematch_token(table_id: str, token: str) -> str:
    """The seat token at the rematch of `table_id` of whoever held `token` there."""
    digest = hashlib.sha256(f"dragonstones-rematch:{table_id}:{token}".encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def play_again(
    lobby: Lobby, *, table_id: str, token: str | None, bots: bool | None
) -> JoinOut:
    me = await lobby.reads.seat_for_token(table_id, token)
    assert token is not None
    new_token = rematch_token(table_id, token)
    try:
        rematch_id, created = await _open(lobby, table_id, me, bots)
    except _Lost:
        rematch_id, created = await _open(lobby, table_id, me, bots)
    for _attempt in range(5):
        try:
            seat = await _take_seat(lobby, rematch_id, me, new_token)
            break
        except StoreConflict:
            continue  # another process seated someone there at the same moment: look again
    else:
        raise ServiceError(Code.CONFLICT, "the new table changed too often; try again")
    if created:
        # Everyone at the old table sees the link at once (the table frame carries it), once
        # its opener sits there and hosts it.
        async with lobby.hub.hold(table_id) as old_room:
            await lobby._changed(old_room)
    return JoinOut(table_id=rematch_id, seat=seat, token=new_token)


async def _open(lobby: Lobby, table_id: str, me: SeatRec, bots: bool | None) -> tuple[str, bool]:
    """The old table's rematch: the linked one, or a new one linked now (True)."""
    created = False
    async with lobby.hub.hold(table_id), lobby.tables.write() as tx:
        old = await tx.table(table_id)
        if old.status != "over":
            raise ServiceError(Code.NOT_OVER, "play again opens when the game is over")
        rematch_id = old.rematch_id
        if rematch_id is None:
            seats = await tx.seats(table_id)
            # Only the host chooses; whoever else opens it keeps the bots.
            keep_bots = bots if bots is not None and host_seat(seats) == me.seat else True
            rematch_id = new_id()
            await tx.add_table(
                TableRec(
                    id=rematch_id,
                    seats=old.seats,
                    status="open",
                    **{column: getattr(old, column) for column in SETTINGS_COLUMNS},
                )
            )
            if keep_bots:
                for s in seats:
                    if s.bot:
                        await tx.add_seat(
                            rematch_id, s.seat, s.name, bot_kind=s.bot_kind,
                            bot_seed=str(new_seed()),
                        )  # fmt: skip
            # Guarded: of two processes opening it at once, one links its table; the
            # other's transaction rolls back and it seats its caller at the linked one.
            if not await tx.link_rematch(table_id, rematch_id):
                raise _Lost
            created = True
    return rematch_id, created


async def _take_seat(lobby: Lobby, table_id: str, me: SeatRec, token: str) -> int:
    """This person's seat at the new table: the one they already took, else theirs from the
    old table when it is free, else the lowest free one."""
    async with lobby.hub.hold(table_id) as room:
        async with lobby.tables.write() as tx:
            mine = await tx.seat_holding(table_id, hash_token(token))
            if mine is not None:
                return mine
            table = await tx.table(table_id)
            if table.status == "closed":
                raise closed_error()
            if table.status != "open":
                raise ServiceError(Code.ALREADY_STARTED, "the new table's game has started")
            seats = await tx.seats(table_id)
            if any(names.same(s.name, me.name) for s in seats):
                raise ServiceError(
                    Code.NAME_TAKEN, f"someone at the new table is called {me.name!r}"
                )
            free = set(range(table.seats)) - {s.seat for s in seats}
            if not free:
                raise ServiceError(Code.TABLE_FULL, "every seat of the new table is taken")
            seat = me.seat if me.seat in free else min(free)
            await tx.add_seat(
                table_id, seat, me.name, token_hash=hash_token(token), away_since=utcnow()
            )
            await tx.update_table(table_id)
        await lobby._changed(room)
    return seat
