"""What one client address may cost the log: a few lines about its refused requests per interval,
the rest counted and told in one summary line when the interval ends ("N more refused from A in
the last T s"), however long the storm. And which addresses count as one: an IPv6 client holds a
whole /64, so its addresses are grouped by that prefix.

The budget is one per process (`REFUSALS`), set up from the settings by `app.core.logs.install`;
refusals are also counted, every one, in the Prometheus metrics (app.core.metrics).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("dragonstones.refusals")

# Addresses (windows) remembered at most; the oldest window is closed first beyond this.
MAX_KEYS = 100_000


def address_key(host: str) -> str:
    """The key one client is counted under: its IPv4 address, or its IPv6 /64 (a client of one
    prefix can pick any address in it). Anything that is not an address is its own key."""
    if ":" not in host:
        return host
    try:
        ip = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return f"{ipaddress.IPv6Network((int(ip) >> 64 << 64, 64))}"


@dataclass
class _Window:
    start: float
    used: int = 0
    held: int = 0


class LineBudget:
    """At most `lines` lines per key in each `window` seconds (the key's window starts with its
    first line); the lines beyond are not written but counted, and when the window ends one line
    says how many. `window` 0: no budget, every line is written."""

    def __init__(
        self,
        lines: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        keys: int = MAX_KEYS,
    ) -> None:
        self.lines = lines
        self.window = window
        self.clock = clock
        self.keys = keys
        # Ordered by the start of each window: the front one ends first.
        self.windows: OrderedDict[str, _Window] = OrderedDict()
        self._timer: asyncio.TimerHandle | None = None

    def configure(self, lines: int, window: float) -> None:
        self.flush(force=True)
        self.lines, self.window = lines, window

    def take(self, key: str) -> bool:
        """True: write this line (it is counted against `key`'s window); False: it is held back."""
        if self.window <= 0:
            return True
        now = self.clock()
        self._close_ended(now)
        entry = self.windows.get(key)
        if entry is None:
            entry = self.windows[key] = _Window(now)
            while len(self.windows) > self.keys:
                self._close(*self.windows.popitem(last=False))
        if entry.used < self.lines:
            entry.used += 1
            return True
        entry.held += 1
        if self._timer is None:
            self._schedule(entry.start + self.window - now)
        return False

    def flush(self, force: bool = False) -> None:
        """Write the summaries of the windows that ended (every window: `force`)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if force:
            while self.windows:
                self._close(*self.windows.popitem(last=False))
            return
        self._close_ended(self.clock())
        if any(w.held for w in self.windows.values()):
            front = next(iter(self.windows.values()))
            self._schedule(front.start + self.window - self.clock())

    def _close_ended(self, now: float) -> None:
        while self.windows:
            key, entry = next(iter(self.windows.items()))
            if now - entry.start < self.window:
                return
            del self.windows[key]
            self._close(key, entry)

    def _close(self, key: str, entry: _Window) -> None:
        if entry.held:
            log.info("%d more refused from %s in the last %.0f s", entry.held, key, self.window)

    def _schedule(self, delay: float) -> None:
        """Write the summary when the window ends even if nothing else is refused by then."""
        with contextlib.suppress(RuntimeError):  # no event loop: at the next refusal instead
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(max(0.0, delay) + 0.01, self.flush)


REFUSALS = LineBudget()
