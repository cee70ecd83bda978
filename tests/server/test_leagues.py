"""A friends' league: made, joined by its link (a look-alike of a member's name refused), a table
made for it, whose game counts in its standings and head-to-head and not in another league's;
only members see a league; `dragonstones ratings rebuild --check` finds the league's stored
standings exact. On SQLite and Postgres."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import httpx

from tests.server.harness import (
    REPO,
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    db_rows,
    join,
    start,
    wait_game_over,
)


async def player(server: ServerProcess, name: str) -> httpx.AsyncClient:
    http = httpx.AsyncClient(base_url=server.http, timeout=30)
    await http.get("/api/me")
    r = await http.patch("/api/me", json={"name": name})
    assert r.status_code == 200, r.text
    return http


def code_of(league: dict[str, Any]) -> str:
    return str(league["invite_path"].split("#", 1)[1])


async def test_a_league_game_counts_in_its_league_only(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    ann, bea, cy, dan = [await player(server, n) for n in ("Ann", "Bea", "Cy", "B\u0435a")]
    try:
        ids = {n: (await c.get("/api/me")).json()["id"] for n, c in (("Ann", ann), ("Bea", bea))}
        r = await ann.post("/api/leagues", json={"name": "Friday nights"})
        assert r.status_code == 201, r.text
        friday = r.json()
        assert friday["invite_path"].startswith("/leagues/join#")
        r = await bea.post("/api/me/leagues", json={"code": code_of(friday)})
        assert r.json()["id"] == friday["id"]
        # "B\u0435a" (a Cyrillic e) reads as Bea: refused within the league.
        r = await dan.post("/api/me/leagues", json={"code": code_of(friday)})
        assert (r.status_code, r.json()["detail"]["code"]) == (409, "name_taken")
        r = await dan.post("/api/me/leagues", json={"code": "nonexistent"})
        assert r.status_code == 404
        # Another league, with Ann in it too.
        other = (await cy.post("/api/leagues", json={"name": "Sundays"})).json()
        await ann.post("/api/me/leagues", json={"code": code_of(other)})
        # Only members see a league or make its tables.
        r = await cy.get(f"/api/leagues/{friday['id']}")
        assert (r.status_code, r.json()["detail"]["code"]) == (403, "not_member")
        r = await cy.post(f"/api/leagues/{friday['id']}/tables", json={"seats": 3})
        assert r.status_code == 403
        # A league's table may be slow, played over days, like any table.
        r = await ann.post(f"/api/leagues/{friday['id']}/tables", json={"seats": 3, "pace": "slow"})
        assert r.status_code == 201, r.text
        slow = r.json()
        assert (slow["turn_seconds"], slow["grace_seconds"]) == (86400, 2 * 86400), slow
        mine = [x["id"] for x in (await ann.get("/api/leagues")).json()]
        assert mine == [friday["id"], other["id"]]

        # A table for the league: Ann, Bea and a bot play it to the end.
        untimed = {"seats": 3, "turn_seconds": None, "choose_seconds": None}
        r = await bea.post(f"/api/leagues/{friday['id']}/tables", json=untimed)
        assert r.status_code == 201, r.text
        table = r.json()
        assert table["public"] is False
        seats = [await join(c, table["id"], n) for c, n in ((ann, "Ann"), (bea, "Bea"))]
        for c, s in zip((ann, bea), seats, strict=True):
            link = {"table_id": s.table_id, "token": s.token}
            assert (await c.post("/api/me/seats", json=link)).status_code == 204
        await add_bots(ann, seats[0], 1, "heuristic")
        pages = [
            SeatClient(server.ws, s.table_id, s.token, s.seat, bot_strategy("heuristic", s.seat))
            for s in seats
        ]
        for page in pages:
            await page.connect()
        await start(ann, seats[0])
        await asyncio.gather(*(p.play_until_over() for p in pages))
        await wait_game_over(ann, table["id"])
        for page in pages:
            await page.close()

        page = (await bea.get(f"/api/leagues/{friday['id']}")).json()
        assert [m["name"] for m in page["members"]] == ["Ann", "Bea"]
        assert [g["table_id"] for g in page["games"]] == [table["id"]]
        places = {p["player_id"]: p["place"] for p in page["games"][0]["placements"]}
        standings = {s["key"]: s for s in page["standings"]}
        assert set(standings) == {ids["Ann"], ids["Bea"], "bot:heuristic"}
        assert all(s["rating"]["games"] == 1 for s in standings.values())
        assert standings[ids["Ann"]]["name"] == "Ann"
        shown = [s["rating"]["shown"] for s in page["standings"]]
        assert shown == sorted(shown, reverse=True)
        [pair] = page["head_to_head"]
        assert (pair["a"], pair["b"], pair["games"]) == (ids["Ann"], ids["Bea"], 1)
        ahead = places[ids["Ann"]] < places[ids["Bea"]]
        behind = places[ids["Bea"]] < places[ids["Ann"]]
        assert (pair["a_ahead"], pair["b_ahead"]) == (int(ahead), int(behind))
        # Read again: the same standings, stored once the game was folded in.
        again = (await ann.get(f"/api/leagues/{friday['id']}")).json()
        assert (again["standings"], again["head_to_head"]) == (page["standings"], [pair])
        stored = await db_rows(
            database, "SELECT count(*) FROM league_ratings WHERE league_id = :l", l=friday["id"]
        )
        assert stored == [(3,)]
        # Not in the other league's.
        page = (await ann.get(f"/api/leagues/{other['id']}")).json()
        assert (page["games"], page["standings"], page["head_to_head"]) == ([], [], [])
    finally:
        for c in (ann, bea, cy, dan):
            await c.aclose()

    # The rebuild recomputes the league's stored standings exactly.
    server.stop()
    env = {**os.environ, **database.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "ratings", "rebuild", "--check"],
        env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 leagues' standings rebuilt; 0 differed" in done.stdout
