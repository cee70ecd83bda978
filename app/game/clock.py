"""The time limit of one game (R13): when a sealed round (bids or a tie-break) opens at a timed
table, a deadline is set; when it passes, every seat that has not answered plays the engine's
default action for its prompt, through `Room.submit` like any action."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import engine
from app.errors import ServiceError

if TYPE_CHECKING:
    from app.game.room import Room

log = logging.getLogger("dragonstones.clock")

SEALED = ("bid", "tiebreak")


class Clock:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.round: tuple[Any, ...] | None = None  # the sealed round the deadline belongs to
        self.task: asyncio.Task[None] | None = None

    def _open_round(self) -> tuple[Any, ...] | None:
        game = self.room.game
        if game is None or game.over:
            return None
        view = engine.view(game.state, None)
        if view["phase"] not in SEALED:
            return None
        auction = view["auction"]
        return (view["turn"], auction["number"], view["phase"], auction["character"])

    def arm(self) -> None:
        """After every change of the game: start the clock when a new sealed round opens."""
        game = self.room.game
        if game is None or not game.turn_seconds or self.room.hub.closed:
            return
        key = self._open_round()
        if key == self.round:
            return
        self.round = key
        # The timer's own last action closes its round: it must not cancel itself mid-commit.
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        self.task = None
        if key is None:
            game.deadline = None
            return
        game.deadline = time.time() + game.turn_seconds
        self.task = asyncio.create_task(self._expire(key, game.deadline))

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _expire(self, key: tuple[Any, ...], deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.time()))
        label = "-".join(str(part) for part in key)
        game = self.room.game
        assert game is not None
        for prompt in engine.prompts(game.state, seat=None):
            if self.round != key or game.over or self.room.hub.closed:
                return
            if prompt["kind"] not in SEALED:
                continue
            seat = prompt["seat"]
            try:
                action = engine.timeout_action(game.state, seat)
            except engine.IllegalAction:
                continue  # answered meanwhile
            try:
                await self.room.submit(
                    seat=seat,
                    action=action,
                    action_id=f"~timeout-{seat}-{label}"[:64],
                    by_server=True,
                )
            except ServiceError as exc:
                # The seat answered at the last moment: nothing to do.
                log.info("time limit in game %s, seat %s: %s", game.id, seat, exc.code)
