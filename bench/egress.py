"""Benchmark: what the large HTTP answers weigh on the wire, with gzip and without.

    .venv/bin/python bench/egress.py [--games 4] [--tables 100]

Plays `--games` 6-seat games (one scripted player and five random bots, which make long games)
on a fresh SQLite server, then for the longest game's replay and record, the list of `--tables`
open tables, the table page's script and the stylesheet prints the bytes sent with
`Accept-Encoding: gzip` and without, and the median time of 20 fetches of each (the replay and the
record are computed once, then served from memory). Traffic goes only to 127.0.0.1.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import Server, terminate_on_sigterm  # noqa: E402
from tests.server.harness import (  # noqa: E402
    SeatClient,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

UNLIMITED = {
    "HTTP_RATE_BURST": "0",
    "READ_RATE_BURST": "0",
    "SOCKET_RATE_BURST": "0",
    "MAX_SOCKETS_PER_ADDRESS": "1000",
}


async def _game(server: Server, http: httpx.AsyncClient, seed: int) -> tuple[str, int]:
    table_id = await create_table(http, 6, timed=False)
    person = await join(http, table_id, "Ann")
    await add_bots(http, person, 5, "random")
    client = SeatClient(
        server.ws, table_id, person.token, person.seat, bot_strategy("random", seed)
    )
    await client.connect()
    await start(http, person)
    await client.play_until_over(600)
    await client.close()
    table = await wait_game_over(http, table_id, 120)
    return str(table["game_id"]), int(client.version or 0)


async def _measure(http: httpx.AsyncClient, path: str, encoding: str) -> tuple[int, float]:
    """(bytes on the wire, median seconds) of 20 fetches."""
    sizes, times = [], []
    for _ in range(20):
        began = time.perf_counter()
        request = http.build_request("GET", path, headers={"Accept-Encoding": encoding})
        response = await http.send(request, stream=True)
        raw = b"".join([chunk async for chunk in response.aiter_raw()])
        await response.aclose()
        times.append(time.perf_counter() - began)
        assert response.status_code == 200, (path, response.status_code)
        sizes.append(len(raw))
    return sizes[-1], statistics.median(times)


async def main(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-egress-"))
    server = Server(
        {"DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'egress.sqlite3'}",
         "BOT_DELAY_SECONDS": "0", "RATE_PER_SECOND": "1000", "RATE_BURST": "2000", **UNLIMITED},
        workdir,
    )  # fmt: skip
    server.start()
    try:
        async with httpx.AsyncClient(base_url=server.http, timeout=120) as http:
            games = [await _game(server, http, seed) for seed in range(args.games)]
            game_id, versions = max(games, key=lambda g: g[1])
            for n in range(args.tables):
                await create_table(http, 3 + n % 4, timed=n % 2 == 0)
            print(f"longest of {args.games} 6-seat games: {versions} versions ({game_id})")
            print(f"{'answer':<34} {'identity':>12} {'gzip':>12} {'ratio':>7} "
                  f"{'identity ms':>12} {'gzip ms':>9}")  # fmt: skip
            for label, path in (
                ("replay (6 seats)", f"/api/games/{game_id}/replay"),
                ("record (6 seats)", f"/api/games/{game_id}"),
                (f"list of {args.tables} open tables", "/api/tables"),
                ("/static/js/table.js", "/static/js/table.js"),
                ("/static/css/app.css", "/static/css/app.css"),
            ):
                plain, plain_s = await _measure(http, path, "identity")
                zipped, zipped_s = await _measure(http, path, "gzip")
                print(f"{label:<34} {plain:>12,} {zipped:>12,} {zipped / plain:>7.1%} "
                      f"{plain_s * 1000:>12.1f} {zipped_s * 1000:>9.1f}")  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--tables", type=int, default=100)
    terminate_on_sigterm()
    asyncio.run(main(parser.parse_args()))
