"""The bot seats of one game, and the bots standing in for absent people (app.table.standin): they
decide with the engine's bots and act through `Room.submit`, the same path as people, with action
ids in the server's namespace."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import engine
import engine.bots
from app.core.errors import Code, ServiceError
from app.table.ports import Actor

log = logging.getLogger("dragonstones.bots")


class BotSeats:
    def __init__(self, room: Actor) -> None:
        self.room = room
        self.bots: dict[int, engine.bots.Bot] = {}  # seat -> engine bot
        self.seeds: dict[int, int] = {}  # seat -> the bot's seed (a hard bot's decisions use it)
        self.task: asyncio.Task[None] | None = None
        self.event = asyncio.Event()

    def seat(self, bots: list[tuple[int, str | None, str | None]], default_kind: str) -> None:
        """Make the engine's bots for these seats: (seat, kind, seed)."""
        self.bots = {
            seat: engine.bots.make_bot(kind or default_kind, int(seed or 0))
            for seat, kind, seed in bots
        }
        self.seeds = {seat: int(seed or 0) for seat, _kind, seed in bots}

    def add(self, seat: int, kind: str | None, seed: str | None, default_kind: str) -> None:
        """A bot starts playing for a seat (a stand-in for an absent person)."""
        self.bots[seat] = engine.bots.make_bot(kind or default_kind, int(seed or 0))
        self.seeds[seat] = int(seed or 0)

    def remove(self, seat: int) -> None:
        """The seat's person is back: the bot stops before its next decision."""
        self.bots.pop(seat, None)

    def wake(self) -> None:
        """The game moved on: let the bots look whether it is their turn."""
        game = self.room.game
        if game is None or game.over or not self.bots or self.room.hub.closed:
            return
        self.event.set()
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"bots-{game.id}")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    def _due(self) -> list[int]:
        game = self.room.game
        if game is None or game.over:
            return []
        return [p["seat"] for p in engine.prompts(game.state, seat=None) if p["seat"] in self.bots]

    async def _run(self) -> None:
        failures = 0
        delay = self.room.hub.settings.bot_delay_seconds
        while not self.room.hub.closed:
            await self.event.wait()
            self.event.clear()
            while not self.room.hub.closed and (seats := self._due()):
                if delay > 0:
                    await asyncio.sleep(delay)
                try:
                    await self._move(seats[0])
                    failures = 0
                except Exception:
                    failures += 1
                    log.exception(
                        "bot move failed in table %s (seat %s)", self.room.table_id, seats[0]
                    )
                    await asyncio.sleep(min(5.0, 0.1 * 2**failures))
            game = self.room.game
            if game is None or game.over:
                return

    async def _move(self, seat: int) -> None:
        game = self.room.game
        assert game is not None
        state, version = game.state, game.version
        prompt = next((p for p in engine.prompts(state, seat=seat) if p["seat"] == seat), None)
        bot = self.bots.get(seat)
        if prompt is None or bot is None:  # answered, or the seat's person took it back
            return
        try:
            if bot.kind == "hard":
                # A search: in the worker processes, so that this loop serves the other games.
                action = await self.room.hub.thinkers.decide(
                    self.seeds.get(seat, 0), version, engine.view(state, seat), prompt
                )
            else:
                action = bot.act(engine.view(state, seat), prompt)
        except Exception:
            # A bot bug must not stall the table: play the first legal action instead (a hard bot
            # whose worker failed plays the normal bot's move).
            log.exception("bot %s in game %s failed to decide", seat, game.id)
            try:
                action = engine.bots.make_bot("heuristic", version).act(
                    engine.view(state, seat), prompt
                )
            except Exception:
                action = engine.legal_actions(state, seat)[0]
        # The id names the version the bot decided at: a retry after a crash cannot act twice.
        action_id = f"~bot-{seat}-v{version}"
        try:
            await self.room.submit(seat=seat, action=action, action_id=action_id, by_server=True)
        except ServiceError as exc:
            if exc.code in (Code.CONFLICT, Code.UNAVAILABLE) or game.version != version:
                return  # the game moved on, or will be reloaded: decide again
            # A bot that picks an illegal action is an engine bug; keep the game going with the
            # first legal action rather than stalling the table.
            legal = engine.legal_actions(state, seat)
            log.error(
                "bot %s in game %s chose an illegal action %r (%s)", seat, game.id, action, exc.code
            )
            if legal:
                await self.room.submit(
                    seat=seat, action=legal[0], action_id=f"{action_id}-fallback", by_server=True
                )
