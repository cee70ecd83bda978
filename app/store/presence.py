"""Who is at a table: presence stored in the database (so every server process agrees), the host,
how long a table has been idle, and the closing of open tables nobody has come back to.

A seat is online while a socket of it is open on some process: `seats.away_since` is null and
`seats.seen_at` is fresh. The process holding the socket writes `away_since = null` when a socket
of the seat arrives (app.store.arrivals), `away_since = now` when its last one closes, and refreshes `seen_at` every
heartbeat; a process that crashed stops refreshing, so its seats count as away once `seen_at` is
older than STALE_BEATS heartbeats (and any live process then writes them away).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Iterable
from datetime import datetime, timedelta

from sqlalchemy import BigInteger, and_, any_, exists, literal, or_, select, update
from sqlalchemy.dialects.postgresql import ARRAY

from app.core.clock import server_clock
from app.store.db import Database
from app.store.errors import FAILURES, mapped
from app.store.models import SeatRow, TableRow
from app.store.records import SeatRec, TableRec, as_utc, record_of, utcnow

log = logging.getLogger("dragonstones.presence")

# A seat whose process has not refreshed it for this many heartbeats counts as away.
STALE_BEATS = 3
# How long a seat's player may be away before a bot may stand in (app.table.standin), unless the
# table says otherwise.
DEFAULT_GRACE_SECONDS = 120
TIMED_GRACE_SECONDS = 30  # at a table with a time limit


def stale_after(heartbeat_seconds: float) -> timedelta:
    """How long after its last refresh a seat counts as away (its process stopped refreshing)."""
    if heartbeat_seconds <= 0:  # no heartbeat: presence is never refreshed, nor stale
        return timedelta(days=3650)
    return timedelta(seconds=heartbeat_seconds * STALE_BEATS)


def grace_seconds(table: TableRec) -> int:
    """How long a seat's player may be away before a bot may stand in."""
    if table.grace_seconds:
        return table.grace_seconds
    timed = bool(table.turn_seconds or table.choose_seconds)
    return TIMED_GRACE_SECONDS if timed else DEFAULT_GRACE_SECONDS


def host_seat(seats: Iterable[SeatRec]) -> int | None:
    """The host: the earliest seated person (join order); when they leave, the next one."""
    people = [s for s in seats if not s.bot]
    if not people:
        return None
    return min(people, key=lambda s: (as_utc(s.joined_at), s.id)).seat


def is_online(seat: SeatRec, now: datetime, stale: timedelta) -> bool:
    return (
        not seat.bot
        and seat.away_since is None
        and seat.seen_at is not None
        and as_utc(seat.seen_at) >= now - stale
    )


def away_since(seat: SeatRec, now: datetime, stale: timedelta) -> datetime | None:
    """When this person went away; None while online, and for bots."""
    if seat.bot or is_online(seat, now, stale):
        return None
    if seat.away_since is not None:
        return as_utc(seat.away_since)
    # A socket on a process that stopped refreshing it: away since it was last seen.
    return as_utc(seat.seen_at) if seat.seen_at is not None else as_utc(seat.joined_at)


def last_active(
    table: TableRec, seats: Iterable[SeatRec], now: datetime, stale: timedelta
) -> datetime:
    """The last change of the seats (which moves `updated_at`, as does a seat coming online)
    or of someone's presence."""
    stamps = [as_utc(table.updated_at)]
    stamps += [a for s in seats if (a := away_since(s, now, stale)) is not None]
    return max(stamps)


def is_stale(
    table: TableRec,
    seats: Collection[SeatRec],
    now: datetime,
    stale: timedelta,
    idle: timedelta,
    online_here: Collection[int] = (),
) -> bool:
    """An open table nobody has been connected to for `idle`: it closes."""
    if table.status != "open" or idle <= timedelta(0):
        return False
    if any(s.seat in online_here or is_online(s, now, stale) for s in seats if not s.bot):
        return False
    return last_active(table, seats, now, stale) < now - idle


