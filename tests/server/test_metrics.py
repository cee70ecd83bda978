"""/metrics before and after a whole game: every counter moves by exactly what happened."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
)

SAMPLE = re.compile(r"^(dragonstones_[a-z_]+)(\{[^}]*\})? (\S+)$")


async def scrape(http: httpx.AsyncClient) -> dict[str, float]:
    r = await http.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    out = {}
    for line in r.text.splitlines():
        m = SAMPLE.match(line)
        if m:
            out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


async def test_metrics_count_a_whole_game(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        before = await scrape(http)
        assert before["dragonstones_games_live"] == 0
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "random")
        player = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("random", 1))
        watcher = SeatClient(server.ws, table_id, None, None)
        for client in (player, watcher):
            await client.connect()
            await client.wait_for(lambda m: m["type"] == "table")
        during = await scrape(http)
        assert during['dragonstones_sockets_open{role="player"}'] == 1
        assert during['dragonstones_sockets_open{role="spectator"}'] == 1
        await start(http, ann)
        await player.wait_for(lambda m: m["type"] == "state")
        assert (await scrape(http))["dragonstones_games_live"] == 1
        # One refusal, counted by its code (a choice when the prompt is a bid).
        await player.send_json(
            {"type": "action", "action": {"type": "choose", "option": "x"}, "action_id": "bad-1"}
        )
        refused = await player.wait_for(lambda m: m["type"] == "error")
        await player.play_until_over(timeout=120)
        await player.close()
        await watcher.close()
        after = await scrape(http)
        for _ in range(50):  # the server notices the closed sockets a moment later
            if (
                after['dragonstones_sockets_open{role="player"}'] == 0
                and after['dragonstones_sockets_open{role="spectator"}'] == 0
            ):
                break
            await asyncio.sleep(0.1)
            after = await scrape(http)

    rows = await db_rows(database, "SELECT seat, action FROM actions")
    kinds = Counter(
        (r.action if isinstance(r.action, dict) else json.loads(r.action))["type"] for r in rows
    )
    for kind in ("bid", "tiebreak", "choose"):
        key = f'dragonstones_actions_committed_total{{kind="{kind}"}}'
        assert after.get(key, 0) - before.get(key, 0) == kinds.get(kind, 0), kind
    assert sum(kinds.values()) == len(rows) > 10
    assert after["dragonstones_commit_seconds_count"] - before[
        "dragonstones_commit_seconds_count"
    ] == len(rows)
    # Every action of the game was acknowledged (bots' included), plus none refused.
    assert after["dragonstones_action_ack_seconds_count"] == len(rows)
    code = f'dragonstones_errors_total{{code="{refused["code"]}"}}'
    assert after[code] - before.get(code, 0) == 1
    assert after["dragonstones_games_live"] == 0
    assert after['dragonstones_sockets_open{role="player"}'] == 0
    assert after['dragonstones_sockets_open{role="spectator"}'] == 0
    assert after["dragonstones_version_conflicts_total"] == 0


async def test_the_collectors_pauses_are_timed_by_generation(shared_server: ServerProcess) -> None:
    """Every collection of the server's garbage collector is a pause of all its games: each is
    timed by generation, from the full one the server makes at its start."""
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        seen = await scrape(http)
    name = "dragonstones_gc_pause_seconds"
    for g in "012":
        count = seen[f'{name}_count{{generation="{g}"}}']
        assert seen[f'{name}_bucket{{generation="{g}",le="+Inf"}}'] == count
        assert seen[f'{name}_sum{{generation="{g}"}}'] >= 0
    assert seen[f'{name}_count{{generation="2"}}'] >= 1  # the start's
    assert seen[f'{name}_sum{{generation="2"}}'] > 0
