"""The per-game actor: one table's lock and its live game in this process.

Every change of a game goes through `Room.submit` under the room's lock: the engine validates the
action, the store commits it under the version guard, and only then is it acknowledged and pushed
to the sockets (the table's audience, app.table.audience: each socket renders its own frame
through app.table.live_game). Another process's commit reaches the room through app.table.remote. Bots
and the time limit act through `submit` too, with action ids in a namespace no client may use.
"""

from __future__ import annotations

import asyncio
import logging
import time

import engine
from app.core.errors import Code, ServiceError, StoreError, StoreUnavailable, unavailable
from app.core.messages import AckOut
from app.store.ports import DuplicateActionId, StaleVersion
from app.store.records import Arrival, Commit, StoredGame, utcnow
from app.table.audience import Audience
from app.table.bots import BotSeats
from app.table.chat import Feed
from app.table.clock import Clock, plan
from app.table.live_game import LiveGame
from app.table.ports import Services
from app.table.remote import Remote
from app.table.standin import StandIns
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.room")

# Action ids of the server's own actions (bots, time-outs) start with this; clients' may not.
SERVER_ID_PREFIX = "~"
BOT_ID_PREFIX = "~bot-"


class Held:
    """`async with room.locked()`: the room's lock held, counted in its users, and on leaving
    what other processes committed meanwhile applied (a plain class: an action takes the lock
    once, and a generator-based context manager cost more than the lock itself)."""

    __slots__ = ("room",)

    def __init__(self, room: Room) -> None:
        self.room = room

    async def __aenter__(self) -> Room:
        room = self.room
        room.users += 1
        try:
            await room.lock.acquire()
        except BaseException:
            room._let_go()
            raise
        return room

    async def __aexit__(self, *exc: object) -> None:
        self.room.lock.release()
        self.room._let_go()


