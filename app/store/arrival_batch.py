"""Seat arrivals written together: a socket whose seat the room found in memory by its token
(app.edge.ws) still has its token checked and its presence written (the seat online, the table
active, the other processes told) before it is let in, but in one statement with every other
arrival noted meanwhile instead of one round trip each.

The statement writes a seat only where the seat row still holds that token hash at that table:
an arrival it did not write (the token was changed or its seat given back meanwhile), or whose
statement failed (the database away), is answered False, and the socket asks the database
alone (`Arrivals.arrive`), which refuses it as before. One statement is under way at a time;
arrivals noted during it go in the next one. A socket joins its room only once its arrival is
written, so its own departure always comes after it (no departure waits for this).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from sqlalchemy import update

from app.store.db import Database
from app.store.models import SeatRow, TableRow
from app.store.pgpool import PgPool
from app.store.records import Noted, utcnow

log = logging.getLogger("dragonstones.arrivals")


# The seats still held by their tokens written online, their tables active, every table told.
_PG_WRITE = """
WITH a AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) AS a(id, token_hash, table_id)
), s AS (
    UPDATE seats SET away_since = NULL, seen_at = $4
    FROM a WHERE seats.id = a.id AND seats.token_hash = a.token_hash AND seats.table_id = a.table_id
    RETURNING seats.id, seats.table_id
), t AS (
    UPDATE tables SET updated_at = $4 WHERE id IN (SELECT table_id FROM s)
)
SELECT (SELECT array_agg(id) FROM s) AS written,
       (SELECT count(pg_notify($5, x)) FROM unnest($6::text[]) x) AS told
"""

Write = Callable[[list[Noted], datetime], Awaitable[set[int]]]


class ArrivalBatch:
    """Arrivals noted, written together by `write` (the seat ids it wrote)."""

    def __init__(self, write: Write) -> None:
        self.write = write
        self._pending: list[tuple[Noted, asyncio.Future[bool]]] = []
        self._task: asyncio.Task[None] | None = None

    async def note(self, noted: Noted) -> bool:
        """Written with the next statement: whether its token still held its seat (False: ask
        the database alone)."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((noted, answer))
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="arrivals")
        return await answer

    async def _run(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    written = await self.write([n for n, _ in batch], utcnow())
                except Exception as exc:  # the driver's errors too: not mapped here
                    log.warning("%d arrivals not written together: %r", len(batch), exc)
                    written = set()  # each asks the database alone
                except BaseException:
                    for _, answer in batch:
                        if not answer.done():
                            answer.set_result(False)
                    raise
                for noted, answer in batch:
                    if not answer.done():
                        answer.set_result(noted.seat_id in written)
        finally:
            self._task = None


def pg_writer(pool: PgPool, channel: str) -> Write:
    async def write(batch: list[Noted], now: datetime) -> set[int]:
        record = await pool.fetchrow(
            _PG_WRITE,
            [n.seat_id for n in batch],
            [n.token_hash for n in batch],
            [n.table_id for n in batch],
            now,
            channel,
            sorted({n.tell for n in batch}),
        )
        return set(record["written"] or ())

    return write


def sqlite_writer(db: Database) -> Write:
    """SQLite's: the same writes in one transaction; one process, nobody to tell."""

    async def write(batch: list[Noted], now: datetime) -> set[int]:
        written: set[int] = set()
        async with db.write_core() as conn:
            for n in batch:
                done = await conn.execute(
                    update(SeatRow)
                    .where(
                        SeatRow.id == n.seat_id,
                        SeatRow.token_hash == n.token_hash,
                        SeatRow.table_id == n.table_id,
                    )
                    .values(away_since=None, seen_at=now)
                )
                if done.rowcount:
                    written.add(n.seat_id)
            for table_id in {n.table_id for n in batch if n.seat_id in written}:
                await conn.execute(
                    update(TableRow).where(TableRow.id == table_id).values(updated_at=now)
                )
        return written

    return write
