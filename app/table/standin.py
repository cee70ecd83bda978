"""Bots standing in for absent people: who is away and since when, the grace period, handing a
seat to a bot (by another seated person; at a timed table by itself, once the grace period has
passed or after two time-outs in a row) and giving it back when the person returns. A person who
stays away a few seconds during a game is named in the log (an `away` notice).

A stand-in is stored on the seat (`seats.stand_in`, with the bot's kind and seed), so that it
survives a restart and every process plays it; the others hear of it through the bus like any
table change. The bot plays through `Room.submit` like the table's own bots (app.table.bots).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from app.core import seeds
from app.core.clock import server_clock
from app.core.errors import Code, ServiceError
from app.core.schemas import PlayerOut, TableOut
from app.core.security import new_seed
from app.table.audience import Audience
from app.table.bots import BotSeats
from app.table.chat import Feed
from app.table.clock import consecutive_time_outs
from app.table.live_game import LiveGame
from app.table.ports import Actor

log = logging.getLogger("dragonstones.standin")

# At a timed table, a seat the clock answered for this many times in a row gets a bot by itself.
AUTO_AFTER_TIME_OUTS = 2
# A seat away this long during a game gets its `away` notice ("Ben left the table"): a page reload
# comes back sooner and says nothing.
AWAY_NOTICE_SECONDS = 5.0


class Seated(Actor, Protocol):
    """The room, as its stand-ins see it: its bots, its feed, its audience and its lock."""

    @property
    def bots(self) -> BotSeats: ...
    @property
    def feed(self) -> Feed: ...

    @property
    def audience(self) -> Audience: ...

    def locked(self) -> AbstractAsyncContextManager[Any]: ...
    async def load(self) -> LiveGame | None: ...


class StandIns:
    def __init__(self, room: Seated) -> None:
        self.room = room
        self._flip: asyncio.Task[None] | None = None  # refreshes the table when a seat turns absent
        self._flip_at: float | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._auto: set[int] = set()  # seats whose automatic stand-in is under way here

    # -- presence (stored: app.store.presence, through the listing) ---------------------------------

    @staticmethod
    def away_since(player: PlayerOut) -> float | None:
        """When this seat's person went away (Unix seconds), as the stored presence says (every
        process's sockets count); None while one of their sockets is open, and for bots."""
        if player.bot or player.connected or player.away_since is None:
            return None
        return player.away_since.timestamp()

    def decorate(self, table: TableOut) -> TableOut:
        """Mark the seats whose person has been away longer than the grace period (a bot may
        stand in), and look again when the next one will be."""
        now = server_clock.time()
        upcoming: list[float] = []
        for p in table.players:
            p.absent = False
            if p.bot or p.stand_in or table.status != "playing":
                continue
            since = self.away_since(p)
            if since is None:
                continue
            if now - since >= table.grace_seconds:
                p.absent = True
                if table.turn_seconds or table.choose_seconds:
                    self._spawn_auto(p.seat, since)
            else:
                upcoming.append(since + table.grace_seconds)
        if upcoming:
            self._refresh_at(min(upcoming))
        return table

    def _refresh_at(self, at: float) -> None:
        if self._flip is not None and not self._flip.done() and self._flip_at is not None:
            if self._flip_at <= at:
                return
            self._flip.cancel()
        self._flip_at = at
        self._flip = asyncio.create_task(self._refresh_later(at))

    async def _refresh_later(self, at: float) -> None:
        await server_clock.sleep(max(0.0, at - server_clock.time()) + 0.05)
        self._flip_at = None
        self.room.audience.refresh_table(0)

    # -- the server's own hand-over and notice (a timed table) -------------------------------

    def _spawn(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _spawn_auto(self, seat: int, since: float) -> None:
        if seat not in self._auto:
            self._auto.add(seat)
            self._spawn(self._auto_stand_in(seat, since))

    async def _auto_stand_in(self, seat: int, since: float) -> None:
        """At a timed table, a seat away for the whole grace period gets a bot (every process
        holding the room may try: the stored flag lets one of them do it)."""
        room = self.room
        try:
            async with room.locked():
                game = await room.load()
                if game is None or game.over or seat in room.bots.bots:
                    return
                table = await room.hub.listing.table(room.table_id)
                player = next((p for p in table.players if p.seat == seat), None)
                if player is None or player.stand_in or self.away_since(player) != since:
                    return
                await self._start(seat, by=None, away=True)
                await room.audience.send_table_now()
        except Exception as exc:  # the database is away: the next refresh tries again
            log.warning("no stand-in for seat %s of table %s: %r", seat, room.table_id, exc)
        finally:
            self._auto.discard(seat)

    def went_away(self, seat: int) -> None:
        """The seat's last socket closed in this process (which alone says it, once)."""
        self._spawn(self._away_notice(seat))

    async def _away_notice(self, seat: int) -> None:
        room = self.room
        await server_clock.sleep(AWAY_NOTICE_SECONDS)
        try:
            game = room.game
            if game is None or game.over or room.hub.closed:
                return
            table = await room.hub.listing.table(room.table_id)
            player = next((p for p in table.players if p.seat == seat), None)
            if player is None or player.bot or player.stand_in:
                return
            since = self.away_since(player)
            if since is None or server_clock.time() - since < AWAY_NOTICE_SECONDS - 0.5:
                return  # back meanwhile (maybe away again since: that departure says it)
            timed = bool(table.turn_seconds or table.choose_seconds)
            left = max(0, round(since + table.grace_seconds - server_clock.time()))
            await room.feed.notice("away", seat=seat, grace=left, auto=timed)
            self._refresh_at(since + table.grace_seconds)
        except Exception as exc:
            log.warning("no away notice for seat %s of table %s: %r", seat, room.table_id, exc)

    # -- hand-over and return -------------------------------------------------------------------

    async def hand_over(self, *, seat: int, token: str | None) -> TableOut:
        """Another seated person hands `seat` to a bot: only once its person has been away
        longer than the table's grace period."""
        room = self.room
        # Under the lock: the room of a table that does not exist is then forgotten.
        async with room.locked():
            caller = await room.hub.reads.seat_for_token(room.table_id, token)
            game = await room.load()
            if game is None:
                raise ServiceError(Code.NOT_STARTED, "the game has not started yet")
            if game.over:
                raise ServiceError(Code.GAME_OVER, "the game is over")
            table = await room.hub.listing.table(room.table_id)
            player = next((p for p in table.players if p.seat == seat), None)
            if player is None or player.bot:
                raise ServiceError(Code.NOT_A_PERSON, f"no person holds seat {seat}")
            if caller.seat == seat:
                raise ServiceError(Code.OWN_SEAT, "you cannot hand your own seat to a bot")
            if player.stand_in:
                raise ServiceError(Code.ALREADY_STAND_IN, f"a bot already plays for {player.name}")
            since = self.away_since(player)
            if since is None:
                raise ServiceError(Code.SEAT_ONLINE, f"{player.name} is connected")
            left = table.grace_seconds - (server_clock.time() - since)
            if left > 0:
                raise ServiceError(
                    Code.TOO_EARLY,
                    f"{player.name} has been away for less than {table.grace_seconds} s; "
                    f"try again in {int(left) + 1} s",
                )
            await self._start(seat, by=caller.seat)
            return await room.audience.send_table_now()

    async def after_time_out(self, seat: int) -> None:
        """The clock answered for `seat`: after the second time in a row, a bot stands in."""
        room = self.room
        game = room.game
        if game is None or game.over or seat in room.bots.bots:
            return
        if consecutive_time_outs(game, seat) < AUTO_AFTER_TIME_OUTS:
            return
        try:
            async with room.locked():
                if seat not in room.bots.bots and not game.over:
                    await self._start(seat, by=None)
                    await room.audience.send_table_now()
        except Exception as exc:  # the database is away: the next time-out tries again
            log.warning("no stand-in for seat %s of table %s: %r", seat, room.table_id, exc)

    async def take_back(self, *, seat: int, token: str | None) -> TableOut:
        """The seat's person, on the page, takes the seat back from its bot."""
        room = self.room
        async with room.locked():
            caller = await room.hub.reads.seat_for_token(room.table_id, token)
            if caller.seat != seat:
                raise ServiceError(Code.NOT_YOUR_SEAT, "only the seat's own person takes it back")
            if not await self._stop(seat):
                raise ServiceError(Code.NO_STAND_IN, "no bot plays for this seat")
            return await room.audience.send_table_now()

    def return_soon(self, seat: int) -> None:
        """`returned`, once the caller (holding the room's lock) is done."""
        self._spawn(self.returned(seat))

    async def returned(self, seat: int) -> None:
        """A socket of this seat's person opened while a bot played for it: the seat is theirs
        again from their next prompt on."""
        room = self.room
        try:
            async with room.locked():
                if await self._stop(seat):
                    await room.audience.send_table_now()
        except Exception as exc:
            log.warning("seat %s of table %s not given back: %r", seat, room.table_id, exc)

    async def _start(self, seat: int, *, by: int | None, away: bool = False) -> None:
        room = self.room
        # The host's choice for this table, else the server's default: the normal bot.
        table = await room.hub.listing.table(room.table_id)
        kind = table.stand_in_kind or room.hub.settings.default_bot_kind
        game, test_seed = room.game, room.hub.settings.test_seed
        if test_seed is None or game is None:
            seed = str(new_seed())
        else:  # tests only (app.core.seeds): the stand-in plays the same game again
            seed = str(seeds.bot_seed(int(game.state.seed), seat, "stand-in"))
        if await room.hub.store.set_stand_in(room.table_id, seat, True, kind, seed):
            room.bots.add(seat, kind, seed, kind)
            room.hub.push.stood_in(room.table_id, seat)  # told by push if away
            giver = room.audience.seat_info(by)
            by_name = giver.name if giver is not None else None
            # The table's feed (app.table.chat): stored, replayed on reconnection, in the log.
            # `away`: the server's hand-over after the grace period (else after time-outs).
            if away:
                await room.feed.notice("stand_in", seat=seat, by=by, by_name=by_name, away=True)
            else:
                await room.feed.notice("stand_in", seat=seat, by=by, by_name=by_name)
            await room.hub.bus.publish(room.table_id, None)
            room.bots.wake()
            log.info("a bot stands in for seat %s of table %s", seat, room.table_id)
        else:
            await self.reload()

    async def _stop(self, seat: int) -> bool:
        room = self.room
        if not await room.hub.store.set_stand_in(room.table_id, seat, False):
            await self.reload()
            return False
        room.bots.remove(seat)
        await room.feed.notice("back", seat=seat)
        await room.hub.bus.publish(room.table_id, None)
        log.info("seat %s of table %s is its person's again", seat, room.table_id)
        return True

    async def reload(self) -> None:
        """Another process may have changed who plays for which seat: read it again."""
        room = self.room
        if room.game is None:
            return
        stored = {s: (k, b) for s, k, b in await room.hub.store.stand_ins(room.table_id)}
        default = room.hub.settings.default_bot_kind
        for seat in list(room.bots.bots):
            if seat not in stored:
                room.bots.remove(seat)
        for seat, (kind, seed) in stored.items():
            if seat not in room.bots.bots:
                room.bots.add(seat, kind, seed, default)
        room.bots.wake()

    async def close(self) -> None:
        for task in [self._flip, *self._tasks]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
