"""The server's time, in one object that every timer reads: the wall clock (`time`, `now`), the
monotonic clock and sleeping. The game's time limits, the grace period and the away notice,
presence's heartbeats and the closing of idle tables, the queue's passes and grace, and the
per-address rate limits all go through `server_clock`.

In production it is the real clock and nothing moves it. A server started with TEST_CLOCK (for
tests only) may be moved forward (`advance`, behind a test-only endpoint): both clocks jump by
the same amount, every sleeper wakes to look at the new time, and `advance` returns once each
task it woke has gone back to sleep or finished, so a test moves time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from datetime import UTC, datetime
from typing import Any

# How long `advance` waits at most for the tasks it woke to settle (real seconds).
SETTLE_SECONDS = 15.0


class ServerClock:
    def __init__(self) -> None:
        self.offset = 0.0  # how far tests moved it (always 0 in production)
        self.movable = False
        # Each sleeper's wake-up call and the task sleeping on it (movable clock only).
        self._sleepers: dict[asyncio.Future[None], asyncio.Task[Any] | None] = {}

    def time(self) -> float:
        """Unix seconds."""
        return time.time() + self.offset

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), UTC)

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    async def sleep(self, seconds: float) -> None:
        """Sleep this many seconds of this clock."""
        if not self.movable:
            await asyncio.sleep(seconds)
            return
        await self._sleep(seconds, None)

    async def wait(self, event: asyncio.Event, timeout: float | None) -> bool:
        """Wait for `event`, at most `timeout` seconds of this clock (None: no limit); True if
        it was set. A task that waits between timed sleeps waits here: `advance` then sees it
        asleep again once it is done with what the clock woke it for."""
        if not self.movable:
            if timeout is None:
                await event.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), timeout=timeout)
            return event.is_set()
        await self._sleep(math.inf if timeout is None else timeout, event)
        return event.is_set()

    async def _sleep(self, seconds: float, event: asyncio.Event | None) -> None:
        until = self.monotonic() + seconds
        loop = asyncio.get_running_loop()
        if seconds <= 0:
            await asyncio.sleep(0)
        while (left := until - self.monotonic()) > 0 and not (event and event.is_set()):
            woken: asyncio.Future[None] = loop.create_future()
            waits: set[asyncio.Future[Any]] = {woken}
            setter = None
            if event is not None:
                setter = asyncio.ensure_future(event.wait())
                waits.add(setter)
            self._sleepers[woken] = asyncio.current_task()
            try:
                await asyncio.wait(
                    waits,
                    timeout=None if left == math.inf else left,
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                self._sleepers.pop(woken, None)
                if setter is not None:
                    setter.cancel()

    async def advance(self, seconds: float) -> bool:
        """Move the clock forward (TEST_CLOCK only), wake every sleeper, and return once every
        task it woke sleeps again or has finished (False: some had not within SETTLE_SECONDS)."""
        if not self.movable:
            raise RuntimeError("only a server started with TEST_CLOCK moves its clock")
        self.offset += seconds
        woken: dict[asyncio.Future[None], asyncio.Task[Any]] = {}
        for future, task in list(self._sleepers.items()):
            if not future.done():
                future.set_result(None)
            if task is not None and task is not asyncio.current_task():
                woken[future] = task
        give_up = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < give_up:
            await asyncio.sleep(0.005)
            asleep = {t for f, t in self._sleepers.items() if f not in woken}
            if all(t.done() or t in asleep for t in woken.values()):
                return True
        return False


server_clock = ServerClock()
