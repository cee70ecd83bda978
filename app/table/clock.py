"""The time limits of one game: `turn_seconds` for sealed rounds (bids and tie-breaks, R13) and
`choose_seconds` for power decisions (`choose` prompts).

When an action opens a timed prompt, the room asks `plan` for its deadline before committing, and
the store writes it with that action (`games.deadline_at`, `games.deadline_key`): a restart finds
every deadline where it was, and one that passed meanwhile fires at once. A sealed round keeps the
deadline of the action that opened it while the seats answer one by one; each step of a power
decision gets a deadline of its own. When the deadline passes, every seat still asked plays the
engine's default (`engine.time_out`) through `Room.submit` like any action, with an action id in
the server's namespace that names the prompt, so two processes (or a restart) never time a seat
out twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

import engine
from app.core.clock import server_clock
from app.core.errors import ServiceError, StoreError
from app.table import extra_time
from app.table.live_game import Deadline, LiveGame, public_view
from app.table.ports import Actor

if TYPE_CHECKING:
    from app.store.records import StoredGame

log = logging.getLogger("dragonstones.clock")

SEALED = ("bid", "tiebreak")
TIMEOUT_ID_PREFIX = "~timeout-"
# A time-out the database or another process got in the way of is tried again after this long.
RETRY_CODES = ("unavailable", "conflict")
RETRY_SECONDS = 1.0


def _round(view: dict[str, Any]) -> tuple[str, Any, Any, frozenset[int]] | None:
    """The open prompt's kind, identity and the seats it asks (None: nobody is asked), from the
    public view: its "awaiting" is the public list of prompts (engine.prompts(state, None))."""
    prompts = view["awaiting"]
    if not prompts:
        return None
    kind = "choose" if any(p["kind"] == "choose" for p in prompts) else prompts[0]["kind"]
    auction = view.get("auction") or {}
    ident = (view.get("turn"), auction.get("number"), prompts[0].get("character"))
    return kind, ident, view.get("phase"), frozenset(p["seat"] for p in prompts)


def plan(game: LiveGame, new_state: engine.State, version: int, now: float) -> Deadline | None:
    """The deadline of the prompt open after `new_state` (reached at `version`): the current one
    while the same sealed round goes on, a new one when an action opens a timed prompt. The
    public views are the game's shared ones (live_game.public_view): the new one is the view
    every frame of that version starts from, the old one was the last version's."""
    if not (game.turn_seconds or game.choose_seconds):
        return None
    return _plan(
        game.turn_seconds,
        game.choose_seconds,
        public_view(game, game.state, game.version) if game.deadline is not None else None,
        game.deadline,
        public_view(game, new_state, version),
        version,
        now,
    )


def first_deadline(
    state: engine.State, turn_seconds: int | None, choose_seconds: int | None, now: float
) -> Deadline | None:
    """The deadline of a game's opening prompt (stored with the game at the start)."""
    return _plan(turn_seconds, choose_seconds, None, None, engine.view(state, None), 0, now)


def _plan(
    turn_seconds: int | None,
    choose_seconds: int | None,
    old_view: dict[str, Any] | None,
    old_deadline: Deadline | None,
    new_view: dict[str, Any],
    version: int,
    now: float,
) -> Deadline | None:
    if not (turn_seconds or choose_seconds):
        return None
    new = _round(new_view)
    if new is None:
        return None
    seconds = turn_seconds if new[0] in SEALED else choose_seconds
    if not seconds:
        return None
    if new[0] in SEALED and old_deadline is not None and old_view is not None:
        old = _round(old_view)
        # The same sealed round: the same kind and auction, and only seats it already asked.
        if old is not None and old[:3] == new[:3] and new[3] <= old[3]:
            return old_deadline
    return Deadline(key=f"{new[0]}-v{version}", at=now + seconds)


def opening_deadline(game: LiveGame, now: float) -> Deadline | None:
    """A timed prompt open in a game loaded without a stored deadline (the start, or a game from
    before deadlines were stored): its deadline starts now."""
    return plan(game, game.state, game.version, now)


class AfterTimeOut(Protocol):
    async def after_time_out(self, seat: int) -> None:
        """A seat was just timed out (app.table.standin: a bot may take it over)."""


class Timed(Actor, Protocol):
    """The room, as its clock sees it."""

    @property
    def standins(self) -> AfterTimeOut: ...
    @property
    def audience(self) -> extra_time.Audience: ...


