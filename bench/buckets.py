"""Our token bucket beside the `limits` library, per call. Prints figures; asserts nothing.

    .venv/bin/python bench/buckets.py [--calls 200000] [--keys 1000] [--repeat 5]

Each loop makes --calls checks spread over --keys keys (client addresses), at a rate where some are
refused, as the server's limits see them:

- ours: `app.wire.buckets.Buckets.take` (a token bucket per key: a rate and a burst);
- limits, moving window: `MovingWindowRateLimiter(MemoryStorage()).hit` with "burst per minute";
- limits, fixed window: `FixedWindowRateLimiter(MemoryStorage()).hit`, the cheapest it offers.

Neither of `limits`' strategies is a token bucket (a window counts hits in a period; it has no
steady refill rate and no burst apart from the window's size), so the figures say what the same
job would cost, and the docstring of app/wire/buckets.py what was decided. Each loop counts with
the fastest of --repeat runs, in CPU time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

from app.wire.buckets import Buckets

RATE, BURST = 2.0, 20  # the socket's defaults (RATE_PER_SECOND, RATE_BURST)


def loop(calls: int, keys: list[str], check: Callable[[str, float], bool]) -> tuple[float, int]:
    """CPU seconds for `calls` checks, a simulated clock stepping 1 ms per call; how many allowed."""
    allowed = 0
    started = time.process_time()
    now = 0.0
    for i in range(calls):
        now += 0.001
        allowed += check(keys[i % len(keys)], now)
    return time.process_time() - started, allowed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    keys = [f"10.0.{i // 256}.{i % 256}" for i in range(args.keys)]
    item = RateLimitItemPerMinute(BURST)

    def ours() -> Callable[[str, float], bool]:
        buckets = Buckets(RATE, BURST)
        return lambda key, now: buckets.take(key, now) == 0.0

    def moving() -> Callable[[str, float], bool]:
        limiter = MovingWindowRateLimiter(MemoryStorage())
        return lambda key, _now: limiter.hit(item, key)

    def fixed() -> Callable[[str, float], bool]:
        limiter = FixedWindowRateLimiter(MemoryStorage())
        return lambda key, _now: limiter.hit(item, key)

    print(f"{args.calls:,} checks over {len(keys):,} keys, best of {args.repeat}")
    base = None
    for name, make in (
        ("ours: token bucket", ours),
        ("limits: moving window", moving),
        ("limits: fixed window", fixed),
    ):
        best = min(loop(args.calls, keys, make())[0] for _ in range(args.repeat))
        per_call = best / args.calls * 1e6
        base = base or per_call
        print(f"  {name:24} {per_call:6.2f} us/check  ({per_call / base:.1f}x ours)")


if __name__ == "__main__":
    main()
