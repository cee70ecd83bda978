"""The rooms of this process: find or make a table's room, drop it when idle, route other processes'
commits to the rooms that hold those tables, resume bot games after a start, close at shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Collection, Coroutine, Mapping
from typing import Any

import engine
from app.core.config import Settings
from app.core.errors import StoreError
from app.core.metrics import Metrics
from app.store.ports import Stores
from app.store.records import Carried
from app.table.chat import sweep_feeds
from app.table.chat_guard import ChatGuard
from app.table.hard_bot_pool import Thinkers
from app.table.listing import Listing
from app.table.ports import Idle
from app.table.push import Pusher
from app.table.room import Room
from app.wire.codes import CLOSE_RESTART

log = logging.getLogger("dragonstones.hub")

# While the database does not answer, a sweep is tried again this often (a room whose commit got
# no answer, or a listener that was away, waits for it).
SWEEP_RETRY_SECONDS = 1.0
# Tables whose notices came with no room here, remembered (the latest this many): an arrival
# takes a database round trip, far fewer notices than this.
MISSED_KEPT = 4096


def trim_memory() -> None:
    """Free what cycles hold, then ask glibc to hand free heap pages back to the system: a
    burst of sockets that has gone would otherwise keep its peak in the process for good."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class Hub:
    def __init__(self, settings: Settings, stores: Stores, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        metrics.games_live.set_function(self.live_games)
        self.store = stores.games
        self.arrivals = stores.arrivals  # a socket's arrival and departure
        self.bus = stores.bus
        self.feeds = stores.feeds  # table chat (app.table.chat)
        self.chat_guard = ChatGuard(settings)  # chat limits and spectators' labels
        self.bus.on_chat = self.on_chat
        self.bus.on_own = self.on_own_change
        self.reads = stores.reads
        self.presence = stores.presence  # presence stored in the database
        # Tables as they are shown: their rows, with this process's sockets.
        self.listing = Listing(
            stores.reads, self, public_url=settings.public_url, stale=stores.presence.stale
        )
        self.rooms: dict[str, Room] = {}
        # Web Push to players away from their table (app.table.push).
        self.push = Pusher(
            settings,
            stores.push,
            metrics,
            self.known_online,
            stores.presence.stale,
            self.online_seats,
        )
        # When the bus last came back (monotonic): notices sent meanwhile were lost, so the
        # table rows read before then no longer stand for other processes' presence.
        self.deaf_at = 0.0
        # A wait for a commit's notice ran out and no notice came since: the bus may be away,
        # so nobody waits again until one comes (app.table.push).
        self._unheard = False
        # Tables notices came for while no room held them (monotonic time of the last), the
        # latest few: a socket whose arrival read the table before such a notice reads again.
        self._missed: OrderedDict[str, float] = OrderedDict()
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._sweep_wanted = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._sockets_peak = 0  # most sockets open since memory was last given back
        # The hard bots' worker processes (app.table.hard_bot_pool), started on their first decision.
        self.thinkers = Thinkers(
            settings.hard_bot_workers,
            settings.hard_bot_seconds,
            settings.hard_bot_playouts,
            settings.hard_bot_nice,
        )

    # -- rooms -----------------------------------------------------------------------------------

    def room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is None:
            room = self.rooms[table_id] = Room(table_id, self)
        return room

    def peek(self, table_id: str) -> Room | None:
        return self.rooms.get(table_id)

    @contextlib.asynccontextmanager
    async def hold(self, table_id: str) -> AsyncIterator[Room]:
        """The table's room, locked."""
        async with self.room(table_id).locked() as room:
            yield room

    def forget_if_idle(self, room: Idle) -> None:
        # A room nobody holds, waits for or listens to, with no game being played in it, is
        # dropped (requests for unknown or idle tables must not pile up in memory). A room in
        # use is never dropped: it must stay the only room, and lock, of its table.
        if room.idle() and self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]

    def live_games(self) -> int:
        return sum(1 for r in self.rooms.values() if r.game is not None and not r.game.over)

    def online_seats(self, table_id: str) -> set[int]:
        room = self.rooms.get(table_id)
        return room.audience.connected_seats() if room else set()

    async def known_online(
        self, table_id: str, version: int | None, timeout: float, asked: Collection[int] = ()
    ) -> set[int] | None:
        """The seats online as far as this process knows without asking the database, once
        every presence change committed before this table's commit `version` has been heard
        (app.table.audience `online_known`): None when it was not heard within `timeout`.
        Without a version, without notices of presence (SQLite), or when every seat `asked`
        about has a socket here, the seats with a socket here."""
        room = self.rooms.get(table_id)
        if room is None:
            return set()
        audience = room.audience
        here = audience.connected_seats()
        if version is None or not self.bus.hears_presence or here.issuperset(asked):
            return here
        if not await audience.heard.through(version, 0.0 if self._unheard else timeout):
            self._unheard = True
            return None
        return audience.online_known(self.deaf_at)

    def online_tables(self) -> Collection[str]:
        """The tables where a seated person has a socket open here."""
        return [t for t, r in self.rooms.items() if r.audience.connected_seats()]

    def live_states(self) -> Mapping[str, tuple[int, engine.State]]:
        """table -> (version, state) of each game played here."""
        return {t: (r.game.version, r.game.state) for t, r in self.rooms.items() if r.game}

    # -- other processes -------------------------------------------------------------------------

    def on_message(
        self, table_id: str, version: int | None, carried: Carried | None = None
    ) -> None:
        """A commit or a lobby change somewhere (maybe here): catch up the room if we hold it,
        with the action the notification carries when it does (app.table.remote: applied now
        if the room is free, else when it is let go)."""
        self._unheard = False
        room = self.rooms.get(table_id)
        if room is None or self.closed:
            if room is None:
                self._note_missed(table_id)
            return
        if version is None:
            room.audience.heard.changed()
            self.metrics.tables_read_again.inc()
        else:
            room.audience.heard.committed(version)
        game = room.game
        if version is not None and game is not None and version <= game.version:
            return  # our own commit, or already caught up
        # One being committed here may be ours, or another's that took our version: kept either
        # way (it is what the database holds for it).
        if (
            carried is not None
            and version is not None
            and room.remote.hear(version, carried, free=not room.lock.locked())
        ):
            return
        self._spawn(self._catch_up(table_id, version))

    def on_own_change(self, table_id: str) -> None:
        """A lobby change this process made, heard back: the room that held the table told its
        sockets then, and `lobby_changed` noted it for the arrivals (nothing to read again,
        unlike another process's change)."""
        self._unheard = False  # the bus hears

    def lobby_changed(self, table_id: str) -> None:
        """The lobby changed this table here and told the sockets its room holds: an arrival
        whose read of the table began before now (its socket not in the room yet, or in a room
        made after this one is dropped) reads it again (`missed_since`)."""
        self._note_missed(table_id)

    def _note_missed(self, table_id: str) -> None:
        self._missed[table_id] = time.monotonic()
        self._missed.move_to_end(table_id)
        if len(self._missed) > MISSED_KEPT:
            self._missed.popitem(last=False)

    def missed_since(self, table_id: str, read_at: float) -> bool:
        """Whether a notice for this table came while no room held it, or the lobby changed it
        here, after `read_at` (an arrival's read began then: it may miss a start, a move or a
        seat)."""
        return self._missed.get(table_id, -1.0) >= read_at

    def on_chat(self, table_id: str, seq: int) -> None:
        """A line of a table's feed was stored somewhere: deliver it if we hold the table."""
        room = self.rooms.get(table_id)
        if room is not None and not self.closed:
            room.feed.heard(seq)

    async def _catch_up(self, table_id: str, version: int | None) -> None:
        """Read what the room missed (a version not carried, or heard out of order) or the
        table the lobby changed."""
        if table_id not in self.rooms:
            return
        lobby = version is None
        try:
            async with self.hold(table_id) as room:
                if version is not None and room.game is not None and room.game.version >= version:
                    return  # caught up meanwhile
                await room.catch_up()
                if lobby:
                    room.audience.refresh_table()
                    # Stand-ins change with the table, not the game.
                    await room.standins.reload()
        except StoreError as exc:
            # What was missed is read by the sweep, once the database answers.
            log.warning("catching up table %s failed: %r", table_id, exc)
            self.sweep_soon()
        except Exception:
            log.exception("catching up table %s failed", table_id)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def sweep_soon(self) -> None:
        """Sweep now (the listener is back, or a room does not know what was committed): the
        sweeper tries again every second until the database answers."""
        self._sweep_wanted.set()

    def _bus_back(self) -> None:
        """The bus listens again after a gap: what other processes told meanwhile was lost."""
        self.deaf_at = time.monotonic()
        self.sweep_soon()

    async def sweep(self) -> None:
        """Catch up every room whose game moved on without our hearing of it, and every room
        whose commit got no answer (stale: what the database holds decides). Raises when the
        database does not answer."""
        rooms = [
            r
            for r in self.rooms.values()
            if r.audience.connections or r.bots.bots or (r.game is not None and r.game.stale)
        ]
        versions = await self.store.versions([r.table_id for r in rooms]) if rooms else {}
        for room in rooms:
            version = versions.get(room.table_id)
            game = room.game
            if version is None:
                continue
            if game is None:
                await self._catch_up(room.table_id, None)  # started elsewhere
            elif version > game.version or game.stale:
                async with room.locked():  # trust only the database
                    await room.catch_up()
                    game.stale = False
        # The chat last: a sweep the database did not answer stops above, and is tried again.
        await sweep_feeds([r.feed for r in list(self.rooms.values())], self.feeds)

    async def _watch_sockets(self) -> None:
        """Close sockets whose client stopped reading (see Connection.stuck), and give memory
        back to the system after many sockets have gone."""
        while not self.closed:
            await asyncio.sleep(max(0.5, self.settings.send_timeout_seconds / 4))
            now = time.monotonic()
            open_now = 0
            for room in list(self.rooms.values()):
                for conn in list(room.audience.connections):
                    conn.stuck(now)
                open_now += len(room.audience.connections)
            if open_now < self._sockets_peak - 100:
                trim_memory()
                self._sockets_peak = open_now
            self._sockets_peak = max(self._sockets_peak, open_now)

    async def _sweep_forever(self) -> None:
        """The slow safety sweep (SWEEP_INTERVAL_SECONDS, 0: none), a sweep whenever one is
        asked for, and, while the database does not answer, another every second."""
        interval = self.settings.sweep_interval_seconds
        retry = False
        while not self.closed:
            wait = SWEEP_RETRY_SECONDS if retry else (interval if interval > 0 else None)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._sweep_wanted.wait(), timeout=wait)
            self._sweep_wanted.clear()
            try:
                await self.sweep()
            except StoreError as exc:
                if not retry:
                    log.warning("sweep failed, trying again every second: %r", exc)
                retry = True
            except Exception:
                log.exception("sweep failed")
                retry = True
            else:
                if retry:
                    log.info("sweep done: the database answers again")
                retry = False

    # -- life cycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """After a start or a crash: listen to other processes, wake the bots of every game
        still being played."""
        await self.store.open()
        await self.bus.start(self.on_message, self._bus_back)
        for table_id in await self.store.playing_tables():
            async with self.hold(table_id) as room:
                await room.load()
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="sweep")
        self._watcher = asyncio.create_task(self._watch_sockets(), name="socket-watch")
        self.presence.start(self.seat_rows_here, self.online_seats, self._presence_changed)
        await self.push.start()

    def seat_rows_here(self) -> set[int]:
        """The seats (database ids) with a socket open in this process."""
        return {
            c.seat_row
            for room in self.rooms.values()
            for c in room.audience.connections
            if c.seat_row is not None
        }

    async def _presence_changed(self, table_id: str) -> None:
        """Presence or status of a table changed out of any request (heartbeat, closing): every
        process sends its sockets there the table again."""
        await self.bus.publish(table_id, None)

    async def close(self) -> None:
        """Server shutdown: stop the bots and timers, ask every socket to reconnect later."""
        self.closed = True
        self.presence.stop()
        for task in (self._sweeper, self._watcher):
            if task is not None:
                task.cancel()
        await self.bus.close()
        for room in list(self.rooms.values()):
            await room.close(CLOSE_RESTART, "server restarting; reconnect with your last version")
        self.thinkers.close()
        await self.push.close()
        for task in list(self._tasks):
            task.cancel()
