"""Finished games into history and ratings: a pass records every game that ended and is not
recorded yet (its placements from the final state, its ratings moved in the same transaction),
run every few seconds in each process and before a player's games are read, so that a game is
recorded even when the process that played its end was killed. Also what a player's history and
rating read, and the rebuild of every rating from the history."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from datetime import datetime, timedelta

from app.core.errors import StoreConflict, StoreError
from app.lobby import ratings
from app.store.player_ports import Ended, HistoryStore, RatingRec, Result
from app.store.records import utcnow

log = logging.getLogger("dragonstones.history")

PASS_SECONDS = 5.0
# How far before its previous pass a pass looks: a game's end is stamped before its commit
# finishes, by a clock of this or another process.
OVERLAP = timedelta(minutes=2)
BATCH = 50


class History:
    def __init__(self, store: HistoryStore, pass_seconds: float = PASS_SECONDS) -> None:
        self.store = store
        self.pass_seconds = pass_seconds
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._since: datetime | None = None  # None: look at every finished game

    async def record_pending(self) -> int:
        """Record the finished games not recorded yet; how many this pass recorded. The first
        pass of the process looks at every finished game; the next ones at those that ended
        since shortly before the previous pass began (the index on `finished_at`)."""
        done = 0
        async with self._lock:
            began = utcnow()
            while True:
                pending = await self.store.unrecorded(BATCH, self._since)
                for ended in pending:
                    done += await self._record(ended)
                if len(pending) < BATCH:
                    self._since = began - OVERLAP
                    return done

    async def _record(self, ended: Ended) -> int:
        rated, placed = ratings.placements(ended)
        try:
            recorded = await self.store.record(
                ended, rated, placed, functools.partial(ratings.advance, placed)
            )
        except StoreConflict:
            # Another process recorded it between our read and our write (SQLite).
            return 0
        return int(recorded)

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="history")

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.pass_seconds)
            try:
                await self.record_pending()
            except StoreError as exc:  # the database is away: the next pass tries again
                log.warning("recording finished games failed, trying again later: %r", exc)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def games_of(self, player_id: str, before: int | None, limit: int) -> list[Result]:
        await self.record_pending()
        return await self.store.results_of(player_id, before, limit)

    async def page(self, player_id: str, last: int) -> tuple[RatingRec | None, list[Result]]:
        """A player's rating and last games, the games that ended recorded first."""
        await self.record_pending()
        return await self.store.rating_and_results(player_id, last)

    async def everything(self) -> list[Result]:
        """Every recorded game in recording order, the finished ones not recorded yet first
        recorded."""
        await self.record_pending()
        return [r async for r in self.store.everything()]

    async def rebuild(
        self, results: list[Result] | None = None
    ) -> tuple[dict[str, RatingRec], list[str]]:
        """Every rating recomputed from the history (`results`: as `everything` gives it) and
        stored; and the keys whose stored rating was not exactly the recomputed one."""
        if results is None:
            results = await self.everything()
        rebuilt = ratings.rebuild(results)
        stored = await self.store.ratings(sorted(rebuilt))
        differ = sorted(k for k, r in rebuilt.items() if stored.get(k) != r)
        await self.store.replace_ratings(rebuilt)
        return rebuilt, differ
