"""What this process has heard on the bus about one table: when another process last told of a
change to its seats or presence, and the latest version of its game committed (this process's own
commits too, whose notices come back). Postgres delivers notices in the order their transactions
committed, so once a commit's own notice is heard, every change committed before it has been too
(app.table.push decides whom to wake on that)."""

from __future__ import annotations

import asyncio
import time


class Heard:
    def __init__(self) -> None:
        self.changed_at = 0.0  # monotonic; 0: never
        self.version = -1
        self._more: asyncio.Event | None = None

    def changed(self) -> None:
        """A presence or lobby notice: what was read of the table before now may miss it."""
        self.changed_at = time.monotonic()

    def committed(self, version: int) -> None:
        if version > self.version:
            self.version = version
            if self._more is not None:
                self._more.set()
                self._more = None

    async def through(self, version: int, timeout: float) -> bool:
        """Wait until the notice of `version` has been heard; False after `timeout`."""
        try:
            async with asyncio.timeout(timeout):
                while self.version < version:
                    if self._more is None:
                        self._more = asyncio.Event()
                    await self._more.wait()
        except TimeoutError:
            return False
        return True
