"""Slow tables (play over days): a decision waits 24 hours, a seat left alone past it plays the
default, a player away for two limits gets a stand-in and the seat back on return, and a restart in
the middle of the days keeps everything. The server's clock is moved, never waited for."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

from tests import deals
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    advance,
    bot_strategy,
    db_rows,
    join,
    start,
    stop_tasks,
    wait_game_over,
)
from tests.server.timed import Scripted, is_notice, notices, stamp

DAY = 24 * 3600  # SLOW_DECISION_HOURS' default


def _time_outs_of(client: SeatClient, seat: int) -> int:
    return sum(1 for e in client.events if e["type"] == "timed_out" and e["seat"] == seat)


def _timed_out(client: SeatClient, seat: int, times: int) -> bool:
    return _time_outs_of(client, seat) >= times


def _waits_only_for(client: SeatClient, seat: int) -> bool:
    return [p["seat"] for p in client.prompts] == [seat]


async def _until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait (for the sockets read meanwhile, not for time) until `check()` holds."""
    ends = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < ends, f"not reached within {timeout} s: {what}"
        await asyncio.sleep(0.02)


async def _stop(tasks: list[asyncio.Task[None]], clients: list[SeatClient]) -> None:
    await stop_tasks(*tasks)
    for client in clients:
        await client.close()


async def test_a_slow_game_of_three_is_played_over_days_across_a_restart(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(
        database, TEST_SEED=str(deals.FULL_GAME_SEED), TEST_CLOCK="0"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post("/api/tables", json={"seats": 3, "pace": "slow"})
        assert r.status_code == 201, r.text
        table = r.json()
        assert (table["turn_seconds"], table["choose_seconds"]) == (DAY, DAY)
        assert table["grace_seconds"] == 2 * DAY  # away for two limits: a stand-in
        table_id = table["id"]
        ann, bob, sil = [await join(http, table_id, name) for name in ("Ann", "Bob", "Sil")]
        # Ann and Bob answer at once; Sil is away (no socket) for the first days.
        players = [
            Scripted(server.ws, table_id, s.token, s.seat, strategy=bot_strategy("heuristic", i))
            for i, s in enumerate((ann, bob))
        ]
        watcher = SeatClient(server.ws, table_id, None, None)
        await watcher.connect()
        for p in players:
            await p.connect()
        await start(http, ann)
        tasks = [asyncio.create_task(c.play_until_over(120)) for c in [watcher, *players]]

        # Day one and day two: each time only Sil is awaited, a day passes.
        first_deadline: float | None = None
        for day in (1, 2):
            await _until(lambda: _waits_only_for(watcher, sil.seat), what=f"Sil awaited ({day})")
            state = next(m for m in reversed(watcher.messages) if m["type"] == "state")
            assert DAY - 5 < state["deadline"] - state["server_time"] <= DAY, state["deadline"]
            first_deadline = first_deadline or state["deadline"]
            if day == 2:  # Ann and Bob go to bed too: the game then waits for them
                for p in players:
                    p.silent = True
            await advance(http, DAY)
            await _until(partial(_timed_out, watcher, sil.seat, day), what=f"time-out {day}")
        # After two limits in a row, a bot stands in for Sil and plays Sil's prompts.
        await _until(lambda: bool(notices(watcher, ("stand_in",))), what="Sil's stand-in")
        await _until(
            lambda: bool(watcher.prompts) and sil.seat not in [p["seat"] for p in watcher.prompts],
            what="the game waits for Ann or Bob",
        )
        state = next(m for m in reversed(watcher.messages) if m["type"] == "state")
        version, deadline = state["version"], state["deadline"]
        assert deadline is not None
        await _stop(tasks, [watcher, *players])
        server.kill()

    # The server restarts in the middle of the game: the game, its deadline, Sil's stand-in and
    # the feed are where they were.
    server.start()
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        watcher = SeatClient(server.ws, table_id, None, None)
        await watcher.connect()
        state = await watcher.wait_for(lambda m: m["type"] == "state")
        assert state["version"] == version
        assert state["deadline"] is not None and abs(state["deadline"] - deadline) < 0.01
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert [p["stand_in"] for p in table["players"]] == [False, False, True]
        # Sil comes back: the seat is Sil's again, and everyone plays to the end.
        sil_client = SeatClient(
            server.ws, table_id, sil.token, sil.seat, strategy=bot_strategy("heuristic", 7)
        )
        await sil_client.connect()
        await watcher.wait_for(is_notice("back"))
        clients = [
            SeatClient(server.ws, table_id, s.token, s.seat, strategy=bot_strategy("heuristic", i))
            for i, s in enumerate((ann, bob))
        ]
        for c in clients:
            await c.connect()
        await asyncio.gather(*(c.play_until_over(120) for c in [watcher, sil_client, *clients]))
        over = await wait_game_over(http, table_id)
        assert over["winner"] is not None
        await watcher.drain()
        told = [(n["kind"], n["seat"]) for n in notices(watcher)]
        assert told == [("stand_in", sil.seat), ("back", sil.seat)], told
        for c in [watcher, sil_client, *clients]:
            await c.close()

    rows = await db_rows(
        database,
        "SELECT a.version, a.seat, a.action_id, a.created_at FROM actions a JOIN games g "
        "ON g.id = a.game_id WHERE g.table_id = :t ORDER BY a.version",
        t=table_id,
    )
    mine = [r for r in rows if r.seat == sil.seat]
    # Sil's first two decisions ran out (a day each, not before); then the stand-in (if the
    # game asked Sil anything before Sil came back) and Sil, never the clock again.
    assert [r.action_id.startswith("~timeout-") for r in mine[:2]] == [True, True]
    assert first_deadline is not None and stamp(mine[0].created_at) >= first_deadline - 0.05
    later = [r.action_id for r in mine[2:]]
    assert later and later[-1].startswith(f"s{sil.seat}-"), later
    assert all(a.startswith(("~bot-", f"s{sil.seat}-")) for a in later), later
    # Nobody else ever timed out: Ann and Bob were only silent while the clock stood still.
    assert all(r.seat == sil.seat for r in rows if r.action_id.startswith("~timeout-"))
