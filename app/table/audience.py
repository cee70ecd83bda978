"""The audience of one table in this process: its sockets, the table frame as last read (with
presence), the stored presence of seats as their sockets come and go, kicks and closing.

The game is the room's (app.table.room): the room takes its lock, then hands a socket to the
audience (`arrive`, `leave`), and after every change asks it to `publish`. Each socket renders its
own state frame from the room's game through app.table.live_game, when its writer is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from app.core.errors import Code, ServiceError, StoreError
from app.core.messages import ErrorOut, HelloOut, TableMsg
from app.core.schemas import PlayerOut, TableOut
from app.store.presence import is_online
from app.store.records import Arrival, TableRows, utcnow
from app.table.heard import Heard
from app.table.live_game import LiveGame, delta_frame, state_frame
from app.table.ports import Actor
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.room")

# Presence changes (a seat's sockets coming and going) are sent to the table at most once per
# this many seconds: a seat reconnecting in a loop must not make every socket read a table each time.
PRESENCE_DELAY = 0.25


class Audience:
    def __init__(self, room: Actor, decorate: Callable[[TableOut], TableOut]) -> None:
        self.room = room
        self.table_id = room.table_id
        self.hub = room.hub
        # Marks who is absent (app.table.standin); kept for the seats' stand-in state.
        self.decorate = decorate
        self.connections: set[Connection] = set()
        self.table: TableOut | None = None  # as last read, with this process's presence
        self.table_read_at = 0.0  # when that read began (monotonic; 0: not known)
        self.table_frame: str | None = None
        self.table_status: str | None = None
        # When each socket joined the room (monotonic): a table read before a socket came
        # cannot tell whether that socket's seat is held.
        self.since: dict[Connection, float] = {}
        self._table_refresh: asyncio.Task[None] | None = None
        # A refresh asked for while one is reading: that read may predate the change, so the
        # refresh reads once more.
        self._refresh_again = False
        # When this process last changed a seat's presence in memory (monotonic): a table read
        # that began before it may show that seat as it was, and is read again.
        self._presence_at = 0.0
        # The table as last read, when read as rows (app.store.arrivals): presence changes of
        # this process rebuild the frame from them instead of reading the table again.
        self.table_rows: TableRows | None = None
        self._table_push: asyncio.TimerHandle | None = None
        # Whether the rows in memory may miss a presence change of this process (read before
        # it was written); the seats whose departure is being written; what the bus told of
        # this table. Each keeps `online_known` from trusting the rows.
        self._rows_doubtful = False
        self._going: set[int] = set()
        self.heard = Heard()  # what the bus told of this table
        # Sockets sent a frame of the game since they came (or last asked `sync`): the version
        # they hold is their sent_version, and the next frame may be a delta from it.
        self.holding: set[Connection] = set()

    def connected_seats(self) -> set[int]:
        return {c.seat for c in self.connections if c.seat is not None}

    def online_known(self, deaf_at: float) -> set[int]:
        """The seats online as far as this process knows without asking the database: those with
        a socket here, and those the table's rows in memory show online elsewhere, while those
        rows can stand for the database's (fresh, read after the last change another process
        told of and after `deaf_at`, when the bus last came back, missing no change of this
        process). Presence that changed elsewhere reaches it by that process's notice."""
        here = self.connected_seats()
        rows = self.table_rows
        if (
            rows is None
            or self._rows_doubtful
            or rows.read_at <= max(self.heard.changed_at, deaf_at)
            or not self.rows_fresh()
        ):
            return here
        now, stale = utcnow(), self.hub.presence.stale
        elsewhere = {s.seat for s in rows.seats if not s.bot and is_online(s, now, stale)}
        return here | (elsewhere - self._going)

    # -- sockets ---------------------------------------------------------------------------------

    def publish(self) -> None:
        for conn in self.connections:
            conn.push_state()

    def _render_state(self, conn: Connection) -> str | None:
        game = self.room.game
        holding = conn in self.holding
        if game is None or (holding and conn.sent_version == game.version):
            return None
        frame = None
        if conn.deltas and holding and conn.sent_version == game.version - 1:
            frame = delta_frame(game, conn.seat)
        if frame is None:
            frame = state_frame(
                game, conn.seat, conn.sent_version, self.hub.settings.max_event_gap, conn.deltas
            )
        conn.sent_version = game.version
        self.holding.add(conn)
        return frame

    def resync(self, conn: Connection, since: int | None) -> None:
        """The client missed a delta (`sync`): its next frame is a whole `state`, with the
        events after `since`, the version it holds."""
        self.holding.discard(conn)
        conn.sent_version = since
        conn.push_state()

    def _render_table(self) -> str | None:
        return self.table_frame

    async def arrive(
        self, conn: Connection, since: int | None, arrival: Arrival | None = None
    ) -> bool | None:
        """Register a socket (the room's lock held) and send it hello and the table. Whether its
        seat came back online by it; None when the table is closed (and so is the socket).
        `arrival`: the seat's presence already written (app.store.arrivals), maybe the table's
        rows read; None for a spectator of a table held here."""
        was_online = conn.seat in self.connected_seats()
        conn.render_state = self._render_state
        conn.render_table = self._render_table
        # A bad `since` (negative, or ahead of the game) gets the whole log again.
        conn.sent_version = since if since is not None and since >= 0 else None
        self.connections.add(conn)
        self.since[conn] = time.monotonic()
        self.hub.metrics.socket(True, table_id=self.table_id, seat=conn.seat)
        conn.send(HelloOut(table_id=conn.table_id, seat=conn.seat, name=conn.name))
        back = conn.seat is not None and not was_online
        if arrival is not None and arrival.rows is not None:
            if self.table is None or arrival.rows.read_at >= self.table_read_at:
                self._table_from_rows(arrival.rows)
                self._stale_unless_after(arrival.rows.read_at)
            elif self.table_rows is not None:
                # The table was read here after this arrival read it (the lobby changed it
                # meanwhile, under this lock): that later read stays, with this socket's seat.
                self._table_from_rows(self.table_rows)
            else:
                self.refresh_table(PRESENCE_DELAY)
        elif arrival is not None and self.table_rows is not None:
            if back and conn.seat_row is not None:
                self._seat_presence(conn.seat_row, True, utcnow())
        else:
            if back:
                self.table_frame = None  # it shows this seat away: read it again
            await self._load_table_frame()
        conn.push_table()
        if self.table_status == "closed":
            self._closed([conn])
            return None
        return back

    def send_state(self, conn: Connection, game: LiveGame) -> None:
        """A socket's first state frame, rendered now, not lazily: `since` decides events_from
        and resync of this first frame."""
        if conn.sent_version is not None and conn.sent_version > game.version:
            conn.sent_version = -3  # unknown version: resync from the start
        frame = state_frame(
            game, conn.seat, conn.sent_version, self.hub.settings.max_event_gap, conn.deltas
        )
        conn.sent_version = game.version
        self.holding.add(conn)
        conn.send_text(frame)

    def came_back(self) -> None:
        """A seat is back: its arrival told the other processes; this one's sockets get the
        table once per burst of presence changes."""
        self._push_table_soon()

    async def leave(self, conn: Connection) -> None:
        """A socket closed (the room's lock held)."""
        self.connections.discard(conn)
        self.since.pop(conn, None)
        self.holding.discard(conn)
        self.hub.metrics.socket(False, table_id=self.table_id, seat=conn.seat)
        if conn.seat is not None and conn.seat not in self.connected_seats():
            if self.rows_fresh() and conn.seat_row is not None and not self.hub.closed:
                # One call (app.store.arrivals); the table's frame from memory.
                now = utcnow()
                self._going.add(conn.seat)  # the rows show it online until written away
                try:
                    await self.hub.arrivals.depart(self.table_id, conn.seat_row, now, self.tell())
                except StoreError as exc:
                    log.warning("presence of table %s not stored: %r", self.table_id, exc)
                finally:
                    self._going.discard(conn.seat)
                self._seat_presence(conn.seat_row, False, now)
                return
            await self._departed(conn)
            self._presence_at = time.monotonic()  # a read begun before may show it online
            self.refresh_table(PRESENCE_DELAY)
            if not self.hub.closed:
                await self.hub.bus.publish(self.table_id, None)

    async def _departed(self, conn: Connection) -> None:
        """Store that this seat went away here (every process reads it). A database outage only
        delays it: the heartbeat writes presence again."""
        if conn.seat_row is None or self.hub.closed:
            return
        try:
            await self.hub.presence.depart(self.table_id, conn.seat_row)
        except StoreError as exc:
            log.warning("presence of table %s not stored: %r", self.table_id, exc)

    # -- the table (seats and presence) ----------------------------------------------------------

    def seat_info(self, seat: int | None) -> PlayerOut | None:
        if seat is None or self.table is None:
            return None
        return next((p for p in self.table.players if p.seat == seat), None)

    async def _load_table_frame(self) -> None:
        if self.table_frame is None:
            read_at = time.monotonic()
            self._set_table(
                await self.hub.listing.table(self.table_id), push=False, read_at=read_at
            )
            self._stale_unless_after(read_at)

    async def send_table_now(self) -> TableOut:
        """The lobby changed the table: read it and send it to every socket, in order."""
        rows = await self._read_rows()
        table = self._table_from_rows(rows, push=True)
        self._stale_unless_after(rows.read_at)
        return table

    async def _read_rows(self) -> TableRows:
        """The table's rows as stored now, with its seats' token hashes (one round trip on
        Postgres; a `ServiceError` not_found when there is none)."""
        arrival = await self.hub.arrivals.look(self.table_id, time.monotonic())
        assert arrival.rows is not None
        return arrival.rows

    def _set_table(
        self,
        table: TableOut,
        push: bool = True,
        read_at: float = 0.0,
        rows: TableRows | None = None,
    ) -> None:
        """Keep the table's frame; send it to every socket; close the sockets that no longer
        belong (the table closed, or their seat was given back or removed, maybe by another
        process). `rows`: what it was built from, kept to rebuild it on presence changes."""
        self.table_rows = rows
        self.table = self.decorate(table)
        self.table_read_at = read_at
        self.table_frame = TableMsg(table=table).model_dump_json()
        self.table_status = table.status
        if push:
            for conn in self.connections:
                conn.push_table()
        if table.status == "closed":
            self._closed(list(self.connections))
            return
        held = {p.seat: p.name for p in table.players if not p.bot}
        for conn in list(self.connections):
            if self.since.get(conn, 0.0) > read_at:
                continue
            if conn.seat is not None and held.get(conn.seat) != conn.name:
                conn.send(ErrorOut(code=Code.REMOVED, message="you no longer hold this seat"))
                conn.close(1000, "you no longer hold this seat")

    # -- the table's rows in memory (read by a socket's arrival, app.store.arrivals) ---------------

    def rows_fresh(self) -> bool:
        """The table's rows in memory may stand for the database's: presence of other processes'
        seats read from them is still valid (app.store.presence: stale after 3 heartbeats)."""
        rows = self.table_rows
        limit = self.hub.presence.stale.total_seconds() / 2
        return rows is not None and time.monotonic() - rows.read_at < limit

    def _table_from_rows(self, rows: TableRows, push: bool = False) -> TableOut:
        """The table's frame built from its rows in memory (with this process's sockets)."""
        table = self.hub.listing.out(rows.table, rows.seats, rows.game)
        self._set_table(table, push=push, read_at=rows.read_at, rows=rows)
        return table

    def _seat_presence(self, seat_id: int, online: bool, now: datetime) -> None:
        """This seat came online or went away here, as just written (app.store.arrivals): the
        rows in memory say so too, the frame is rebuilt, the other sockets get it soon."""
        self._presence_at = time.monotonic()
        rows = self.table_rows
        if rows is None:
            # The frame was read again meanwhile (not kept as rows), maybe before this change
            # was written: read it once more.
            self.refresh_table(PRESENCE_DELAY)
            return
        for row in rows.seats:
            if row.id == seat_id:
                row.away_since = None if online else now
                row.seen_at = now if online else row.seen_at
        rows.table.updated_at = now
        self._table_from_rows(rows)
        self._push_table_soon()

    def _push_table_soon(self) -> None:
        if self._table_push is None and not self.hub.closed:
            # Once per burst of presence changes.
            self._table_push = asyncio.get_running_loop().call_later(
                PRESENCE_DELAY, self._push_table
            )

    def _push_table(self) -> None:
        self._table_push = None
        for conn in self.connections:
            conn.push_table()

    def tell(self) -> str:
        """The NOTIFY payload of a presence change here: other processes read the table again,
        this one (which changed it in memory) ignores it (app.store.bus)."""
        return self.hub.bus.tell(self.table_id)

    def _closed(self, conns: list[Connection]) -> None:
        for conn in conns:
            conn.send(
                ErrorOut(
                    code=Code.TABLE_CLOSED,
                    message="this table closed: nobody was connected to it for a while",
                )
            )
            conn.close(1000, "table closed")

    def _stale_unless_after(self, read_at: float) -> None:
        """A table read that began at `read_at` is now the frame: if this process changed a
        seat's presence since, the read may not show it, so read again soon."""
        self._rows_doubtful = read_at < self._presence_at
        if self._rows_doubtful:
            self.refresh_table(PRESENCE_DELAY)

    def refresh_table(self, delay: float = 0.05) -> None:
        """Send every socket the table again, soon: changes that come in a burst (a seat
        reconnecting in a loop) are read and sent once; one that comes while the table is being
        read makes it read once more."""
        if self.hub.closed:
            return
        if self._table_refresh and not self._table_refresh.done():
            self._refresh_again = True
            return
        self._table_refresh = asyncio.create_task(self._send_table(delay))

    async def _send_table(self, delay: float) -> None:
        again = True
        while again:
            await asyncio.sleep(delay)
            # Asked for again from here on: this read may predate that change.
            self._refresh_again = False
            try:
                rows = await self._read_rows()
            except ServiceError:
                return
            except Exception as exc:  # the database is away: the next change sends it
                log.warning("table %s not refreshed: %r", self.table_id, exc)
                return
            self._table_from_rows(rows, push=True)
            self._stale_unless_after(rows.read_at)  # inside this task: asks for one more pass
            again = self._refresh_again

    def kick_seat(self, seat: int, reason: str, code: str | None = None) -> None:
        for conn in list(self.connections):
            if conn.seat == seat:
                if code is not None:
                    conn.send(ErrorOut(code=code, message=reason))
                conn.close(1000, reason)

    # -- closing ---------------------------------------------------------------------------------

    def close(self, code: int, reason: str) -> None:
        for conn in list(self.connections):
            conn.close(code, reason)

    async def stop(self) -> None:
        if self._table_push is not None:
            self._table_push.cancel()
        if self._table_refresh:
            self._table_refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._table_refresh
