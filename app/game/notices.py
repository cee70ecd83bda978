"""A table's notices that are not game actions ("a bot plays for Bea", "Bea is back"): stored with
the table, sent to every socket when they happen and again to each socket that connects.

Other processes read the ones they have not seen when the bus tells them the table changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import insert, select

from app.game.store import as_utc
from app.messages import NoticeOut
from app.models import NoticeRow, utcnow

if TYPE_CHECKING:
    from app.connections import Connection
    from app.game.room import Room

# A table's notices are few (two per hand-over); this bounds what a connect replays.
MAX_NOTICES = 200


class Notices:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.items: list[NoticeOut] = []
        self.loaded = False

    async def post(self, kind: str, seat: int, *, by: int | None = None) -> None:
        """Store a notice and send it to this process's sockets of the table."""
        game = self.room.game
        now = utcnow()
        async with self.room.hub.store.db.write_core() as conn:
            result = await conn.execute(
                insert(NoticeRow).values(
                    table_id=self.room.table_id,
                    kind=kind,
                    seat=seat,
                    by_seat=by,
                    game_version=game.version if game else 0,
                    created_at=now,
                )
            )
            notice_id = result.inserted_primary_key[0] if result.inserted_primary_key else 0
        await self.catch_up()
        if not any(n.id == notice_id for n in self.items):  # the read raced: send what we know
            self._add(
                NoticeOut(id=notice_id, kind=kind, seat=seat, by=by,  # type: ignore[arg-type]
                          version=game.version if game else 0, at=now.timestamp())
            )

    async def catch_up(self) -> None:
        """Read the notices this process has not seen (its own or another process's) and send
        them to the sockets."""
        last = self.items[-1].id if self.items else 0
        async with self.room.hub.store.db.sessions() as session:
            rows = await session.scalars(
                select(NoticeRow)
                .where(NoticeRow.table_id == self.room.table_id, NoticeRow.id > last)
                .order_by(NoticeRow.id)
                .limit(MAX_NOTICES)
            )
            fresh = [
                NoticeOut(
                    id=r.id, kind=r.kind, seat=r.seat, by=r.by_seat,  # type: ignore[arg-type]
                    version=r.game_version, at=as_utc(r.created_at).timestamp(),
                )
                for r in rows
            ]
        self.loaded = True
        for notice in fresh:
            self._add(notice)

    def _add(self, notice: NoticeOut) -> None:
        if self.items and notice.id <= self.items[-1].id:
            return
        self.items.append(notice)
        del self.items[:-MAX_NOTICES]
        for conn in self.room.connections:
            conn.send(notice)

    async def replay(self, conn: Connection) -> None:
        """Every notice of the table, to a socket that has just connected."""
        known = list(self.items)
        if not self.loaded:
            await self.catch_up()  # sends what it reads to every socket, this one included
        for notice in known:
            conn.send(notice)
