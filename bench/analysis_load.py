"""Benchmark: do analyses of finished games slow down the people at a table? The hard bots'
bench (bench/hard_bots.py), with analyses running instead of hard-bot tables: the same people's
table (bench/people.py).

    .venv/bin/python bench/analysis_load.py [--analyses 3] [--seconds 30] [--worlds 40]
        [--workers 1] [--json]

Three runs, each with a fresh server (its own SQLite file): before each, `--analyses` games of a
host (the smallest move) and two heuristic bots are played to the end; in run 2 their analyses
are then asked for (`GET /api/games/{id}/analysis`, ANALYSIS_WORLDS=--worlds,
ANALYSIS_WORKERS=--workers) and run while a table of three people plays at machine speed; runs 1
and 3 play the same without asking (the reference, the mean of the two). It prints the people's
action -> ack latency (p50, p99), the ratio of run 2's p99 to the reference (target: at most 1.5)
and how far the analyses got. Traffic goes only to 127.0.0.1.
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


class AnalysisRun(PeopleRun):
    """The people's table (bench/people.py), with finished games' analyses running."""

    async def finished_game(self, n: int) -> str:
        table_id = await self.lobby.create_table(3)
        seat, token = await self.lobby.join(table_id, "Host")
        await self.lobby.add_bots(table_id, token, 2)
        await self.lobby.start(table_id, token)
        await self.seat(table_id, seat, token, smallest, False, random.Random(n))
        table = await self.lobby.call("GET", f"/api/tables/{table_id}")
        return str(table["game_id"])

    async def with_analyses(self, games: int, ask: bool) -> dict[str, Any]:
        game_ids = [await self.finished_game(n) for n in range(games)]
        if ask:
            for game_id in game_ids:
                await self.lobby.call("GET", f"/api/games/{game_id}/analysis")
        result = await self.measure([])
        # measure() closed its lobby: a new one to read how far the analyses got.
        self.lobby = type(self.lobby)(self.server.http, "127.0.0.1")
        progress = []
        for game_id in game_ids if ask else []:
            a = await self.lobby.call("GET", f"/api/games/{game_id}/analysis")
            progress.append(f"{a['done']}/{a['total']}")
        await self.lobby.close()
        return {**result, "analyses": progress}


def one_run(args: argparse.Namespace, ask: bool, workdir: Path) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{workdir}/bench-{int(ask)}-{time.time_ns()}.db"
    env = server_env(
        args,
        url,
        None,
        ANALYSIS_WORLDS=str(args.worlds),
        ANALYSIS_WORKERS=str(args.workers),
        HTTP_RATE_PER_SECOND="1000",
        HTTP_RATE_BURST="2000",
        MAX_SOCKETS_PER_ADDRESS="1000",
    )
    server = Server(env, workdir, name=f"analysis-{int(ask)}")
    server.start()
    try:
        run = AnalysisRun(server, args.seconds, args.warmup)
        return asyncio.run(run.with_analyses(args.analyses, ask))
    finally:
        server.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--analyses", type=int, default=3)
    p.add_argument("--seconds", type=float, default=30.0, help="measured window of each run")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--worlds", type=int, default=40, help="ANALYSIS_WORLDS")
    p.add_argument("--workers", type=int, default=1, help="ANALYSIS_WORKERS")
    p.add_argument("--server-env", action="append", metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        runs = [one_run(args, ask, Path(tmp)) for ask in (False, True, False)]
    ref, ratio = p99_ratio(runs)
    if args.json:
        print(json.dumps({"runs": runs, "reference_p99": ref, "p99_ratio": ratio}))
        return 0
    names = ("alone", f"with {args.analyses} analyses", "alone again")
    for name, r in zip(names, runs, strict=True):
        print(
            f"{name:<22} people's acks {r['acks']:>6}  action->ack p50 {ms(r['p50'])}  "
            f"p99 {ms(r['p99'])}  server CPU {r['server_cpu_seconds']} s  "
            f"analyses done {', '.join(r['analyses']) or '-'}"
        )
    print(
        f"p99 with the analyses / reference (mean of the two alone): "
        f"{'-' if ratio is None else f'{ratio:.2f}'} (target <= 1.5)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
