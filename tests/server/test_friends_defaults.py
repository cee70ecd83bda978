"""Games that keep moving: a new table has time limits unless its creator says
otherwise; a person who leaves during a game is named in the log ("away") and, at a timed table,
a bot plays for them once the grace period has passed; quick play can ask for a waiting table only;
the log says when a bot sits down and when the host removes someone."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bearer,
    bot_strategy,
    create_table,
    join,
    start,
    until,
)
from tests.server.timed import is_notice, notices


def _connected(message: dict[str, Any], seat: int) -> bool:
    return any(p["connected"] for p in message["table"]["players"] if p["seat"] == seat)


async def _away(http: httpx.AsyncClient, table_id: str, seat: int) -> bool:
    table = (await http.get(f"/api/tables/{table_id}")).json()
    return not any(p["connected"] for p in table["players"] if p["seat"] == seat)


async def test_new_tables_have_the_default_time_limits_unless_asked_otherwise(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        r = await http.post("/api/tables", json={"seats": 3})
        assert r.status_code == 201
        table = r.json()
        assert (table["turn_seconds"], table["choose_seconds"], table["grace_seconds"]) == (
            45,
            60,
            30,
        )
        r = await http.post(
            "/api/tables", json={"seats": 3, "turn_seconds": None, "choose_seconds": None}
        )
        table = r.json()
        assert (table["turn_seconds"], table["choose_seconds"], table["grace_seconds"]) == (
            None,
            None,
            120,
        )
        r = await http.post("/api/tables", json={"seats": 3, "turn_seconds": 20})
        assert (r.json()["turn_seconds"], r.json()["choose_seconds"]) == (20, 60)
        # Quick play's new tables too.
        r = await http.post("/api/quickplay", json={"name": "Quinn", "seats": 5})
        assert r.status_code == 200
        table = (await http.get(f"/api/tables/{r.json()['table_id']}")).json()
        assert (table["turn_seconds"], table["choose_seconds"]) == (45, 60)


async def test_quick_play_open_only_takes_a_waiting_table_or_creates_nothing(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        before = len((await http.get("/api/tables")).json())
        r = await http.post("/api/quickplay", json={"name": "Olga", "seats": 6, "open_only": True})
        assert r.status_code == 204 and r.content == b""
        assert len((await http.get("/api/tables")).json()) == before  # nothing was created
        r = await http.post("/api/quickplay", json={"name": "Olga", "open_only": "yes"})
        assert r.status_code == 422
        # A public 6-seat table with two people, one online: the fullest that fits.
        small = await create_table(http, 6)
        await join(http, small, "Sam")
        full = await create_table(http, 6)
        ann = await join(http, full, "Ann")
        await join(http, full, "Bob")
        a = SeatClient(shared_server.ws, full, ann.token, ann.seat)
        s = SeatClient(shared_server.ws, small, None, None)
        await a.connect()
        await s.connect()
        await a.wait_for(lambda m: m["type"] == "table" and m["table"]["online"] == 1)
        r = await http.post("/api/quickplay", json={"name": "Olga", "seats": 6, "open_only": True})
        assert r.status_code == 200, r.text
        assert (r.json()["table_id"], r.json()["seat"]) == (full, 2)
        await a.close()
        await s.close()


async def test_the_log_says_when_a_bot_sits_down_and_when_the_host_removes_someone(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        ann = await join(http, table_id, "Ann")
        zed = await join(http, table_id, "Zed")
        watcher = SeatClient(shared_server.ws, table_id, None, None)
        await watcher.connect()
        await add_bots(http, ann, 1)
        r = await http.delete(f"/api/tables/{table_id}/seats/{zed.seat}", headers=bearer(ann))
        assert r.status_code == 200, r.text
        r = await http.delete(f"/api/tables/{table_id}/bots/2", headers=bearer(ann))
        assert r.status_code == 200, r.text
        await watcher.wait_for(is_notice("removed"))
        await watcher.wait_for(is_notice("removed"))
        said = [
            (n["kind"], n["seat"], n["name"])
            for n in notices(watcher, ("joined", "bot_joined", "removed"))
        ]
        assert said == [
            ("joined", 0, "Ann"),
            ("joined", 1, "Zed"),
            ("bot_joined", 2, "Bot 3"),
            ("removed", 1, "Zed"),
            ("removed", 2, "Bot 3"),
        ]
        await watcher.close()


async def test_a_person_who_leaves_a_timed_game_is_named_then_a_bot_plays_for_them(
    database: Database, server_factory: Any
) -> None:
    # The away notice and the grace period wait on the server's clock, which the test moves.
    server: ServerProcess = server_factory(database, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        # The default time limits (45 s to bid) and a timed table's grace (30 s): the clock moves
        # 30.5 s in all, so nobody's bid times out meanwhile.
        r = await http.post("/api/tables", json={"seats": 3, "grace_seconds": 30})
        table_id = r.json()["id"]
        ann = await join(http, table_id, "Ann")
        bob = await join(http, table_id, "Bob")
        await add_bots(http, ann, 1)
        a = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 1))
        b = SeatClient(server.ws, table_id, bob.token, bob.seat)
        await a.connect()
        await b.connect()
        await a.arrived()
        await b.arrived()
        await start(http, ann)
        await b.wait_for(lambda m: m["type"] == "state")
        # Ann's frames up to Bob's arrival, so that the one below is his departure's (an earlier
        # one shows him not yet there): the clock moves only once his departure is stored.
        await a.wait_for(lambda m: m["type"] == "table" and _connected(m, bob.seat))
        await b.close()  # Bob closes his page and never answers
        await a.wait_for(lambda m: m["type"] == "table" and not _connected(m, bob.seat))
        await advance(http, 5)  # the notice comes 5 s after he left
        away = await a.wait_for(is_notice("away"), 20)
        line = away["line"]
        assert (line["seat"], line["name"], line["data"]["auto"]) == (bob.seat, "Bob", True)
        assert 0 < line["data"]["grace"] <= 25
        # No stand-in yet: the grace runs from his departure, not from the notice.
        assert not notices(a)
        await advance(http, 25.5)
        await a.wait_for(is_notice("stand_in"), 20)
        (stand_in,) = notices(a)
        assert (stand_in["seat"], stand_in["data"]["by"]) == (bob.seat, None)
        # Bob comes back through his link: the seat is his again, and he plays it to the end.
        b2 = SeatClient(server.ws, table_id, bob.token, bob.seat, bot_strategy("heuristic", 2))
        await b2.connect()
        await b2.wait_for(is_notice("back"), 20)
        await asyncio.gather(a.play_until_over(180), b2.play_until_over(180))
        assert [n["kind"] for n in notices(a)] == ["stand_in", "back"]
        await a.close()
        await b2.close()


async def test_an_abandoned_game_leaves_games_to_watch(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db, TABLE_IDLE_MINUTES="1", TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post(
            "/api/tables", json={"seats": 3, "turn_seconds": None, "choose_seconds": None}
        )
        table_id = r.json()["id"]
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2)
        a = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await a.connect()
        await start(http, ann)
        await a.wait_for(lambda m: m["type"] == "state" and a.my_prompt() is not None)
        listed = [t["id"] for t in (await http.get("/api/tables?status=playing")).json()]
        assert table_id in listed  # Ann is there, thinking
        await a.close()  # Ann leaves; nobody moves (no time limit), nobody is there
        await until(lambda: _away(http, table_id, ann.seat), what="Ann away")
        await advance(http, 61)
        listed = [t["id"] for t in (await http.get("/api/tables?status=playing")).json()]
        assert table_id not in listed