class Room:
    def __init__(self, table_id: str, hub: Services) -> None:
        self.table_id = table_id
        self.hub = hub
        self.lock = asyncio.Lock()
        self.users = 0  # tasks holding or waiting for the lock
        self.game: LiveGame | None = None
        self.bots = BotSeats(self)
        self.clock = Clock(self)
        self.standins = StandIns(self)
        self.feed = Feed(self)  # table chat and server notices
        self.audience = Audience(self, self.standins.decorate)  # sockets and the table frame
        self.remote = Remote(self)  # other processes' commits

    def idle(self) -> bool:
        playing = self.game is not None and not self.game.over
        return not (self.users or self.audience.connections or playing)

    def locked(self) -> Held:
        """One writer per table (and so per game) in this process."""
        return Held(self)

    def _let_go(self) -> None:
        self.users -= 1
        # What other processes committed while it was held (no await until the next holder
        # runs; locked: this task was cancelled waiting, another holds it).
        if self.remote.heard and not self.lock.locked() and self.remote.apply_heard() is False:
            self.hub.sweep_soon()
        self.hub.forget_if_idle(self)

    # -- the game --------------------------------------------------------------------------------

    async def load(self) -> LiveGame | None:
        """The room's game, read from the database when this process has not seen it yet."""
        if self.game is None:
            stored = await self.hub.store.load(self.table_id)
            if stored is not None:
                self._adopt(stored)
        return self.game

    def _adopt(self, stored: StoredGame) -> None:
        opening = stored.opening
        if opening is None:
            # A game started before the opening was stored: engine.start is deterministic.
            opening = engine.start(players=stored.players, seed=int(stored.seed))[1]
        events = [opening] + [e for _v, _s, _a, e in stored.actions]
        # events[v] must be version v's: the log is gap-free up to the snapshot's version.
        assert [v for v, *_ in stored.actions] == list(range(1, stored.version + 1))
        self.game = LiveGame(
            id=stored.id,
            table_id=stored.table_id,
            players=stored.players,
            state=stored.current_state(),  # the snapshot and the actions after it
            version=stored.version,
            over=stored.over,
            events=events,
            action_ids={a: (s, v) for v, s, a, _e in stored.actions},
            turn_seconds=stored.turn_seconds,
            choose_seconds=stored.choose_seconds,
        )
        self.clock.adopt(stored)
        self.bots.seat(stored.bots, self.hub.settings.default_bot_kind)
        self.clock.arm()
        self.bots.wake()

    def started(self, stored: StoredGame) -> None:
        """The lobby has just committed this table's start: play it, and tell every socket."""
        self._adopt(stored)
        self.audience.publish()
        self.hub.push.started(self.table_id, self.game.state if self.game else None)

    async def submit(
        self,
        *,
        seat: int,
        action: engine.Action | None,
        action_id: str,
        by_server: bool = False,
        timed_out: bool = False,
    ) -> AckOut:
        """Validate and commit one action, then push the new state. Idempotent per
        (seat, action_id). `timed_out` (the server's clock only): the seat ran out of time, it
        plays its prompt's default (`engine.time_out`, whose events say so); `action` is then
        ignored."""
        started = time.perf_counter()
        if timed_out and not by_server:
            raise ServiceError(Code.INVALID_MESSAGE, "only the server times a seat out")
        try:
            ack = await self._submit(seat, action, action_id, by_server, started, timed_out)
        except ServiceError as exc:
            self.hub.metrics.refused(exc.code, table=self.table_id, seat=seat)
            raise
        self.hub.metrics.ack_seconds.observe(time.perf_counter() - started)
        return ack

    async def _submit(
        self,
        seat: int,
        action: engine.Action | None,
        action_id: str,
        by_server: bool,
        started: float,
        timed_out: bool,
    ) -> AckOut:
        if not by_server and action_id.startswith(SERVER_ID_PREFIX):
            raise ServiceError(
                Code.INVALID_MESSAGE, "action ids starting with '~' are the server's"
            )
        async with self.locked():
            try:
                game = await self.load()
                if game is not None and game.stale:
                    # A commit failed without a clear answer: trust only the database.
                    await self.catch_up()
                    game.stale = False
            except StoreError:
                raise unavailable() from None
            if game is None:
                raise ServiceError(Code.NOT_STARTED, "the game has not started yet")
            if action_id.startswith(BOT_ID_PREFIX) and seat not in self.bots.bots:
                # A stand-in whose person took the seat back while it was deciding.
                raise ServiceError(Code.CONFLICT, "no bot plays for this seat any more")
            for attempt in range(3):
                ack = await self._try_apply(
                    game, seat, action, action_id, by_server, started, timed_out
                )
                if ack is not None:
                    return ack
                # Another process committed this version first: catch up and validate again.
                self.hub.metrics.conflicts.inc()
                try:
                    await self.remote.after_conflict(first=attempt == 0)
                except StoreError:
                    self._mark_stale(game)
                    raise unavailable() from None
            raise ServiceError(Code.CONFLICT, "the game moved on too fast; send the action again")

    def _duplicate(self, game: LiveGame, seat: int, action_id: str) -> AckOut | None:
        """The ack of an action_id this seat already used (None if it is new). An id another
        seat used is refused: it can never stand for that seat's action."""
        known = game.action_ids.get(action_id)
        if known is None:
            return None
        if known[0] != seat:
            raise ServiceError(
                Code.DUPLICATE_ACTION_ID, "this action_id was already used by another seat"
            )
        return AckOut(action_id=action_id, version=known[1], duplicate=True)

    async def _try_apply(
        self,
        game: LiveGame,
        seat: int,
        action: engine.Action | None,
        action_id: str,
        by_server: bool,
        started: float,
        timed_out: bool,
    ) -> AckOut | None:
        """One attempt; None when the version guard found the game moved on elsewhere."""
        duplicate = self._duplicate(game, seat, action_id)
        if duplicate is not None:
            return duplicate
        try:
            if timed_out:
                # The default is stored as the action: replaying it gives the same state, and
                # the `timed_out` event kept with it tells every viewer's log.
                action = engine.timeout_action(game.state, seat)
                new_state, events = engine.time_out(game.state, seat)
            else:
                if action is None:
                    raise ServiceError(Code.INVALID_MESSAGE, "no action")
                new_state, events = engine.apply(game.state, seat, action)
        except engine.IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None
        except Exception:
            log.exception("engine failure on %r by seat %s in game %s", action, seat, game.id)
            raise ServiceError(
                Code.INTERNAL_ERROR, "the server could not apply this action"
            ) from None
        version = game.version + 1
        over = engine.is_over(new_state)
        now = utcnow()
        deadline = None if over else plan(game, new_state, version, now.timestamp())
        commit_started = time.perf_counter()
        try:
            await self.hub.store.commit(
                Commit(
                    game_id=game.id,
                    table_id=self.table_id,
                    version=version,
                    seat=seat,
                    action=action,
                    action_id=action_id,
                    events=events,
                    # The whole state only every SNAPSHOT_EVERY versions and at the end: the
                    # action row is what makes the action durable.
                    state=engine.dumps(new_state)
                    if over or version % self.hub.settings.snapshot_every == 0
                    else None,
                    winner=engine.winner(new_state),
                    over=over,
                    now=now,
                    deadline_at=deadline.stamp() if deadline else None,
                    deadline_key=deadline.key if deadline else None,
                )
            )
        except StaleVersion:
            return None
        except DuplicateActionId:
            # The same seat's action_id was committed by another process a moment ago.
            try:
                await self.catch_up()
            except StoreError:
                self._mark_stale(game)
                raise unavailable() from None
            return self._duplicate(game, seat, action_id)
        except StoreUnavailable as exc:
            # Maybe committed: the client resends the same action_id, the sweep reads the truth.
            self._mark_stale(game)
            log.error("commit failed in game %s: %s", game.id, exc)
            raise ServiceError(
                Code.UNAVAILABLE,
                "the database did not answer; send the action again with the same action_id",
            ) from None
        self.hub.metrics.committed(
            table_id=self.table_id,
            seat=seat,
            version=version,
            kind=str(action.get("type")),
            started=started,
            commit_started=commit_started,
            by=action_id.split("-", 1)[0][1:] if by_server else "player",
        )
        # Committed: now, and only now, the world may learn about it (absent players by push).
        self.hub.push.moved(
            self.table_id, game.state, new_state, seat, over, self.bots.bots, version
        )
        game.state, game.version, game.over = new_state, version, over
        game.deadline = deadline
        game.events.append(events)
        game.action_ids[action_id] = (seat, version)
        self.moved_on(was_over=False)
        return AckOut(action_id=action_id, version=version)

    def _mark_stale(self, game: LiveGame) -> None:
        """Read the game again before the next action, or when the hub's sweep gets to it."""
        game.stale = True
        self.hub.sweep_soon()

    def moved_on(self, *, was_over: bool) -> None:
        """The game has a new version (here or replayed): time it, show it, wake the bots."""
        assert self.game is not None
        self.clock.arm()
        self.audience.publish()
        if self.game.over and not was_over:
            self.audience.refresh_table()
        self.bots.wake()

    async def catch_up(self) -> None:
        """Another process moved the game on: read what it committed and push it. Call with
        the lock held."""
        await self.remote.catch_up()

    # -- sockets (the audience's; under the room's lock, with the game) -------------------------

    async def connect(
        self, conn: Connection, since: int | None, arrival: Arrival | None = None
    ) -> None:
        """Register a socket and send it hello, the table and (once started) the state.
        `arrival`: its token check, presence write and, when asked, the table's rows, already
        done by the store (app.store.arrivals); None for a spectator of a table held here."""
        async with self.locked():
            back = await self.audience.arrive(conn, since, arrival)
            if back is None:
                return  # the table is closed, and so is the socket
            rows = arrival.rows if arrival is not None else None
            missed = rows is not None and self.hub.missed_since(self.table_id, rows.read_at)
            if missed:
                # A notice for this table came while the arrival read it, before this room
                # was made to hear it: the game and the table are read again.
                self.audience.heard.changed()
                self.audience.refresh_table()
            if arrival is not None and not arrival.has_game and self.game is None and not missed:
                game = None  # not started, as the arrival's statement read
            else:
                game = await self.load()
            if game is not None:
                self.audience.send_state(conn, game)
            if back:
                self.audience.came_back()
            me = self.audience.seat_info(conn.seat)
            if me is not None and me.stand_in and game is not None and not game.over:
                # Its person is back: the seat is theirs again from their next prompt.
                self.standins.return_soon(me.seat)

    async def disconnect(self, conn: Connection) -> None:
        if conn not in self.audience.connections:
            return
        async with self.locked():
            await self.audience.leave(conn)
            seat = conn.seat
            gone = seat is not None and seat not in self.audience.connected_seats()
            if gone and seat is not None and self.game is not None and not self.game.over:
                self.standins.went_away(seat)  # the log says "Ben left the table"

    async def close(self, code: int, reason: str) -> None:
        self.audience.close(code, reason)
        self.clock.cancel()
        await self.standins.close()
        self.feed.close()
        await self.bots.stop()
        await self.audience.stop()
