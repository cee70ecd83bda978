"""Presence stored in the database: every server process agrees on who is online, a
crashed process's seats go away after a few heartbeats, and open tables nobody is connected to
close by themselves (and quick play never seats anyone at a table where nobody is online)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    advance,
    bearer,
    create_table,
    join,
)

# A heartbeat a second instead of 20: a seat goes stale 3 s after its process stopped refreshing
# it, quick for a test and still far above the pauses of a busy machine (at 0.2 s, a process held
# up for 0.6 s made its live seats look away).
FAST = {"PRESENCE_HEARTBEAT_SECONDS": "1"}
# The tests that wait for heartbeats or idle tables move the servers' clocks instead.
MOVABLE = {**FAST, "TEST_CLOCK": "0"}
# A seat goes stale after 3 heartbeats of the clock, which also runs in real time: a long
# heartbeat keeps a busy machine's real seconds from making anyone stale before the test
# moves the clock itself.
HEARTBEAT = 30.0
SLOW_MOVABLE = {"PRESENCE_HEARTBEAT_SECONDS": str(int(HEARTBEAT)), "TEST_CLOCK": "0"}


async def _table(http: httpx.AsyncClient, table_id: str) -> dict[str, Any]:
    r = await http.get(f"/api/tables/{table_id}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def _until(check: Any, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < deadline, "not reached in time"
        await asyncio.sleep(0.05)


async def _ann_away(http: httpx.AsyncClient, table_id: str, seat: int) -> bool:
    return not bool(_player(await _table(http, table_id), seat)["connected"])


def _player(table: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in table["players"] if p["seat"] == seat)


async def test_presence_is_seen_by_a_second_process(
    database: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(database, **FAST)
    two: ServerProcess = server_factory(database, **FAST)
    async with (
        httpx.AsyncClient(base_url=one.http, timeout=20) as http1,
        httpx.AsyncClient(base_url=two.http, timeout=20) as http2,
    ):
        table_id = await create_table(http1, 3)
        ann = await join(http1, table_id, "Ann")
        bob = await join(http1, table_id, "Bob")
        await http1.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(ann))
        fresh = await _table(http2, table_id)
        assert fresh["online"] == 0
        assert not _player(fresh, ann.seat)["connected"]
        assert _player(fresh, ann.seat)["away_since"] is not None  # joined, page not open yet
        bot = next(p for p in fresh["players"] if p["bot"])
        assert bot["connected"] and bot["away_since"] is None

        # Ann's page talks to the first process, Bob's to the second.
        ann_page = SeatClient(one.ws, table_id, ann.token, ann.seat)
        bob_page = SeatClient(two.ws, table_id, bob.token, bob.seat)
        await ann_page.connect()
        await ann_page.wait_for(lambda m: m["type"] == "table")
        seen = await _table(http2, table_id)
        assert (
            _player(seen, ann.seat)["connected"] and _player(seen, ann.seat)["away_since"] is None
        )
        assert seen["online"] == 1
        await bob_page.connect()
        await bob_page.wait_for(lambda m: m["type"] == "table")
        assert _player(bob_page.table or {}, ann.seat)["connected"]
        assert (await _table(http1, table_id))["online"] == 2

        # Ann closes her page: the second process says she is away, and since when.
        active_before = (await _table(http2, table_id))["last_active"]
        await ann_page.close()

        async def ann_away() -> dict[str, Any] | None:
            t = await _table(http2, table_id)
            return t if not _player(t, ann.seat)["connected"] else None

        away = await _until(ann_away)
        assert away["online"] == 1 and _player(away, ann.seat)["away_since"] is not None
        assert away["last_active"] >= active_before
        if database.backend == "postgres":
            # Bob's socket on the other process is told through the bus.
            await bob_page.wait_for(
                lambda m: m["type"] == "table" and not _player(m["table"], ann.seat)["connected"],
                timeout=5,
            )
        presence = (await _table(http2, table_id))["players"]
        assert {p["seat"]: p["away_since"] is None for p in presence} == {
            ann.seat: False,
            bob.seat: True,
            bot["seat"]: True,
        }
        await bob_page.close()


async def test_a_crashed_process_seats_go_away(database: Database, server_factory: Any) -> None:
    one: ServerProcess = server_factory(database, **SLOW_MOVABLE)
    two: ServerProcess = server_factory(database, **SLOW_MOVABLE)
    async with (
        httpx.AsyncClient(base_url=one.http, timeout=20) as http1,
        httpx.AsyncClient(base_url=two.http, timeout=20) as http,
    ):
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        ann_page = SeatClient(one.ws, table_id, ann.token, ann.seat)
        await ann_page.connect()
        await ann_page.wait_for(lambda m: m["type"] == "table")
        assert (await _table(http, table_id))["online"] == 1
        # Still online after longer than a seat takes to go stale (3 heartbeats): the first
        # process refreshes her when its clock moves (the second's then finds her fresh; had
        # the first not written, the second's heartbeat would write her away).
        await advance(http1, 3.5 * HEARTBEAT)
        await advance(http, 3.5 * HEARTBEAT)
        assert (await _table(http, table_id))["online"] == 1
        one.kill()
        # Past 3 heartbeats after the first process's last one.
        await advance(http, 5 * HEARTBEAT)

        async def gone() -> bool:
            t = await _table(http, table_id)
            return t["online"] == 0 and _player(t, ann.seat)["away_since"] is not None

        await _until(gone)


async def test_stale_tables_close_and_quickplay_avoids_offline_tables(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(
        database, TABLE_IDLE_MINUTES="1", TABLE_CLOSE_INTERVAL_SECONDS="0.2", **MOVABLE
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        left = await create_table(http, 3)  # Ann comes and goes
        ann = await join(http, left, "Ann")
        empty = await create_table(http, 3)  # nobody ever sits
        stays = await create_table(http, 3)  # Bob keeps his page open
        bob = await join(http, stays, "Bob")
        ann_page = SeatClient(server.ws, left, ann.token, ann.seat)
        watcher = SeatClient(server.ws, left, None, None)
        bob_page = SeatClient(server.ws, stays, bob.token, bob.seat)
        for page in (ann_page, watcher, bob_page):
            await page.connect()
            await page.wait_for(lambda m: m["type"] == "table")
        # While Ann is online, quick play seats the next person beside her.
        r = await http.post("/api/quickplay", json={"name": "Cy", "seats": 3})
        assert r.json()["table_id"] in (left, stays)
        await ann_page.close()
        # Past the idle time (a minute, which no busy machine takes between two calls) since
        # Ann left and the empty table was made.
        await _until(lambda: _ann_away(http, left, ann.seat))
        await advance(http, 61)

        async def closed() -> bool:
            a, b = await _table(http, left), await _table(http, empty)
            return bool(a["status"] == b["status"] == "closed")

        await _until(closed)
        # The spectator is told and closed; the table left every list and cannot be joined.
        assert await watcher.wait_closed() == 1000
        assert any(e["code"] == "table_closed" for e in watcher.errors), watcher.errors
        listed = {t["id"] for t in (await http.get("/api/tables")).json()}
        assert left not in listed and empty not in listed and stays in listed
        r = await http.post(f"/api/tables/{left}/join", json={"name": "Dee"})
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        again = SeatClient(server.ws, left, ann.token, ann.seat)
        await again.connect()
        await again.wait_closed()
        assert any(e["code"] == "table_closed" for e in again.errors)
        # Bob is online: his table stays open well past the idle time.
        await advance(http, 90)
        assert (await _table(http, stays))["status"] == "open"

        # Quick play: never at a closed table, never at a table whose people are all away.
        away = await create_table(http, 3)
        await join(http, away, "Eve")
        for n in range(4):
            r = await http.post("/api/quickplay", json={"name": f"Q{n}", "seats": 3})
            assert r.status_code == 200, r.text
            assert r.json()["table_id"] not in (left, empty, away)
        await bob_page.close()


async def test_join_closes_a_stale_table_before_the_closing_task(
    database: Database, server_factory: Any
) -> None:
    # The closing task never runs here: the check at join time closes the table.
    server: ServerProcess = server_factory(
        database, TABLE_IDLE_MINUTES="1", TABLE_CLOSE_INTERVAL_SECONDS="0", **MOVABLE
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        await join(http, table_id, "Ann")
        await advance(http, 61)
        assert (await _table(http, table_id))["status"] == "open"
        r = await http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        assert (await _table(http, table_id))["status"] == "closed"
