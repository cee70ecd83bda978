"""Time limits on every decision: bids and tie-breaks (`turn_seconds`) and power decisions
(`choose_seconds`) time out to the engine's default through the same path as any action, the log
says so, a seat the clock answered for twice in a row gets a bot, and a restart keeps every
deadline where it was."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from tests import deals
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    advance,
    bid,
    bot_strategy,
    db_rows,
    join,
    start,
    wait_game_over,
)
from tests.server.timed import Scripted, move_clocks_while_waiting, notices, stamp

# The time limit of the timed games (seconds): the clock is moved past it.
LIMIT = 10


async def test_a_timed_game_where_one_seat_never_answers_finishes(
    database: Database, server_factory: Any
) -> None:
    # Dealt from TIME_LIMITS_SEED (tests/deals.py): besides Sil's bids and the first tie-break,
    # a scripted person wins a power that asks a decision, which they let run out, and the game
    # is short (77 versions). The test moves the server's clock past each time-out.
    server: ServerProcess = server_factory(
        database, TEST_SEED=str(deals.TIME_LIMITS_SEED), TEST_CLOCK="0"
    )
    assert await _one_timed_game(database, server) == {"bid", "tiebreak", "choose"}


async def _one_timed_game(database: Database, server: ServerProcess) -> set[str]:
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        # Limits no busy machine reaches by itself (only the clock's moves time a seat out), and
        # a grace longer than the game's time-outs: Sil gets a bot after two of them.
        r = await http.post(
            "/api/tables",
            json={
                "seats": 4,
                "turn_seconds": LIMIT,
                "choose_seconds": LIMIT,
                "grace_seconds": 3600,
            },
        )
        assert r.status_code == 201, r.text
        table = r.json()
        assert (table["turn_seconds"], table["choose_seconds"]) == (LIMIT, LIMIT)
        table_id = table["id"]
        # Sil never answers anything (and holds no socket); the others are scripted people
        # who let their first tie-break and their first power decision run out.
        sil = await join(http, table_id, "Sil")
        people = [await join(http, table_id, name) for name in ("Ann", "Bob", "Cid")]
        clients = [
            Scripted(
                server.ws,
                table_id,
                s.token,
                s.seat,
                strategy=bot_strategy("heuristic", 11 + i),
                # Ann and Bob tie in the first auction: a tie-break, which both let run out.
                first_bid=bid(1) if s.name in ("Ann", "Bob") else bid(0),
                silent_kinds={"tiebreak", "choose"},
            )
            for i, s in enumerate(people)
        ]
        spectator = SeatClient(server.ws, table_id, None, None)
        await spectator.connect()
        for c in clients:
            await c.connect()
        await start(http, sil)  # the first seated person hosts the table

        def silent(seat: int) -> bool:
            """Sil, until the clock answered for them twice (then a bot plays), and a person
            letting this prompt run out."""
            if seat == sil.seat:
                return _time_outs_of(spectator, seat) < 2
            return any(c.seat == seat and c.waits_it_out(spectator.version) for c in clients)

        watching = asyncio.create_task(spectator.play_until_over(180))
        moves = move_clocks_while_waiting(spectator, silent, [http], LIMIT)
        moved = (await asyncio.gather(*(c.play_until_over(180) for c in clients), moves))[-1]
        await watching
        assert moved
        over = await wait_game_over(http, table_id)
        assert over["winner"] is not None
        await spectator.drain()

        (game,) = await db_rows(database, "SELECT id FROM games WHERE table_id = :t", t=table_id)
        rows = await db_rows(
            database,
            "SELECT version, seat, action_id, action FROM actions WHERE game_id = :g "
            "ORDER BY version",
            g=game.id,
        )
        timed = [r for r in rows if r.action_id.startswith("~timeout-")]
        kinds = {r.action_id.split("-")[2] for r in timed}
        assert {"bid", "tiebreak"} <= kinds, kinds
        assert kinds <= {"bid", "tiebreak", "choose"}, kinds
        # Sil: two bids ran out, then a bot played for the seat to the end.
        sil_rows = [r for r in rows if r.seat == sil.seat]
        assert [r.action_id.startswith("~timeout-") for r in sil_rows[:2]] == [True, True]
        assert all(r.action_id.startswith("~bot-") for r in sil_rows[2:]) and sil_rows[2:]
        (seat_row,) = await db_rows(
            database,
            "SELECT stand_in FROM seats WHERE table_id = :t AND seat = :s",
            t=table_id,
            s=sil.seat,
        )
        assert seat_row.stand_in
        # Nobody else timed out twice in a row, so nobody else got a bot.
        for s in people:
            mine = [r.action_id for r in rows if r.seat == s.seat]
            assert not any(mine[i].startswith("~bot-") for i in range(len(mine))), s.name

        # The log names every time-out, for every viewer, in the order they happened.
        for viewer in [spectator, *clients]:
            said = [
                (e["version"], e["seat"], e["prompt"])
                for e in viewer.events
                if e["type"] == "timed_out"
            ]
            assert said == [(r.version, r.seat, r.action_id.split("-")[2]) for r in timed]
        first = next(e for e in spectator.events if e["type"] == "timed_out")
        assert first["template"] == "Time ran out for {seat}: no bid."
        # Everyone was told that a bot plays for Sil, handed over by the server.
        told = notices(spectator)
        assert [(n["kind"], n["seat"], n["data"]["by"]) for n in told] == [
            ("stand_in", sil.seat, None)
        ]
        assert told[0]["data"]["version"] == sil_rows[1].version
        last_table = [m for m in spectator.messages if m["type"] == "table"][-1]["table"]
        assert [p["stand_in"] for p in last_table["players"]] == [True, False, False, False]
        for viewer in [spectator, *clients]:
            await viewer.close()
        return kinds


def _time_outs_of(client: SeatClient, seat: int) -> int:
    return sum(1 for e in client.events if e["type"] == "timed_out" and e["seat"] == seat)


async def _deadline_row(database: Database, table_id: str) -> tuple[float | None, str | None]:
    (row,) = await db_rows(
        database, "SELECT deadline_at, deadline_key FROM games WHERE table_id = :t", t=table_id
    )
    return (stamp(row.deadline_at) if row.deadline_at is not None else None), row.deadline_key


async def _timed_table_with_bots(http: httpx.AsyncClient, seconds: int) -> tuple[str, Any]:
    # A grace longer than any move of the clock here: no bot stands in for Ann, who never
    # connects.
    r = await http.post(
        "/api/tables", json={"seats": 3, "turn_seconds": seconds, "grace_seconds": 3600}
    )
    table_id = r.json()["id"]
    ann = await join(http, table_id, "Ann")
    r = await http.post(
        f"/api/tables/{table_id}/bots",
        json={"count": 2},
        headers={"Authorization": f"Bearer {ann.token}"},
    )
    assert r.status_code == 200
    return table_id, ann


async def _time_outs(database: Database, table_id: str) -> list[Any]:
    return await db_rows(
        database,
        "SELECT a.version, a.seat, a.action_id, a.created_at FROM actions a "
        "JOIN games g ON g.id = a.game_id WHERE g.table_id = :t AND a.action_id LIKE "
        "'~timeout-%' ORDER BY a.version",
        t=table_id,
    )


async def _first_time_out(database: Database, table_id: str, wait: float = 30) -> Any:
    ends = time.monotonic() + wait
    while time.monotonic() < ends:
        rows = await _time_outs(database, table_id)
        if rows:
            return rows[0]
        await asyncio.sleep(0.1)
    raise AssertionError("no time-out")


async def test_a_restart_keeps_a_pending_deadline(database: Database, server_factory: Any) -> None:
    # A minute to bid, far longer than a restart: the restarted server's clock is then moved
    # to the deadline instead of waiting for it.
    server: ServerProcess = server_factory(database, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, ann = await _timed_table_with_bots(http, 60)
        watcher = SeatClient(server.ws, table_id, None, None)
        await watcher.connect()
        await start(http, ann)
        state = await watcher.wait_for(lambda m: m["type"] == "state")
        deadline = state["deadline"]
        assert deadline is not None
        # The deadline is in the database with the opening prompt, before anything times out.
        stored, key = await _deadline_row(database, table_id)
        assert stored is not None and abs(stored - deadline) < 0.01 and key == "bid-v0"
        await watcher.close()
        server.kill()
    server.start()
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        watcher = SeatClient(server.ws, table_id, None, None)
        await watcher.connect()
        state = await watcher.wait_for(lambda m: m["type"] == "state")
        # The same deadline, not one restarted from zero.
        assert state["deadline"] is not None and abs(state["deadline"] - deadline) < 0.01
        assert await _time_outs(database, table_id) == []
        await advance(http, 60)
        timed_out = await _first_time_out(database, table_id)
        assert timed_out.seat == ann.seat and timed_out.action_id.endswith("-bid-v0")
        # It fired at the stored time: not before, and not a whole limit after the restart.
        assert stamp(timed_out.created_at) >= deadline - 0.05
        said = await watcher.wait_for(
            lambda m: m["type"] == "state" and any(e["type"] == "timed_out" for e in m["events"])
        )
        assert said["version"] >= timed_out.version
        await watcher.close()


async def test_a_deadline_that_passed_during_a_restart_fires_at_once(
    database: Database, server_factory: Any
) -> None:
    # The first process keeps a clock a minute behind real time, the restarted one real time:
    # the deadline the first stored passed while the server was down. (Longer than a server
    # start on a busy machine: a deadline restarted from zero fires `seconds` after the restart
    # at the earliest, the stored one during the start.)
    server: ServerProcess = server_factory(database, TEST_CLOCK="-60")
    seconds = 30
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, ann = await _timed_table_with_bots(http, seconds)
        await start(http, ann)
        ends = time.monotonic() + 10
        while (await _deadline_row(database, table_id))[0] is None:
            assert time.monotonic() < ends, "no deadline stored"
            await asyncio.sleep(0.05)
        deadline = (await _deadline_row(database, table_id))[0]
        assert deadline is not None
        server.kill()
    server.settings["TEST_CLOCK"] = "0"
    restarted = time.time()
    assert deadline < restarted
    server.start()
    timed_out = await _first_time_out(database, table_id)
    fired = stamp(timed_out.created_at)
    # A deadline restarted from zero would fire `seconds` after the restart at the earliest.
    assert deadline <= fired < restarted + seconds, (deadline, restarted, fired)
