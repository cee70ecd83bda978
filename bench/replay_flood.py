"""Benchmark: does a flood of requests for one long game's replay slow the actions at another table?

    .venv/bin/python bench/replay_flood.py [--window 3] [--actions 40] [--reads production|off]

A fresh SQLite server (TEST_SEED=11, so the long game is the same on every run) plays one 6-seat
game (a scripted player and five random bots, which make long games) to the end; then a flooder process asks for that
game's replay from four threads, each up to 5 times a second, in phases: on for `--window`
seconds, off for as long, by the wall clock. Meanwhile 3-seat games (a scripted player and two
bots) are played at another table until each phase has `--actions` of the player's actions. Prints
the player's action->ack p50/p90/p99 with the flood and without, what the flood was answered and
how many times the server computed the replay (1: it is computed once and served from memory).

`--reads production` keeps the production limit of costly reads (3 a second, burst 30), so part
of the flood from one address is answered 429; `off` lifts it, so every request is served.
`--cache-bytes 0` keeps no finished game in memory (REPLAY_CACHE_BYTES=0): each request of the
flood computes the replay again, as before the cache existed.
This was tests/server/test_published.py's timed test; the suite now asserts the computation count
instead, and this prints the times. Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import Server, percentile, terminate_on_sigterm  # noqa: E402
from tests.server.harness import (  # noqa: E402
    SeatClient,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

# Four threads asking for one URL, each up to 5 times a second (20/s in all: eight times the rate
# measured when each request recomputed the replay), in the "on" windows only, until
# interrupted; prints every status code. Paced so that the flooder itself does not take the CPU.
FLOOD = """
import signal, sys, threading, time, httpx
WINDOW = float(sys.argv[2])
codes, stop = [], threading.Event()
signal.signal(signal.SIGINT, lambda *_: stop.set())
def ask():
    with httpx.Client(timeout=20) as http:
        while not stop.is_set():
            began = time.time()
            if int(began / WINDOW) % 2:
                stop.wait(WINDOW - began % WINDOW)
                continue
            try:
                codes.append(http.get(sys.argv[1]).status_code)
            except httpx.HTTPError:
                codes.append(0)
            stop.wait(max(0.0, 0.2 - (time.time() - began)))
threads = [threading.Thread(target=ask, daemon=True) for _ in range(4)]
for t in threads: t.start()
print("ready", flush=True)
while not stop.wait(0.2):
    pass
for t in threads: t.join(timeout=30)
print(*codes, flush=True)
"""
READS = {
    "production": {"READ_RATE_PER_SECOND": "3", "READ_RATE_BURST": "30"},
    "off": {"READ_RATE_BURST": "0"},
}


@dataclass(eq=False)
class TimedClient(SeatClient):
    """A scripted person who notes how long each action waits for its ack."""

    sent_at: dict[str, tuple[float, float]] = field(default_factory=dict)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent, seconds to ack)

    async def send_action(self, action: dict[str, Any], action_id: str | None = None) -> str:
        self.counter += 1
        action_id = action_id or f"s{self.seat}-{self.counter}"
        self.sent_at[action_id] = (time.time(), time.perf_counter())
        return await super().send_action(action, action_id)

    def _absorb(self, m: dict[str, Any]) -> None:
        if m.get("type") == "ack" and m["action_id"] in self.sent_at:
            wall, began = self.sent_at.pop(m["action_id"])
            self.latencies.append((wall, time.perf_counter() - began))
        super()._absorb(m)


async def play_a_game(
    server: Server, seats: int, seed: int, kind: str = "heuristic"
) -> tuple[str, int, list[tuple[float, float]]]:
    """One person and bots of `kind` play a whole game: (game id, versions, the person's
    action->ack latencies)."""
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, seats, timed=False)
        person = await join(http, table_id, "Ann")
        await add_bots(http, person, seats - 1, kind)
        await start(http, person)
        client = TimedClient(
            server.ws, table_id, person.token, person.seat, bot_strategy(kind, seed)
        )
        await client.connect()
        await client.play_until_over(timeout=600)
        await client.close()
        table = await wait_game_over(http, table_id, 120)
    return str(table["game_id"]), int(client.version or 0), client.latencies


def _ms(values: list[float], q: float) -> str:
    value = percentile(values, q)
    return "n/a" if value is None else f"{value * 1000:.1f}"


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-flood-"))
    server = Server(
        {"DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'flood.sqlite3'}",
         "TEST_SEED": "11", "BOT_DELAY_SECONDS": "0", "RATE_PER_SECOND": "1000",
         "RATE_BURST": "2000", "HTTP_RATE_BURST": "0", **READS[args.reads],
         "REPLAY_CACHE_BYTES": str(args.cache_bytes)},
        workdir,
    )  # fmt: skip
    server.start()
    flooder: subprocess.Popen[str] | None = None
    try:
        long_game, versions, _ = await play_a_game(server, 6, seed=11, kind="random")
        replay = f"{server.http}/api/games/{long_game}/replay"
        size = len(httpx.get(replay, headers={"Accept-Encoding": "identity"}, timeout=60).content)
        flooder = subprocess.Popen(
            [sys.executable, "-c", FLOOD, replay, str(args.window)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert flooder.stdout is not None
        assert flooder.stdout.readline().strip() == "ready"
        samples: list[tuple[float, float]] = []
        window = args.window
        games = 0
        while True:
            samples += (await play_a_game(server, 3, seed=100 + games))[2]
            games += 1
            # An action sent in the first half second of a window is left out: the other
            # phase's requests may still be in flight then.
            steady = [(wall, took) for wall, took in samples if wall % window >= 0.5]
            flooded = [took for wall, took in steady if int(wall / window) % 2 == 0]
            quiet = [took for wall, took in steady if int(wall / window) % 2 == 1]
            if min(len(quiet), len(flooded)) >= args.actions:
                break
        flooder.send_signal(signal.SIGINT)
        out, _ = flooder.communicate(timeout=60)
        answered = [int(code) for code in out.split()]
        metrics = httpx.get(f"{server.http}/metrics", timeout=30).text
        computed = re.findall(
            r'dragonstones_game_documents_computed_total\{kind="replay"\} ([0-9.]+)', metrics
        )
        print(
            f"replay of {versions} versions, {size / 1e6:.2f} MB; reads limit: {args.reads}; "
            f"REPLAY_CACHE_BYTES={args.cache_bytes}"
        )
        print(f"{games} games at another table; the person's action->ack in ms:")
        print(f"{'':<14} {'actions':>8} {'p50':>8} {'p90':>8} {'p99':>8}")
        for label, values in (("without flood", quiet), ("with flood", flooded)):
            print(
                f"{label:<14} {len(values):>8} {_ms(values, 50):>8} {_ms(values, 90):>8} "
                f"{_ms(values, 99):>8}"
            )
        print(
            f"flood answers: {answered.count(200)} x 200, {answered.count(429)} x 429, "
            f"{len(answered) - answered.count(200) - answered.count(429)} other; "
            f"replay computed {computed[0] if computed else '?'} time(s)"
        )
    finally:
        if flooder is not None and flooder.poll() is None:
            flooder.kill()
            flooder.communicate()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=float, default=3.0, help="seconds on, then off")
    parser.add_argument("--actions", type=int, default=40, help="actions in each phase at least")
    parser.add_argument("--reads", choices=sorted(READS), default="production")
    parser.add_argument("--cache-bytes", type=int, default=64 * 1024 * 1024)
    terminate_on_sigterm()
    asyncio.run(main(parser.parse_args()))