class Clock:
    def __init__(self, room: Timed) -> None:
        self.room = room
        self.armed: Deadline | None = None  # the deadline the task waits for
        self.task: asyncio.Task[None] | None = None
        self.saving: asyncio.Task[None] | None = None  # storing the opening deadline

    def adopt(self, stored: StoredGame) -> None:
        """The room has just loaded its game: take its stored deadline. A timed prompt open
        without one (the start) gets one from now, stored right away so a restart keeps it."""
        game = self.room.game
        assert game is not None
        if stored.deadline_at is not None and stored.deadline_key is not None:
            game.deadline = Deadline(stored.deadline_key, stored.deadline_at.timestamp())
        elif not stored.over:
            game.deadline = opening_deadline(game, server_clock.time())
            if game.deadline is not None:
                self.saving = asyncio.create_task(self._save(game, game.deadline))

    async def _save(self, game: LiveGame, deadline: Deadline) -> None:
        try:
            stored = await self.room.hub.store.save_deadline(
                game.id, game.version, deadline.stamp(), deadline.key
            )
        except StoreError as exc:
            log.warning("deadline of game %s not stored: %r", game.id, exc)
            return
        if stored is not None and game.deadline == deadline and stored[1] == deadline.key:
            # As the database holds it (another process may have stored it first).
            game.deadline = Deadline(stored[1], stored[0].timestamp())
            self.arm()

    async def caught_up(self) -> None:
        """The room replayed another process's actions: take the deadline it stored with the
        last one."""
        game = self.room.game
        if game is None or not (game.turn_seconds or game.choose_seconds):
            return
        try:
            stored = await self.room.hub.store.deadline(game.id)
        except StoreError as exc:
            # The room pushes the state it replayed anyway: plan the deadline here instead.
            log.warning("game %s: stored deadline not read (%r)", game.id, exc)
            stored = None
        if stored is not None and stored[0] == game.version:
            at, key = stored[1], stored[2]
            game.deadline = Deadline(key, at.timestamp()) if at and key else None
        else:  # it moved on again meanwhile: the next catch-up reads it
            game.deadline = plan(game, game.state, game.version, server_clock.time())

    def arm(self) -> None:
        """After every change of the game: wait for its current deadline (if any)."""
        game = self.room.game
        if game is None or self.room.hub.closed:
            return
        deadline = None if game.over else game.deadline
        if deadline == self.armed:
            return
        self.armed = deadline
        # The timer's own last action closes its prompt: it must not cancel itself mid-commit.
        # (the task's own loop named: looking up the running one costs a system call on 3.11)
        if self.task is not None and self.task is not asyncio.current_task(self.task.get_loop()):
            self.task.cancel()
        self.task = None
        if deadline is not None:
            self.task = asyncio.create_task(self._expire(deadline), name=f"clock-{game.id}")

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _expire(self, deadline: Deadline) -> None:
        await server_clock.sleep(max(0.0, deadline.at - server_clock.time()))
        game = self.room.game
        assert game is not None
        later = await _stored_later(self.room, game, deadline)
        if later is not None and game.deadline == deadline and not game.over:
            # More time was given through another process: wait for that deadline instead.
            extra_time.tell(game, self.room.audience, later, None, None)
            self.arm()
            return
        while True:
            retry = False
            for prompt in engine.prompts(game.state, seat=None):
                if game.deadline != deadline or game.over or self.room.hub.closed:
                    return
                seat = prompt["seat"]
                try:
                    await self.room.submit(
                        seat=seat,
                        action=None,
                        action_id=f"{TIMEOUT_ID_PREFIX}{seat}-{deadline.key}"[:64],
                        by_server=True,
                        timed_out=True,
                    )
                except ServiceError as exc:
                    # The seat answered at the last moment (nothing to do), or the database or
                    # another process was in the way (try again shortly).
                    log.info("time limit in game %s, seat %s: %s", game.id, seat, exc.code)
                    retry = retry or exc.code in RETRY_CODES
                    continue
                await self.room.standins.after_time_out(seat)
            if not retry:
                return
            await server_clock.sleep(RETRY_SECONDS)


async def _stored_later(room: Timed, game: LiveGame, deadline: Deadline) -> Deadline | None:
    """The deadline stored for this very prompt when it is later than `deadline` (more time was
    given through another process), else None."""
    try:
        stored = await room.hub.store.deadline(game.id)
    except StoreError:
        return None  # time out as planned: the database decides whose commit counts
    if stored is None or stored[0] != game.version or stored[1] is None:
        return None
    if stored[2] != deadline.key or stored[1].timestamp() <= deadline.at:
        return None
    return Deadline(deadline.key, stored[1].timestamp())


def consecutive_time_outs(game: LiveGame, seat: int) -> int:
    """How many of this seat's latest actions in a row the clock played for it."""
    mine = sorted((v, a) for a, (s, v) in game.action_ids.items() if s == seat)
    count = 0
    for _version, action_id in reversed(mine):
        if not action_id.startswith(TIMEOUT_ID_PREFIX):
            break
        count += 1
    return count
