"""Issue 20: a finished game's replay and record are computed once, served with cache headers and
an ETag (304 on If-None-Match), and reads that cost are limited per address, so that flooding
the replay of a long game from one address does not slow another table down."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

ServerFactory = Callable[..., ServerProcess]
# The flood's phases: on for WINDOW seconds, off for WINDOW seconds, by the wall clock, so that
# the same game is measured with and without it under the same (shared, noisy) machine load.
WINDOW = 3.0
# Four threads asking for one URL, each up to 5 times a second (20/s in all: eight times the rate
# the issue measured, when each request recomputed the replay), in the "on" windows only, until
# interrupted; prints every status code. Paced so that the flooder itself does not take the test
# machine's CPU.
FLOOD = """
import signal, sys, threading, time, httpx
WINDOW = float(sys.argv[2])
codes, stop = [], threading.Event()
signal.signal(signal.SIGINT, lambda *_: stop.set())  # the test's signal to stop, at any moment
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
# The production limit on costly reads (the harness raises it for other tests).
PRODUCTION_READS = {"READ_RATE_PER_SECOND": "3", "READ_RATE_BURST": "30"}


@dataclass(eq=False)
class TimedClient(SeatClient):
    """A scripted person who notes how long each action waits for its ack."""

    sent_at: dict[str, tuple[float, float]] = field(default_factory=dict)
    # (wall-clock time sent, seconds until the ack) of each action
    latencies: list[tuple[float, float]] = field(default_factory=list)

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
    server: ServerProcess, seats: int, seed: int
) -> tuple[str, list[tuple[float, float]]]:
    """One person and bots play a whole game; (game id, the person's action→ack latencies)."""
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, seats)
        person = await join(http, table_id, "Ann")
        await add_bots(http, person, seats - 1)
        await start(http, person)
        client = TimedClient(
            server.ws, table_id, person.token, person.seat, bot_strategy("heuristic", seed)
        )
        await client.connect()
        await client.play_until_over(timeout=300)
        await client.close()
        table = await wait_game_over(http, table_id)
    return str(table["game_id"]), client.latencies


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def p99(values: list[float]) -> float:
    return percentile(values, 0.99)


def p90(values: list[float]) -> float:
    return percentile(values, 0.90)


