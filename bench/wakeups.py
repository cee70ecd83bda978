"""What this machine charges a process for waking up: an event loop that only sleeps. Prints
figures; asserts nothing.

    .venv/bin/python bench/wakeups.py [--seconds 4] [--gaps 1,5,20]

For each gap (milliseconds), the server's own event loop (uvloop) sleeps that long again and again
for --seconds, doing nearly nothing in between, and prints the CPU time charged per wakeup and as a
share of one core, read two ways: utime+stime from /proc/self/stat (what bench/load.py reads for
the server, in clock ticks) and the scheduler's exact run time from /proc/self/schedstat. It also
prints the voluntary context switches per wakeup (1: the process really slept each time).

Why: at a human pace (bench/load.py --pace) the server sleeps between most actions, while at
machine speed, and in boardgame.io's run, it never does. On a machine where a wakeup itself costs
a tenth of a millisecond or more (seen on the 2-core virtual machines of bench/RESULTS.md: 95 us at
1 ms gaps, 160 us at 5 ms, about 450 us at 20 ms), that is part of every paced action's figure,
whatever the server does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cpu_seconds


def _ticks() -> float:
    """utime + stime of this process, in seconds (as bench/load.py reads the server's)."""
    return cpu_seconds([os.getpid()])


def _run_time() -> float:
    """The scheduler's exact time on a CPU for this process, in seconds."""
    with open("/proc/self/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


async def _sleeps(seconds: float, gap: float) -> None:
    count = max(1, int(seconds / gap))
    ticks, run, switches = _ticks(), _run_time(), resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    started = time.perf_counter()
    for _ in range(count):
        await asyncio.sleep(gap)
    wall = time.perf_counter() - started
    ticks, run = _ticks() - ticks, _run_time() - run
    switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - switches
    print(
        f"gap {gap * 1000:5.1f} ms: {count} wakeups; "
        f"stat {ticks / count * 1e6:6.0f} us each ({ticks / wall * 100:5.2f}% of a core), "
        f"schedstat {run / count * 1e6:6.0f} us each ({run / wall * 100:5.2f}% of a core), "
        f"{switches / count:.2f} voluntary switches each"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per gap")
    parser.add_argument("--gaps", default="1,5,20", help="milliseconds, comma-separated")
    args = parser.parse_args()
    for gap in (float(g) / 1000 for g in args.gaps.split(",")):
        uvloop.run(_sleeps(args.seconds, gap))


if __name__ == "__main__":
    main()
