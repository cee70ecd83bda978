"""What the clock and the stand-ins keep in the game and seat rows: the deadline of the prompt
that is open, and which seats a bot plays for. Part of the game store: `GameStore` (app.store.games)
inherits these, so its callers keep one handle."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from app.store.db import Database
from app.store.errors import mapped
from app.store.models import GameRow, SeatRow, TableRow, as_utc, utcnow


@mapped
class SeatClocks:
    db: Database

    async def deadline(self, game_id: str) -> tuple[int, datetime | None, str | None] | None:
        """The game's version and the deadline stored with it (another process's commit)."""
        async with self.db.sessions() as session:
            row = (
                await session.execute(
                    select(GameRow.version, GameRow.deadline_at, GameRow.deadline_key).where(
                        GameRow.id == game_id
                    )
                )
            ).first()
        if row is None:
            return None
        return row[0], as_utc(row[1]) if row[1] else None, row[2]

    async def save_deadline(
        self, game_id: str, version: int, at: datetime, key: str
    ) -> tuple[datetime, str] | None:
        """Store the deadline of a prompt that opened without one (the start): only if the game
        is still at `version` and has none. Returns the deadline the database holds then (maybe
        another process's), or None when the game moved on."""
        async with self.db.write_core() as conn:
            await conn.execute(
                update(GameRow)
                .where(
                    GameRow.id == game_id,
                    GameRow.version == version,
                    GameRow.deadline_key.is_(None),
                )
                .values(deadline_at=at, deadline_key=key)
            )
            row = (
                await conn.execute(
                    select(GameRow.deadline_at, GameRow.deadline_key).where(
                        GameRow.id == game_id, GameRow.version == version
                    )
                )
            ).first()
        if row is None or row[1] is None:
            return None
        return as_utc(row[0]) if row[0] else utcnow(), row[1]

    async def extend_deadline(self, game_id: str, version: int, key: str, at: datetime) -> bool:
        """Move the open prompt's deadline to `at` (more time asked for), if the game is still
        at `version` with the deadline `key`; False when it moved on."""
        async with self.db.write_core() as conn:
            done = await conn.execute(
                update(GameRow)
                .where(
                    GameRow.id == game_id,
                    GameRow.version == version,
                    GameRow.deadline_key == key,
                )
                .values(deadline_at=at)
            )
        return bool(done.rowcount)

    async def stand_ins(self, table_id: str) -> list[tuple[int, str | None, str | None]]:
        """(seat, kind, seed) of every bot seat and stand-in of the table."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(SeatRow.seat, SeatRow.bot_kind, SeatRow.bot_seed).where(
                    SeatRow.table_id == table_id, SeatRow.bot.is_(True) | SeatRow.stand_in
                )
            )
            return [(s, k, b) for s, k, b in rows]

    async def set_stand_in(
        self, table_id: str, seat: int, on: bool, kind: str | None = None, seed: str | None = None
    ) -> bool:
        """A bot (kind, seed) starts or stops playing for a person's seat; False when the seat
        already was so (another caller, another process) or is a bot's."""
        values: dict[str, Any] = {"stand_in": on}
        if on:
            values.update(bot_kind=kind, bot_seed=seed)
        async with self.db.write_core() as conn:
            result = await conn.execute(
                update(SeatRow)
                .where(
                    SeatRow.table_id == table_id,
                    SeatRow.seat == seat,
                    SeatRow.bot.is_(False),
                    SeatRow.stand_in.is_(not on),
                )
                .values(**values)
            )
            if result.rowcount == 1:
                await conn.execute(
                    update(TableRow).where(TableRow.id == table_id).values(updated_at=utcnow())
                )
        return bool(result.rowcount == 1)
