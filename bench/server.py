"""Benchmark: WebSocket actions per second and action latency on a local server.

    .venv/bin/python bench/server.py [--games 8] [--seats 4] [--database-url URL]

Starts `dragonstones serve` on 127.0.0.1 (a temporary SQLite file unless --database-url is given),
then plays `--games` games at once, each with one scripted person who answers at machine speed and
bots (no delay) in the other seats. Prints committed actions per second (bots included) and the
latency of the person's actions, from sending to the ack (which follows the commit).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
)


async def play(
    server: ServerProcess, http: httpx.AsyncClient, seats: int, n: int
) -> tuple[int, list[float]]:
    table_id = await create_table(http, seats)
    person = await join(http, table_id, f"Bench{n}")
    await add_bots(http, person, seats - 1, "heuristic")
    client = SeatClient(
        server.ws, table_id, person.token, person.seat, bot_strategy("heuristic", n)
    )
    sent_at: dict[str, float] = {}
    latencies: list[float] = []

    def stamp(c: SeatClient, prompt: dict[str, object], action: dict[str, object]) -> None:
        sent_at[f"s{c.seat}-{c.counter + 1}"] = time.perf_counter()

    client.before_send = stamp  # type: ignore[assignment]
    await client.connect()
    await start(http, person)
    await client.maybe_act()
    while not (client.over and client.pending is None):
        message = await client.recv(timeout=120)
        if message["type"] == "ack" and message["action_id"] in sent_at:
            latencies.append(time.perf_counter() - sent_at.pop(message["action_id"]))
        await client.maybe_act()
    await client.close()
    assert client.version is not None
    return client.version, latencies


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if args.database_url:
            db = Database(url=args.database_url, schema=args.database_schema)
        else:
            db = Database(url=f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}")
        server = ServerProcess(db, workdir, SQLITE_SYNCHRONOUS=args.sqlite_synchronous)
        server.start()
        try:
            async with httpx.AsyncClient(base_url=server.http, timeout=60) as http:
                began = time.perf_counter()
                results = await asyncio.gather(
                    *(play(server, http, args.seats, n) for n in range(args.games))
                )
                elapsed = time.perf_counter() - began
        finally:
            server.stop()
    actions = sum(v for v, _ in results)
    latencies = sorted(x for _, lat in results for x in lat)
    print(
        f"database:          {db.backend} (synchronous={args.sqlite_synchronous})"
        if db.backend == "sqlite"
        else f"database:          {db.backend}"
    )
    print(f"games:             {args.games} x {args.seats} seats, played at once")
    print(f"committed actions: {actions} in {elapsed:.2f} s = {actions / elapsed:.0f} actions/s")
    if latencies:
        q = statistics.quantiles(latencies, n=100)
        print(
            f"person's action -> ack latency over {len(latencies)} actions: "
            f"median {statistics.median(latencies) * 1000:.1f} ms, p95 {q[94] * 1000:.1f} ms, "
            f"p99 {q[98] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--database-schema", default=None)
    parser.add_argument("--sqlite-synchronous", default="FULL")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
