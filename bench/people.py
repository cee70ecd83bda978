"""The people's table of the load benchmarks (bench/hard_bots.py, bench/analysis_load.py): three
people playing at machine speed over real sockets while something else loads the server, their
action -> ack latency inside a measured window, and the ratio of a loaded run's p99 to the runs
alone; the smallest move, for the seats that load the server. Talks to the server only through
its protocol."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Coroutine
from typing import Any

from bench.common import Lobby, Server, cpu_seconds, decide, percentile
from tests.moves import smallest as smallest_move


def smallest(prompt: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The smallest move (tests/moves.py), as a seat's strategy."""
    return smallest_move(prompt)


def p99_ratio(runs: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """Three runs (alone, loaded, alone again): the reference p99 (the mean of the two alone, the
    machine being shared) and the loaded run's p99 over it."""
    refs = [r["p99"] for r in (runs[0], runs[2]) if r["p99"] is not None]
    ref = sum(refs) / len(refs) if refs else None
    ratio = runs[1]["p99"] / ref if ref and runs[1]["p99"] is not None else None
    return ref, ratio


class PeopleRun:
    """A table of three people playing at machine speed from this process (each answers its
    prompt the moment it arrives, uniformly within its limits; a finished game is replaced by a
    new one) while something else loads the server: their action -> ack latencies inside a
    measured window (after a warm-up), and the server's CPU time in it."""

    def __init__(self, server: Server, seconds: float, warmup: float) -> None:
        self.server = server
        self.lobby = Lobby(server.http, "127.0.0.1")
        self.stop = asyncio.Event()
        self.window = (0.0, 0.0)
        self.seconds, self.warmup = seconds, warmup
        self.latencies: list[float] = []  # the people's action -> ack, inside the window

    def inside(self) -> bool:
        return self.window[0] <= time.monotonic() <= self.window[1]

    def saw_state(self, seat: int, people: bool, version: int, previous: int) -> None:
        """Called with every state a seat reads (for a subclass counting another table's moves)."""

    async def seat(
        self, table_id: str, seat: int, token: str, policy: Any, people: bool, rng: random.Random
    ) -> None:
        """Play one seat until the game is over (or the run stops); a person's acks are timed."""
        from websockets.asyncio.client import connect

        url = f"{self.server.ws}/ws/tables/{table_id}?token={token}"
        async with connect(url, max_size=None) as ws:
            pending: tuple[str, float] | None = None
            prompt: dict[str, Any] | None = None
            version, counter = 0, 0
            async for raw in ws:
                m = json.loads(raw)
                if m["type"] == "state":
                    self.saw_state(seat, people, m["version"], version)
                    version = m["version"]
                    prompt = next(
                        (
                            p
                            for p in m["prompts"]
                            if p["seat"] == seat and ("max" in p or "options" in p)
                        ),
                        None,
                    )
                    if m["view"]["winner"] is not None:
                        return
                elif m["type"] == "ack" and pending and m["action_id"] == pending[0]:
                    if people and self.inside() and not m.get("duplicate"):
                        self.latencies.append(time.monotonic() - pending[1])
                    pending = None
                elif m["type"] == "error" and pending and m.get("action_id") == pending[0]:
                    pending = None
                if self.stop.is_set():
                    return
                if pending is None and prompt is not None:
                    counter += 1
                    action_id = f"s{seat}-{counter}"
                    pending = (action_id, time.monotonic())
                    await ws.send(
                        json.dumps(
                            {
                                "type": "action",
                                "action": policy(prompt, rng),
                                "action_id": action_id,
                            }
                        )
                    )

    async def people_table(self, n: int) -> None:
        """Ann, Bob and Cy play game after game until the run stops."""
        rng = random.Random(n)
        while not self.stop.is_set():
            table_id = await self.lobby.create_table(3)
            seats = [await self.lobby.join(table_id, name) for name in ("Ann", "Bob", "Cy")]
            await self.lobby.start(table_id, seats[0][1])
            await asyncio.gather(
                *(self.seat(table_id, seat, token, decide, True, rng) for seat, token in seats)
            )

    async def measure(self, load: list[Coroutine[Any, Any, None]]) -> dict[str, Any]:
        """Run the people's table beside `load` through the warm-up and the window, then stop
        everything: the people's acks and latencies (p50, p99), the server's CPU seconds."""
        tasks = [asyncio.create_task(c) for c in load]
        tasks.append(asyncio.create_task(self.people_table(1000)))
        start = time.monotonic() + self.warmup
        self.window = (start, start + self.seconds)
        await asyncio.sleep(self.warmup)
        cpu0 = cpu_seconds([self.server.pid])
        await asyncio.sleep(self.seconds)
        cpu = cpu_seconds([self.server.pid]) - cpu0
        self.stop.set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.lobby.close()
        return {
            "acks": len(self.latencies),
            "p50": percentile(self.latencies, 50),
            "p99": percentile(self.latencies, 99),
            "server_cpu_seconds": round(cpu, 2),
        }
