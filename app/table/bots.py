"""The bot seats of one game, and the bots standing in for absent people (app.table.standin): they
decide with the engine's bots and act through `Room.submit`, the same path as people, with action
ids in the server's namespace."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import engine
import engine.bots
from app.core.clock import server_clock
from app.core.errors import Code, ServiceError
from app.table.ports import Actor

log = logging.getLogger("dragonstones.bots")

# A bot whose move the database did not answer tries again after RETRY_FIRST_SECONDS, twice as
# long each time after, RETRY_MOST_SECONDS at most: an outage costs a few tries, not a busy loop.
RETRY_FIRST_SECONDS = 0.2
RETRY_MOST_SECONDS = 5.0


def backoff_seconds(failures: int) -> float:
    """The wait after this many failed moves in a row (1: the first)."""
    return float(min(RETRY_MOST_SECONDS, RETRY_FIRST_SECONDS * 2 ** min(failures - 1, 16)))


class BotSeats:
    def __init__(self, room: Actor) -> None:
        self.room = room
        self.bots: dict[int, engine.bots.Bot] = {}  # seat -> engine bot
        self.seeds: dict[int, int] = {}  # seat -> the bot's seed (a hard bot's decisions use it)
        self.task: asyncio.Task[None] | None = None
        self.event = asyncio.Event()
        self.stopped = False

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
            self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The bots' task ended. It does when the game is over; otherwise (a failure outside a
        move, a cancellation that was not `stop`'s) nobody would wake the bots again while they
        are the ones due, and the game would stall: it says so and starts again shortly."""
        game = self.room.game
        if self.stopped or self.room.hub.closed or game is None or game.over:
            return
        why = "cancelled" if task.cancelled() else repr(task.exception())
        log.error("bots of table %s stopped mid-game (%s): starting again", self.room.table_id, why)
        asyncio.get_running_loop().call_later(RETRY_FIRST_SECONDS, self.wake)

    async def stop(self) -> None:
        self.stopped = True
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
        failures = 0  # moves in a row the database did not answer (or that failed)
        delay = self.room.hub.settings.bot_delay_seconds
        while not self.room.hub.closed:
            # On the server's clock, as the backoff below: a test that moves the clock sees
            # this task asleep again once the moves it woke it for are played.
            await server_clock.wait(self.event, None)
            self.event.clear()
            while not self.room.hub.closed and (seats := self._due()):
                if delay > 0:
                    await asyncio.sleep(delay)
                try:
                    answered = await self._move(seats[0])
                except Exception:
                    answered = False
                    log.exception(
                        "bot move failed in table %s (seat %s)", self.room.table_id, seats[0]
                    )
                if answered:
                    failures = 0
                    continue
                # The store did not answer (an outage), or the move failed: wait before the
                # next try rather than spin, longer each time; a change of the game (the room
                # caught up once the database is back) ends the wait at once.
                failures += 1
                self.event.clear()
                await server_clock.wait(self.event, backoff_seconds(failures))
            game = self.room.game
            if game is None or game.over:
                return

    async def _move(self, seat: int) -> bool:
        """Decide and play the seat's prompt. False when the database did not answer: the
        caller waits before it tries again."""
        game = self.room.game
        assert game is not None
        state, version = game.state, game.version
        prompt = next((p for p in engine.prompts(state, seat=seat) if p["seat"] == seat), None)
        bot = self.bots.get(seat)
        if prompt is None or bot is None:  # answered, or the seat's person took it back
            return True
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
            if exc.code == Code.UNAVAILABLE:
                return False  # the room reads the game again once the database answers
            if exc.code == Code.CONFLICT or game.version != version:
                return True  # the game moved on: decide again
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
        return True