@mapped
class Presence:
    """Presence writes of this process, and its two periodic tasks (heartbeat, closing)."""

    def __init__(
        self,
        db: Database,
        *,
        heartbeat_seconds: float,
        idle_minutes: float,
        close_interval_seconds: float,
    ) -> None:
        self.db = db
        self.heartbeat_seconds = heartbeat_seconds
        self.stale = stale_after(heartbeat_seconds)
        self.idle = timedelta(minutes=idle_minutes)
        self.close_interval_seconds = close_interval_seconds
        self._tasks: list[asyncio.Task[None]] = []

    async def depart(self, table_id: str, seat_id: int) -> None:
        """The last socket of this seat in this process closed. (A socket of the same seat on
        another process writes it back online at its next heartbeat.)"""
        now = utcnow()
        async with self.db.write_core() as conn:
            await conn.execute(
                update(SeatRow)
                .where(SeatRow.id == seat_id, SeatRow.away_since.is_(None))
                .values(away_since=now)
            )
            await conn.execute(
                update(TableRow).where(TableRow.id == table_id).values(updated_at=now)
            )

    async def heartbeat(self, seat_ids: Collection[int]) -> list[str]:
        """Refresh the seats this process holds sockets of; write away the seats whose process
        stopped refreshing them. Returns the tables whose presence changed."""
        now = utcnow()
        changed: set[str] = set()
        async with self.db.write_core() as conn:
            ids = sorted(seat_ids)
            # Postgres: the ids as one array parameter, in one chunk (an IN list is rendered
            # anew with a parameter per id on each beat); SQLite: IN lists, under its limit.
            size = 500 if self.db.sqlite else max(len(ids), 1)
            for i in range(0, len(ids), size):
                chunk = ids[i : i + size]
                among = (
                    SeatRow.id.in_(chunk)
                    if self.db.sqlite
                    else SeatRow.id == any_(literal(chunk, ARRAY(BigInteger)))
                )
                came_back = await conn.execute(
                    select(SeatRow.table_id).where(
                        among,
                        or_(SeatRow.away_since.is_not(None), SeatRow.seen_at < now - self.stale),
                    )
                )
                changed.update(t for (t,) in came_back)
                await conn.execute(
                    update(SeatRow).where(among).values(seen_at=now, away_since=None)
                )
            lost = await conn.execute(
                update(SeatRow)
                .where(
                    SeatRow.bot.is_(False),
                    SeatRow.away_since.is_(None),
                    SeatRow.seen_at < now - self.stale,
                )
                .values(away_since=SeatRow.seen_at)
                .returning(SeatRow.table_id)
            )
            changed.update(t for (t,) in lost)
        return sorted(changed)

    async def close_stale(self, online_here: Callable[[str], Collection[int]]) -> list[str]:
        """Close every open table nobody has been connected to for `idle`. Safe with several
        processes: each close is guarded by the status and by the activity it saw."""
        if self.idle <= timedelta(0):
            return []
        now = utcnow()
        cutoff = now - self.idle
        async with self.db.sessions() as session:
            tables = list(
                await session.scalars(
                    select(TableRow)
                    .where(
                        TableRow.status == "open",
                        TableRow.updated_at < cutoff,
                        ~exists().where(
                            and_(
                                SeatRow.table_id == TableRow.id,
                                SeatRow.bot.is_(False),
                                or_(
                                    SeatRow.away_since >= cutoff,
                                    and_(SeatRow.away_since.is_(None), SeatRow.seen_at >= cutoff),
                                ),
                            )
                        ),
                    )
                    .limit(500)
                )
            )
            if not tables:
                return []
            seats: dict[str, list[SeatRec]] = {}
            for s in await session.scalars(
                select(SeatRow).where(SeatRow.table_id.in_([t.id for t in tables]))
            ):
                seats.setdefault(s.table_id, []).append(record_of(SeatRec, s))
        closed = []
        for table in [record_of(TableRec, t) for t in tables]:
            idle = is_stale(
                table, seats.get(table.id, []), now, self.stale, self.idle, online_here(table.id)
            )
            if idle and await self.close_if_idle(table.id, cutoff):
                closed.append(table.id)
        return closed

    async def close_if_idle(self, table_id: str, cutoff: datetime) -> bool:
        """Close the table if it is still open and nothing happened since `cutoff` (a join or
        a socket arriving meanwhile moves `updated_at`, and the guard refuses)."""
        async with self.db.write_core() as conn:
            result = await conn.execute(
                update(TableRow)
                .where(
                    TableRow.id == table_id,
                    TableRow.status == "open",
                    TableRow.updated_at < cutoff,
                )
                .values(status="closed", updated_at=utcnow())
            )
            return bool(result.rowcount == 1)

    # -- the periodic tasks ------------------------------------------------------------------

    def start(
        self,
        seat_ids: Callable[[], Collection[int]],
        online_here: Callable[[str], Collection[int]],
        changed: Callable[[str], Awaitable[None]],
    ) -> None:
        async def beat() -> None:
            for table_id in await self.heartbeat(seat_ids()):
                await changed(table_id)

        async def close() -> None:
            for table_id in await self.close_stale(online_here):
                log.info("table %s closed: nobody connected for %s", table_id, self.idle)
                await changed(table_id)

        self._tasks = [
            asyncio.create_task(self._every(self.heartbeat_seconds, beat), name="heartbeat"),
            asyncio.create_task(
                self._every(self.close_interval_seconds, close), name="close-tables"
            ),
        ]

    @staticmethod
    async def _every(interval: float, job: Callable[[], Awaitable[None]]) -> None:
        while interval > 0:
            await server_clock.sleep(interval)
            try:
                await job()
            except FAILURES as exc:  # the bus's notification included
                log.warning("presence task failed: %r", exc)
            except Exception:
                log.exception("presence task failed")

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
