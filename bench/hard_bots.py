"""Benchmark: do hard bots thinking at other tables slow down the people at a table?

    .venv/bin/python bench/hard_bots.py [--bot-tables 10] [--seconds 30] [--budget 0.3]
        [--workers 1] [--database-url sqlite+aiosqlite:///...] [--json]

Three runs, each with a fresh server (`python -m app.cli serve`, BOT_DELAY_SECONDS=0, its own
SQLite file unless --database-url) and a table of three people playing at machine speed from this
process (each answers its prompt the moment it arrives, uniformly within its limits):
  1. the people's table alone;
  2. the same, plus `--bot-tables` tables of three hard bots each (HARD_BOT_SECONDS=--budget,
     HARD_BOT_WORKERS=--workers), whose fourth seat, the host's, answers at once with the
     smallest move; a finished game is replaced by a new one;
  3. the people's table alone again (the machine is shared: the reference is the mean of 1 and 3).
It prints the people's action -> ack latency (p50, p99) in each run and the ratio of run 2's p99 to
the reference (the target: at most 1.5), and how many actions the hard bots' tables made in run 2.
Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Server, ms, server_env
from bench.people import PeopleRun, p99_ratio, smallest


class Run(PeopleRun):
    """The people's table (bench/people.py) beside tables of three hard bots."""

    def __init__(self, server: Server, seconds: float, warmup: float) -> None:
        super().__init__(server, seconds, warmup)
        self.bot_table_actions = 0  # versions the hard bots' tables advanced, inside the window

    def saw_state(self, seat: int, people: bool, version: int, previous: int) -> None:
        if not people and seat == 0 and self.inside():
            self.bot_table_actions += max(0, version - previous)

    async def bot_table(self, n: int) -> None:
        """Three hard bots and the host's seat (the smallest move), game after game."""
        rng = random.Random(n)
        while not self.stop.is_set():
            table_id = await self.lobby.create_table(4)
            seats = [await self.lobby.join(table_id, "Host")]
            await self.lobby.call(
                "POST",
                f"/api/tables/{table_id}/bots",
                seats[0][1],
                json={"count": 3, "kind": "hard"},
            )
            await self.lobby.start(table_id, seats[0][1])
            await asyncio.gather(
                *(self.seat(table_id, seat, token, smallest, False, rng) for seat, token in seats)
            )

    async def run(self, bot_tables: int) -> dict[str, Any]:
        people = await self.measure([self.bot_table(n) for n in range(bot_tables)])
        return {
            "bot_tables": bot_tables,
            "acks": people["acks"],
            "p50": people["p50"],
            "p99": people["p99"],
            "bot_table_actions": self.bot_table_actions,
            "server_cpu_seconds": people["server_cpu_seconds"],
        }


def one_run(args: argparse.Namespace, bot_tables: int, workdir: Path) -> dict[str, Any]:
    url = (
        args.database_url or f"sqlite+aiosqlite:///{workdir}/bench-{bot_tables}-{time.time_ns()}.db"
    )
    env = server_env(
        args,
        url,
        None,
        HARD_BOT_SECONDS=str(args.budget),
        HARD_BOT_WORKERS=str(args.workers),
        HTTP_RATE_PER_SECOND="1000",
        HTTP_RATE_BURST="2000",
        MAX_SOCKETS_PER_ADDRESS="1000",
    )
    server = Server(env, workdir, name=f"hard-{bot_tables}")
    server.start()
    try:
        return asyncio.run(Run(server, args.seconds, args.warmup).run(bot_tables))
    finally:
        server.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot-tables", type=int, default=10)
    p.add_argument("--seconds", type=float, default=30.0, help="measured window of each run")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--budget", type=float, default=0.3, help="HARD_BOT_SECONDS")
    p.add_argument("--workers", type=int, default=1, help="HARD_BOT_WORKERS")
    p.add_argument("--database-url", default=None, help="default: a SQLite file per run")
    p.add_argument("--server-env", action="append", metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hard-") as tmp:
        runs = [one_run(args, n, Path(tmp)) for n in (0, args.bot_tables, 0)]
    ref, ratio = p99_ratio(runs)
    out = {
        "runs": runs,
        "reference_p99": ref,
        "p99_ratio": ratio,
        "budget": args.budget,
        "workers": args.workers,
        "seconds": args.seconds,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    for name, r in zip(
        ("alone", f"with {args.bot_tables} hard-bot tables", "alone again"), runs, strict=True
    ):
        print(
            f"{name:<28} people's acks {r['acks']:>6}  action->ack p50 {ms(r['p50'])}  "
            f"p99 {ms(r['p99'])}  hard tables' actions {r['bot_table_actions']}  "
            f"server CPU {r['server_cpu_seconds']} s"
        )
    print(
        f"p99 with the hard bots / reference (mean of the two alone): "
        f"{'-' if ratio is None else f'{ratio:.2f}'} (target <= 1.5)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
