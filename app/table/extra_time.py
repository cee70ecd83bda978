"""More time for a decision ("+30 s", WCAG 2.2.1 Timing Adjustable): a seated player moves the
open prompt's deadline `EXTRA_TIME_SECONDS` later, at most `EXTRA_TIME_PER_GAME` times a game.

The new deadline is stored on the game's row with the same key (`extend_deadline`, guarded by the
version and the key: a request that comes as the decision closes changes nothing), every socket
of the table gets a `deadline` message, and a `time_added` notice on the table's feed tells
everyone who asked. The notices are also the count: a seat's requests are its `time_added`
notices in the feed, so the bound holds across restarts and processes. Another process's clock,
armed for the old deadline, reads the stored one before it times anybody out (app.table.clock).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from pydantic import ValidationError

from app.core.errors import Code, ServiceError, StoreError
from app.core.messages import DeadlineOut, ErrorOut, MoreTimeIn
from app.table.live_game import Deadline, LiveGame
from app.table.ports import Actor
from app.wire.outbox import Connection

KIND = "time_added"
PAGE = 500


class Audience(Protocol):
    @property
    def connections(self) -> Any: ...


class Feed(Protocol):
    async def notice(
        self, kind: str, *, seat: int | None = None, name: str | None = None, **data: Any
    ) -> int | None: ...


class Clock(Protocol):
    def arm(self) -> None: ...


class Room(Actor, Protocol):
    """The room, as more time sees it."""

    @property
    def audience(self) -> Audience: ...
    @property
    def feed(self) -> Feed: ...
    @property
    def clock(self) -> Clock: ...

    def locked(self) -> Any: ...


async def used(room: Room, seat: int) -> int:
    """How many times this seat asked for more time at this table (its feed's notices)."""
    count, after = 0, 0
    while True:
        lines = await room.hub.feeds.after(room.table_id, after, ("notices",), PAGE)
        count += sum(1 for line in lines if line.kind == KIND and line.seat == seat)
        if len(lines) < PAGE:
            return count
        after = lines[-1].id


def tell(
    game: LiveGame, audience: Audience, deadline: Deadline, seat: int | None, left: int | None
) -> None:
    """The open decision's deadline is now `deadline`: the game takes it, and every socket of
    the table hears it."""
    game.deadline = deadline
    game.frames.clear()  # a state frame of this version carries the deadline
    message = DeadlineOut(deadline=deadline.at, server_time=time.time(), seat=seat, left=left)
    for conn in list(audience.connections):
        conn.send(message)


async def more_time(room: Room, seat: int, seen: float | None = None) -> int:
    """Give the open decision more time at `seat`'s request; returns how many requests that seat
    has left. Refused with `no_time_limit` (no timed decision is open), `no_more_time` (the seat
    asked `EXTRA_TIME_PER_GAME` times) or `conflict` (the deadline moved meanwhile)."""
    settings = room.hub.settings
    allowed = settings.extra_time_per_game
    async with room.locked():
        game = room.game
        if game is None or game.over or game.deadline is None:
            raise ServiceError(Code.NO_TIME_LIMIT, "no decision with a time limit is open")
        deadline = game.deadline
        if seen is not None and abs(seen - deadline.at) > 0.5:
            raise ServiceError(Code.CONFLICT, "that decision is over; its deadline moved on")
        count = await used(room, seat)
        if count >= allowed:
            raise ServiceError(
                Code.NO_MORE_TIME, f"each player may ask for more time {allowed} times a game"
            )
        later = Deadline(deadline.key, deadline.at + settings.extra_time_seconds)
        if not await room.hub.store.extend_deadline(
            game.id, game.version, deadline.key, later.stamp()
        ):
            raise ServiceError(Code.CONFLICT, "that decision is over; its deadline moved on")
        left = allowed - count - 1
        tell(game, room.audience, later, seat, left)
        room.clock.arm()
        # Inside the lock: the notice is the count, so the next request of this seat sees it.
        await room.feed.notice(
            KIND, seat=seat, seconds=settings.extra_time_seconds, left=left, version=game.version
        )
    return left


async def handle(room: Room, conn: Connection, data: dict[str, Any]) -> None:
    """A `more_time` message from a socket: answered with an error when refused (the socket
    stays open); granted, every socket hears the new deadline."""
    try:
        message = MoreTimeIn.model_validate(data)
    except ValidationError as exc:
        conn.send(ErrorOut(code=Code.INVALID_MESSAGE, message=str(exc.errors()[0]["msg"])[:500]))
        return
    if conn.seat is None:
        conn.send(ErrorOut(code=Code.SPECTATOR, message="only a seated player may ask for time"))
        return
    try:
        await more_time(room, conn.seat, message.deadline)
    except ServiceError as exc:
        conn.send(ErrorOut(code=exc.code, message=exc.message))
    except StoreError:
        conn.send(ErrorOut(code=Code.UNAVAILABLE, message="the database did not answer; retry"))
