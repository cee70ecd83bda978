"""Other processes' commits reaching one table's room: the action each commit's notification
carries, applied with the engine in version order as soon as the room is free, or read back from
the database when one is missing.

Only committed versions are notified and a table has one game, so what a notification carries for
a version is what the database holds for it, whichever process wrote it (this one included). A
notification is kept in `heard` until the room's game reaches the version before it:

- the room is free (nobody holds its lock): applied at once, in the bus's callback, without a
  task, a lock or a database read (`Room.locked` applies what arrived while it was held, when the
  holder lets go: nothing can run in between, the event loop is ours until the next await);
- the room's own commit found its version taken (`Room._submit`): the version that took it is
  applied from `heard` when it has arrived (it travels beside the commit's answer, on the
  listener's connection), and the action validated again;
- a version is missing (a notification lost while the listener was away, or one too long for
  NOTIFY that carries no action): the room reads what it missed from the database, as it always
  could (`catch_up`), and the deadline stored with it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import engine
from app.store.records import Carried
from app.table.audience import Audience
from app.table.clock import Clock
from app.table.live_game import Deadline, LiveGame
from app.table.ports import Services

log = logging.getLogger("dragonstones.room")

# Turns of the event loop a room whose commit found its version taken waits for that version's
# notification before it reads the database instead (no timer: a notification already on the
# listener's socket is read within two turns, one that is not yet there is not waited for).
HEARD_WAIT_TURNS = 3

# Notifications kept at most for a room held all along (a commit waiting on a database that does
# not answer): beyond them, the room reads the database once it is free.
HEARD_MOST = 512

Row = tuple[int, int, str, engine.Action, list[dict[str, Any]]]


class Replaying(Protocol):
    """What of a room its other processes' commits need."""

    game: LiveGame | None

    @property
    def hub(self) -> Services: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def audience(self) -> Audience: ...

    async def load(self) -> LiveGame | None: ...

    def moved_on(self, *, was_over: bool) -> None: ...


class Remote:
    def __init__(self, room: Replaying) -> None:
        self.room = room
        self.heard: dict[int, Carried] = {}  # version -> what its notification carried

    def hear(self, version: int, carried: Carried, free: bool) -> bool:
        """A commit's notification carried its action: keep it, and apply what follows the
        game's version if the room is `free`. False when the room must read the database."""
        game = self.room.game
        if game is None:
            return False
        if version <= game.version:
            return True
        if len(self.heard) >= HEARD_MOST:
            self.heard.clear()
            return False
        self.heard[version] = carried
        return self.apply_heard() is not False if free else True

    def apply_heard(self) -> bool | None:
        """Apply the versions heard that follow the game's (with the room free or held by the
        caller). True if some were applied, None if none was due, False if a version is
        missing before those heard (the database has it)."""
        game = self.room.game
        if game is None or not self.heard:
            return None
        rows: list[Row] = []
        last: Carried | None = None
        version = game.version + 1
        while (carried := self.heard.pop(version, None)) is not None:
            rows.append((version, carried.seat, carried.action_id, carried.action, carried.events))
            last, version = carried, version + 1
        for v in [v for v in self.heard if v < version]:
            del self.heard[v]
        if last is None:
            return False if self.heard else None
        at, key = last.deadline_at, last.deadline_key
        was_over = game.over
        if not self._apply(rows):
            # Cannot happen with one engine version everywhere: read the game again.
            game.stale = True
            self.room.hub.sweep_soon()
            return True
        game.deadline = Deadline(key, at) if at is not None and key is not None else None
        self.room.hub.metrics.remote_versions.labels("notification").inc(len(rows))
        self.room.moved_on(was_over=was_over)
        return True

    async def after_conflict(self, first: bool) -> None:
        """This room's commit found its version taken by another process: take what that
        process committed, from its notification on the first conflict of an action when it is
        here, else from the database. Call with the lock held."""
        if first:
            for _turn in range(HEARD_WAIT_TURNS):
                if self.apply_heard():
                    return
                await asyncio.sleep(0)
        await self.catch_up()

    async def catch_up(self) -> None:
        """Read what other processes committed since the game's version and push it. Call with
        the lock held."""
        room = self.room
        game = room.game
        if game is None:
            if await room.load() is not None:
                room.audience.refresh_table()
                room.audience.publish()
            return
        rows = await room.hub.store.since(game.id, game.version)
        await self._replay(rows)
        self.apply_heard()  # what arrived meanwhile (and was not read)

    async def _replay(self, rows: list[Row]) -> None:
        """Apply actions read from the database, then take the deadline stored with the last
        (from its notification when it was heard, else read)."""
        game = self.room.game
        assert game is not None
        if not rows:
            return
        last = rows[-1][0]
        heard = self.heard.get(last)
        was_over = game.over
        if not self._apply(rows):
            self.room.game = None  # read it whole again rather than diverge
            await self.room.load()
            self.room.audience.publish()
            return
        self.room.hub.metrics.remote_versions.labels("database").inc(len(rows))
        if heard is not None:
            at, key = heard.deadline_at, heard.deadline_key
            game.deadline = Deadline(key, at) if at is not None and key is not None else None
        else:
            await self.room.clock.caught_up()
        self.room.moved_on(was_over=was_over)

    def _apply(self, rows: list[Row]) -> bool:
        """The engine replays the rows onto the game (it is deterministic); False, and the
        game untouched, if one does not apply or they do not continue its version."""
        game = self.room.game
        assert game is not None
        if [v for v, *_ in rows] != list(range(game.version + 1, game.version + 1 + len(rows))):
            log.error("game %s: the action log does not continue version %s", game.id, game.version)
            return False
        state = game.state
        try:
            for _v, seat, _action_id, action, _events in rows:
                state, _ = engine.apply(state, seat, action)
        except engine.IllegalAction:
            log.exception("game %s: replaying another process's actions failed", game.id)
            return False
        for v, seat, action_id, _action, events in rows:
            game.events.append(events)
            game.action_ids[action_id] = (seat, v)
        game.state, game.version = state, rows[-1][0]
        game.over = engine.is_over(state)
        for v in [v for v in self.heard if v <= game.version]:
            del self.heard[v]
        return True
