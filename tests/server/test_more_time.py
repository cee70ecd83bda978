"""More time for a decision ("+30 s") and relaxed tables (WCAG 2.2.1 Timing Adjustable): any
seated player may move the open decision's deadline `EXTRA_TIME_SECONDS` later, at most
`EXTRA_TIME_PER_GAME` times a game; everyone hears the new deadline and who asked; the server
refuses spectators, a stale request, a table without a limit and one request too many, each with
its own code, and changes nothing then. A host may open a "relaxed" table: 10x the defaults."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.server.harness import Database, SeatClient, ServerProcess, db_rows, join, start
from tests.server.timed import notices

SHARED_SERVER_SETTINGS = {"EXTRA_TIME_PER_GAME": "2", "EXTRA_TIME_SECONDS": "30"}


async def _stored_deadline(db: Database, table_id: str) -> float:
    (row,) = await db_rows(db, "SELECT deadline_at FROM games WHERE table_id = :t", t=table_id)
    at = row[0]
    if isinstance(at, str):
        at = datetime.fromisoformat(at)
    stamp: float = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
    return stamp


async def _error(client: SeatClient) -> str:
    m = await client.wait_for(lambda m: m["type"] in ("error", "deadline"))
    assert m["type"] == "error", m
    code: str = m["code"]
    return code


async def test_more_time_is_given_to_everyone_and_bounded(
    http: httpx.AsyncClient, shared_server: ServerProcess
) -> None:
    r = await http.post("/api/tables", json={"seats": 3, "turn_seconds": 600})
    table_id = r.json()["id"]
    ann, bob, cid = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cid")]
    clients = [SeatClient(shared_server.ws, table_id, s.token, s.seat) for s in (ann, bob)]
    watcher = SeatClient(shared_server.ws, table_id, None, None)
    try:
        for c in (*clients, watcher):
            await c.connect()
        await start(http, ann)
        first = await clients[0].wait_for(lambda m: m["type"] == "state" and m["version"] == 0)
        opened = first["deadline"]
        assert opened is not None
        for c in (clients[1], watcher):
            await c.wait_for(lambda m: m["type"] == "state" and m["version"] == 0)

        # A spectator may not; a request for a deadline that is not the open one changes nothing.
        await watcher.send_json({"type": "more_time"})
        assert await _error(watcher) == "spectator"
        await clients[1].send_json({"type": "more_time", "deadline": opened - 100})
        assert await _error(clients[1]) == "conflict"
        assert abs(await _stored_deadline(shared_server.db, table_id) - opened) < 0.01

        # Ann asks: every socket hears the new deadline (the spectator too), and the row holds it.
        await clients[0].send_json({"type": "more_time", "deadline": opened})
        for c in (*clients, watcher):
            moved = await c.wait_for(lambda m: m["type"] == "deadline")
            assert moved["seat"] == ann.seat and moved["left"] == 1
            assert abs(moved["deadline"] - (opened + 30)) < 0.01
        assert abs(await _stored_deadline(shared_server.db, table_id) - (opened + 30)) < 0.01
        # Bob's own count is his: he may ask for Ann's decision too.
        await clients[1].send_json({"type": "more_time"})
        moved = await clients[1].wait_for(lambda m: m["type"] == "deadline")
        assert moved["seat"] == bob.seat and moved["left"] == 1
        # Ann's second is her last; the third is refused and changes nothing.
        await clients[0].send_json({"type": "more_time"})
        moved = await clients[0].wait_for(lambda m: m["type"] == "deadline" and m["seat"] == 0)
        assert moved["left"] == 0 and abs(moved["deadline"] - (opened + 90)) < 0.01
        await clients[0].send_json({"type": "more_time"})
        assert await _error(clients[0]) == "no_more_time"
        assert abs(await _stored_deadline(shared_server.db, table_id) - (opened + 90)) < 0.01
        # A reconnecting page learns the deadline from its state.
        late = SeatClient(shared_server.ws, table_id, cid.token, cid.seat)
        await late.connect()
        state = await late.wait_for(lambda m: m["type"] == "state")
        assert abs(state["deadline"] - (opened + 90)) < 0.01
        await late.close()
        # Everyone's log says who asked.
        await watcher.drain()
        said = notices(watcher, ("time_added",))
        assert [(n["seat"], n["data"]["left"]) for n in said] == [(0, 1), (1, 1), (0, 0)]
    finally:
        for c in (*clients, watcher):
            await c.close()


async def test_no_limit_no_more_time_and_relaxed_tables(
    http: httpx.AsyncClient, shared_server: ServerProcess
) -> None:
    r = await http.post(
        "/api/tables", json={"seats": 3, "turn_seconds": None, "choose_seconds": None}
    )
    table_id = r.json()["id"]
    ann, _, _ = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cid")]
    client = SeatClient(shared_server.ws, table_id, ann.token, ann.seat)
    try:
        await client.connect()
        await client.send_json({"type": "more_time"})
        assert await _error(client) == "no_time_limit"  # not started
        await start(http, ann)
        await client.wait_for(lambda m: m["type"] == "state" and m["version"] == 0)
        await client.send_json({"type": "more_time"})
        assert await _error(client) == "no_time_limit"
        await client.send_json({"type": "more_time", "seconds": 600})
        assert await _error(client) == "invalid_message"
    finally:
        await client.close()

    relaxed = (await http.post("/api/tables", json={"seats": 3, "pace": "relaxed"})).json()
    assert (relaxed["turn_seconds"], relaxed["choose_seconds"]) == (450, 600)
    # A limit given explicitly stays; an unknown pace is refused.
    mine = (
        await http.post("/api/tables", json={"seats": 3, "pace": "relaxed", "turn_seconds": 20})
    ).json()
    assert (mine["turn_seconds"], mine["choose_seconds"]) == (20, 600)
    bad = await http.post("/api/tables", json={"seats": 3, "pace": "sleepy"})
    assert bad.status_code == 422


@pytest.mark.postgres
async def test_more_time_given_through_one_process_holds_in_another(
    pg_db: Database, server_factory: Any
) -> None:
    """Ann asks on process one; process two, whose clock waits for the old deadline, reads the
    stored one when it comes, times nobody out, and tells its own sockets the new deadline."""
    one: ServerProcess = server_factory(pg_db)
    two: ServerProcess = server_factory(pg_db)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        r = await http.post("/api/tables", json={"seats": 3, "turn_seconds": 2})
        table_id = r.json()["id"]
        ann, bob, _ = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cid")]
        ann_one = SeatClient(one.ws, table_id, ann.token, ann.seat)
        bob_two = SeatClient(two.ws, table_id, bob.token, bob.seat)
        try:
            for c in (ann_one, bob_two):
                await c.connect()
            await start(http, ann)
            first = await ann_one.wait_for(lambda m: m["type"] == "state" and m["version"] == 0)
            await bob_two.wait_for(lambda m: m["type"] == "state" and m["version"] == 0)
            await ann_one.send_json({"type": "more_time"})
            mine = await ann_one.wait_for(lambda m: m["type"] == "deadline")
            assert abs(mine["deadline"] - (first["deadline"] + 30)) < 0.01
            # Process two learns it when its own clock reaches the old deadline (2 s).
            theirs = await bob_two.wait_for(lambda m: m["type"] == "deadline", timeout=20)
            assert abs(theirs["deadline"] - mine["deadline"]) < 0.01
            assert theirs["seat"] is None
            await bob_two.drain(0.5)
            assert not any(
                e["type"] == "timed_out"
                for m in bob_two.messages
                if m["type"] == "state"
                for e in m["events"]
            )
            assert bob_two.version == 0
        finally:
            for c in (ann_one, bob_two):
                await c.close()
