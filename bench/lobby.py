"""Benchmark: the server's CPU per lobby call, tables made and seats taken over HTTP.

    .venv/bin/python bench/lobby.py [--tables 400] [--at-once 8]
        [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]

Starts `dragonstones serve` on a fresh Postgres schema (dropped at the end), makes `--tables` tables
of 4 seats, `--at-once` requests under way at a time, each table from its own loopback address as
bench/load.py does (the lobby limits empty tables per address), then takes their seats (4 joins a
table, no socket open). Prints the server's CPU (utime+stime from /proc) per create and per join,
and the wall time. Every game of bench/load.py that ends is replaced by one such create and 4
joins (and a start and 4 sockets), and bench/load.py sets its games up this way. Then the first
seat starts each table's game (no socket open: the CPU of the start alone), printed per start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    Lobby,
    Server,
    cpu_seconds,
    create_schema,
    drop_schema,
    new_schema_name,
    server_env,
    source_address,
)

PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
ADDRESSES = 250  # source_address cycles through this many


async def measure(server: Server, tables: int, at_once: int) -> None:
    lobbies = [Lobby(server.http, source_address(n)) for n in range(min(tables, ADDRESSES))]
    gate = asyncio.Semaphore(at_once)
    made: list[tuple[int, str]] = []
    hosts: list[tuple[int, str, str]] = []  # (n, table, the first seat's token)

    async def create(n: int) -> None:
        async with gate:
            made.append((n, await lobbies[n % ADDRESSES].create_table(4)))

    async def join(n: int, table_id: str, seat: int) -> None:
        async with gate:
            taken, token = await lobbies[n % ADDRESSES].join(table_id, f"P{seat}")
            if taken == 0:
                hosts.append((n, table_id, token))

    async def start(n: int, table_id: str, token: str) -> None:
        async with gate:
            await lobbies[n % ADDRESSES].start(table_id, token)

    try:
        for what, calls in (
            ("create", lambda: [create(n) for n in range(tables)]),
            ("join", lambda: [join(n, t, s) for n, t in made for s in range(4)]),
            ("start", lambda: [start(n, t, token) for n, t, token in hosts]),
        ):
            await asyncio.sleep(1.0)  # what the previous step set off settles
            work = calls()
            cpu0, t0 = cpu_seconds([server.pid]), time.perf_counter()
            await asyncio.gather(*work)
            cpu, wall = cpu_seconds([server.pid]) - cpu0, time.perf_counter() - t0
            print(
                f"{what}: {cpu / len(work) * 1000:.2f} ms of server CPU each "
                f"({len(work)} calls in {wall:.1f} s, {len(work) / wall:.0f}/s, "
                f"server {cpu / wall:.0%} of a core)",
                flush=True,
            )
    finally:
        for lobby in lobbies:
            await lobby.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--at-once", type=int, default=8)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", PG_URL))
    args = parser.parse_args()
    schema = new_schema_name("bench_lobby")
    create_schema(args.database_url, schema)
    try:
        env = server_env(
            args,
            args.database_url,
            schema,
            HTTP_RATE_BURST="0",
            MAX_EMPTY_TABLES_PER_ADDRESS="0",
        )
        with tempfile.TemporaryDirectory() as workdir:
            server = Server(env, Path(workdir), "lobby")
            server.start()
            try:
                asyncio.run(measure(server, args.tables, args.at_once))
            finally:
                server.stop()
    finally:
        drop_schema(args.database_url, schema)
    return 0


if __name__ == "__main__":
    sys.exit(main())
