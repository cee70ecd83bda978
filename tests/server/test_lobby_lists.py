"""Matchmaking (POST /api/quickplay) and the games to watch (GET /api/tables?status=playing)."""

from __future__ import annotations

import asyncio
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
    wait_game_over,
)


async def _quickplay(http: httpx.AsyncClient, name: str, seats: int | None = None) -> Any:
    body: dict[str, Any] = {"name": name}
    if seats is not None:
        body["seats"] = seats
    r = await http.post("/api/quickplay", json=body)
    assert r.status_code == 200, r.text
    return r.json()


async def _online(
    http: httpx.AsyncClient,
    server: ServerProcess,
    table_id: str,
    name: str,
    sockets: list[SeatClient],
) -> None:
    """Join and keep the table page open: quick play seats people only beside someone online."""
    seat = await join(http, table_id, name)
    client = SeatClient(server.ws, table_id, seat.token, seat.seat)
    await client.connect()
    await client.wait_for(lambda m: m["type"] == "table")
    sockets.append(client)


async def _seated_per_table(db: Database) -> dict[str, tuple[int, int]]:
    rows = await db_rows(
        db,
        "SELECT t.id, t.seats, COUNT(s.id) FROM tables t LEFT JOIN seats s ON s.table_id = t.id "
        "GROUP BY t.id, t.seats",
    )
    return {r[0]: (r[1], r[2]) for r in rows}