async def test_a_finished_game_is_computed_once_and_cached_for_good(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    game_id, _ = await play_a_game(server, 3, seed=5)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        for path in (f"/api/games/{game_id}/replay", f"/api/games/{game_id}"):
            # Eight at once on a cold process: one computation.
            answers = await asyncio.gather(*(http.get(path) for _ in range(8)))
            assert {r.status_code for r in answers} == {200}
            assert len({r.content for r in answers}) == 1
            first = answers[0]
            assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
            etag = first.headers["etag"]
            # httpx asks for gzip: the compressed copy, with an ETag of its own.
            assert first.headers["content-encoding"] == "gzip"
            assert re.fullmatch(r'"[0-9a-f]{32}-gzip"', etag), etag
            plain = await http.get(path, headers={"Accept-Encoding": "identity"})
            assert "content-encoding" not in plain.headers and plain.content == first.content
            assert plain.headers["etag"] == etag.replace("-gzip", "")
            assert {r.headers["etag"] for r in answers} == {etag}
            assert first.json()["id"] == game_id
            # The copy the client has is still good: 304, no body.
            for header in (etag, f"W/{etag}", f'"something-else", {etag}', "*",
                           plain.headers["etag"]):  # fmt: skip
                again = await http.get(path, headers={"If-None-Match": header})
                assert again.status_code == 304, header
                assert again.content == b"" and again.headers["etag"] == etag
                assert "immutable" in again.headers["cache-control"]
            changed = await http.get(path, headers={"If-None-Match": '"not-this-one"'})
            assert changed.status_code == 200 and changed.content == first.content
        metrics = (await http.get("/metrics")).text
        computed = dict(
            re.findall(
                r'dragonstones_game_documents_computed_total\{kind="(\w+)"\} ([0-9.]+)', metrics
            )
        )
        assert computed == {"replay": "1.0", "record": "1.0"}, computed
        # A game not over is not cached (nor published): asked again, still refused.
        table_id = await create_table(http, 3)
        host = await join(http, table_id, "Host")
        await add_bots(http, host, 2)
        playing = (await start(http, host))["game_id"]
        for _ in range(2):
            r = await http.get(f"/api/games/{playing}/replay")
            assert (r.status_code, r.json()["detail"]["code"]) == (409, "not_over")
            assert "cache-control" not in r.headers


async def test_costly_reads_have_a_limit_of_their_own(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    # The production burst; a refill slow enough that a loaded test machine changes nothing.
    server = server_factory(
        sqlite_db, READ_RATE_BURST="30", READ_RATE_PER_SECOND="0.01", HTTP_RATE_BURST="5"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        codes = [(await http.get("/api/tables")).status_code for _ in range(40)]
        assert codes == [200] * 30 + [429] * 10, codes
        refused = await http.get("/api/tables?status=playing")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert refused.json()["detail"]["code"] == "rate_limited"
        assert (await http.get("/api/games/no-such-game")).status_code == 429
        assert (await http.get("/api/games/no-such-game/replay")).status_code == 429
        # One table, the pages and the changing calls are not in that bucket.
        table_id = await create_table(http, 3)
        assert (await http.get(f"/api/tables/{table_id}")).status_code == 200
        assert (await http.get("/healthz")).status_code == 200
        # Another address has its own.
        other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(
            base_url=server.http, timeout=30, transport=other
        ) as elsewhere:
            assert (await elsewhere.get("/api/tables")).status_code == 200


@pytest.mark.serial  # a latency comparison: alone, after the parallel tests
async def test_a_replay_flood_does_not_slow_another_table(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db, **PRODUCTION_READS)
    # A long finished game: six seats.
    long_game, _ = await play_a_game(server, 6, seed=11)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        size = len((await http.get(f"/api/games/{long_game}/replay")).content)

    # Games at another table while the flood runs in phases: on for WINDOW seconds, then off.
    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOOD, f"{server.http}/api/games/{long_game}/replay", str(WINDOW)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    samples: list[tuple[float, float]] = []

    def phases() -> tuple[list[float], list[float]]:
        # An action sent in the first half second of a window is left out: the other phase's
        # requests may still be in flight then.
        steady = [(wall, took) for wall, took in samples if wall % WINDOW >= 0.5]
        flooded = [took for wall, took in steady if int(wall / WINDOW) % 2 == 0]
        quiet = [took for wall, took in steady if int(wall / WINDOW) % 2 == 1]
        return flooded, quiet

    # Games until both phases have enough actions: on a quiet machine a game can end within
    # one window; on a busy one two games span many.
    deadline = time.monotonic() + 240
    try:
        # The flood is on (its signal handler set) before the games start.
        assert flooder.stdout is not None
        ready = await asyncio.wait_for(asyncio.to_thread(flooder.stdout.readline), 60)
        assert ready.strip() == "ready", ready
        for seed in range(3, 100):
            samples += (await play_a_game(server, 3, seed=seed))[1]
            flooded, quiet = phases()
            if min(len(quiet), len(flooded)) >= 20 or time.monotonic() > deadline:
                break
    finally:
        flooder.send_signal(signal.SIGINT)
        try:
            out, _ = flooder.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            # Never left behind: its pipe would warn in a later test (as it once did).
            flooder.kill()
            flooder.communicate()
            raise
    answered = [int(code) for code in out.split()]
    assert len(quiet) >= 20 and len(flooded) >= 20, (len(quiet), len(flooded))
    print(
        f"replay of {size / 1e6:.2f} MB; action→ack p90/p99 without the flood "
        f"{p90(quiet) * 1000:.1f}/{p99(quiet) * 1000:.1f} ms ({len(quiet)} actions), with it "
        f"{p90(flooded) * 1000:.1f}/{p99(flooded) * 1000:.1f} ms "
        f"({len(flooded)} actions); flood answers: {answered.count(200)}×200, "
        f"{answered.count(429)}×429"
    )
    # Whether the flood reaches its read limit depends on how long the games last; the limit
    # itself is tested in test_costly_reads_have_a_limit_of_their_own.
    assert answered.count(200) >= 4, answered
    # The 90th percentiles within 2x; a quiet one below 25 ms counts as 25 ms. Not the p99: of
    # some 40 to 140 actions that is the slowest one or two, which a busy machine's scheduling
    # decides (a loaded CI run: 26 ms quiet, 269 ms flooded, two actions of 137, the others as
    # quiet). The flood this guards against, a replay computed per request, slowed every action
    # by seconds.
    assert p90(flooded) <= 2 * max(p90(quiet), 0.025), (p90(quiet), p90(flooded))