async def test_quickplay_races_for_last_seats_never_overfill_a_table(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        # One seat left: two people ask for it at once. Both get a seat, one of them at a new
        # table.
        table_id = await create_table(http, 3)
        sockets: list[SeatClient] = []
        await _online(http, server, table_id, "Ann", sockets)
        await join(http, table_id, "Bob")
        cy, di = await asyncio.gather(_quickplay(http, "Cy", 3), _quickplay(http, "Di", 3))
        assert sorted([cy["table_id"] == table_id, di["table_id"] == table_id]) == [False, True]
        winner, loser = (cy, di) if cy["table_id"] == table_id else (di, cy)
        assert winner["seat"] == 2
        assert loser["seat"] == 0
        full = (await http.get(f"/api/tables/{table_id}")).json()
        assert (full["taken"], full["seats"]) == (3, 3)
        assert {p["name"] for p in full["players"]} == {
            "Ann",
            "Bob",
            "Cy" if winner is cy else "Di",
        }
        fresh = (await http.get(f"/api/tables/{loser['table_id']}")).json()
        assert (fresh["taken"], fresh["seats"], fresh["public"], fresh["status"]) == (
            1,
            3,
            True,
            "open",
        )
        # The token it gave holds that seat.
        r = await http.post(
            f"/api/tables/{loser['table_id']}/bots",
            json={"count": 1},
            headers={"Authorization": f"Bearer {loser['token']}"},
        )
        assert r.status_code == 200, r.text

        # Many at once, against several almost full tables: nobody is refused, no table ever
        # holds more players than seats, no seat is given twice.
        for i in range(3):
            t = await create_table(http, 4)
            await _online(http, server, t, f"P{i}0", sockets)
            for n in range(1, 3):
                await join(http, t, f"P{i}{n}")
        answers = await asyncio.gather(*(_quickplay(http, f"Q{n}") for n in range(10)))
        given = [(a["table_id"], a["seat"]) for a in answers]
        assert len(set(given)) == len(given)
        seated = await _seated_per_table(database)
        assert all(count <= seats for seats, count in seated.values()), seated
        for table, seat in given:
            info = (await http.get(f"/api/tables/{table}")).json()
            assert seat in {p["seat"] for p in info["players"]}
            assert info["taken"] <= info["seats"]
        for client in sockets:
            await client.close()


async def test_quickplay_prefers_the_fullest_table_of_the_size_asked(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        # Tables of earlier tests of this module are full or started: a lobby of our own.
        sockets: list[SeatClient] = []
        four = await create_table(http, 4)
        await _online(http, shared_server, four, "Ann", sockets)
        three = await create_table(http, 3)
        await join(http, three, "Bea")
        await _online(http, shared_server, three, "Cal", sockets)
        private = await create_table(http, 3, public=False)
        await _online(http, shared_server, private, "Dan", sockets)
        await join(http, private, "Eve")
        six = await create_table(http, 6)  # empty: nobody online there
        five = await create_table(http, 5)
        await join(http, five, "Ivo")  # seated, but his page is closed: nobody online

        # No size asked: the public table closest to full (never the private one).
        first = await _quickplay(http, "Fay")
        assert (first["table_id"], first["seat"]) == (three, 2)
        # Never at a table where nobody is online: not the empty 6-seat table, not
        # the 5-seat table whose one player is away; the open table with someone online instead.
        second = await _quickplay(http, "Gus", seats=6)
        assert (second["table_id"], second["seat"]) == (four, 1)
        fifth = await _quickplay(http, "Jo", seats=5)
        assert (fifth["table_id"], fifth["seat"]) == (four, 2)
        # A size asked wins over fullness.
        third = await _quickplay(http, "Hal", seats=4)
        assert (third["table_id"], third["seat"]) == (four, 3)
        # A name already used at the table: the next table that fits.
        fourth = await _quickplay(http, "ann", seats=4)
        assert fourth["table_id"] not in (four, three, private, five, six)

        # Bad input changes nothing.
        before = (await http.get("/api/tables")).json()
        for body in (
            {"name": "Ivy", "seats": 7},
            {"name": "Ivy", "seats": 2},
            {"name": "   "},
            {"seats": 3},
            {"name": "Ivy", "colour": "red"},
        ):
            r = await http.post("/api/quickplay", json=body)
            assert r.status_code == 422, body
            # A blank name has its own code.
            expected = "invalid_name" if body.get("name") == "   " else "invalid_request"
            assert r.json()["detail"]["code"] == expected
        assert (await http.get("/api/tables")).json() == before
        for client in sockets:
            await client.close()


async def test_playing_tables_are_listed_with_names_and_scores(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        public = await create_table(http, 3)
        ann = await join(http, public, "Ann")
        await add_bots(http, ann, 2)
        await start(http, ann)
        hidden = await create_table(http, 3, public=False)
        bob = await join(http, hidden, "Bob")
        await add_bots(http, bob, 2)
        await start(http, bob)
        waiting = await create_table(http, 3)
        await join(http, waiting, "Cy")

        r = await http.get("/api/tables", params={"status": "playing"})
        assert r.status_code == 200, r.text
        listed = {t["id"]: t for t in r.json()}
        assert public in listed and hidden not in listed and waiting not in listed
        game = listed[public]
        assert game["status"] == "playing" and game["watch_path"] == f"/t/{public}?watch=1"
        assert [p["name"] for p in game["players"]] == ["Ann", "Bot 2", "Bot 3"]
        assert all(p["score"] == 0 for p in game["players"])
        assert game["turn"] == 1
        assert all(t["status"] == "playing" and t["public"] for t in listed.values())
        # The default list is still the open tables only; scores are only in the watch list.
        opened = {t["id"]: t for t in (await http.get("/api/tables")).json()}
        assert public not in opened and waiting in opened
        assert opened[waiting]["turn"] is None and opened[waiting]["players"][0]["score"] is None
        r = await http.get("/api/tables", params={"status": "over"})
        assert (r.status_code, r.json()["detail"]["code"]) == (422, "invalid_request")

        # Played to the end. While the game waits for Ann, the list shows the scores and the turn
        # her socket shows; a finished game is no longer listed.
        a = SeatClient(shared_server.ws, public, ann.token, ann.seat, bot_strategy("heuristic", 4))
        await a.connect()
        compared = False
        while not a.over:
            await a.recv(timeout=30)
            if a.view is None:  # hello and table come first
                continue
            scores = [p["score"] for p in a.view["players"]]
            if not compared and a.my_prompt() and a.pending is None and any(scores):
                r = await http.get("/api/tables", params={"status": "playing"})
                game = next(t for t in r.json() if t["id"] == public)
                assert [p["score"] for p in game["players"]] == scores
                assert game["turn"] == a.view["turn"]
                compared = True
            await a.maybe_act()
        assert compared
        await a.close()
        await wait_game_over(http, public)
        assert a.view is not None
        r = await http.get("/api/tables", params={"status": "playing"})
        assert public not in {t["id"] for t in r.json()}
