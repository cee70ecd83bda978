"""History and ratings through the real server: three people and a bot play three games; every
player's history holds each game with the placements its final state gives, the winner's rating
rose and the last's fell with every game, and `dragonstones ratings rebuild` recomputes exactly
the stored ratings. Three games on SQLite; one on Postgres (the same path, its own lock and
floats), which keeps the test's time down."""

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
    create_table,
    db_rows,
    join,
    start,
    wait_game_over,
)

NAMES = ("Ann", "Bea", "Cy")


def expected_places(record: dict[str, Any]) -> dict[int, int]:
    """Places from the final public view: the winner first, then by score, ties sharing."""
    scores = {p["seat"]: p["score"] for p in record["final_view"]["players"]}
    winner = record["winner"]
    order = sorted(scores, key=lambda s: (s != winner, -scores[s], s))
    places: dict[int, int] = {}
    for i, seat in enumerate(order):
        prev = order[i - 1] if i else None
        tied = prev is not None and prev != winner and scores[prev] == scores[seat]
        places[seat] = places[prev] if tied and prev is not None else i + 1
    return places


async def ratings(db: Database) -> dict[str, tuple[float, float, int, int]]:
    rows = await db_rows(db, "SELECT key, mu, sigma, games, wins FROM ratings")
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


async def play(
    server: ServerProcess, people: list[httpx.AsyncClient], round_: int
) -> tuple[str, dict[int, str]]:
    """One game of the three people (each signed in, their seat linked) and a bot; the table's
    id and who sat where (a player's id, or the bot's key)."""
    host = people[0]
    table_id = await create_table(host, 4, timed=False)
    seats = [await join(p, table_id, n) for p, n in zip(people, NAMES, strict=True)]
    who: dict[int, str] = {}
    for person, seat in zip(people, seats, strict=True):
        r = await person.post("/api/me/seats", json={"table_id": table_id, "token": seat.token})
        assert r.status_code == 204, r.text
        who[seat.seat] = (await person.get("/api/me")).json()["id"]
    await add_bots(host, seats[0], 1, kind="heuristic")
    who[3] = "bot:heuristic"
    pages = [
        SeatClient(
            server.ws,
            table_id,
            s.token,
            s.seat,
            strategy=bot_strategy("heuristic", 10 * round_ + n),
        )
        for n, s in enumerate(seats)
    ]
    for page in pages:
        await page.connect()
    await start(host, seats[0])
    await asyncio.gather(*(p.play_until_over() for p in pages))
    await wait_game_over(host, table_id)
    for page in pages:
        await page.close()
    return table_id, who


async def test_three_games_make_history_and_ratings(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    people = [httpx.AsyncClient(base_url=server.http, timeout=30) for _ in NAMES]
    try:
        for person, name in zip(people, NAMES, strict=True):
            assert (await person.patch("/api/me", json={"name": name})).status_code == 401
            await person.get("/api/me")
            assert (await person.patch("/api/me", json={"name": name})).status_code == 200
        before = await ratings(database)
        assert before == {}
        tables = []
        rounds = 3 if database.backend == "sqlite" else 1
        for round_ in range(rounds):
            table_id, who = await play(server, people, round_)
            tables.append(table_id)
            game_id = (await people[0].get(f"/api/tables/{table_id}")).json()["game_id"]
            record = (await people[0].get(f"/api/games/{game_id}")).json()
            places = expected_places(record)
            # Reading one's games records the finished ones first.
            mine = (await people[0].get("/api/me/games")).json()
            assert mine["finished"][0]["game_id"] == game_id
            after = await ratings(database)
            winner = who[min(places, key=lambda s: places[s])]
            last = who[max(places, key=lambda s: (places[s], s))]
            mu = {k: v[0] for k, v in before.items()}
            assert after[winner][0] > mu.get(winner, 25.0), (round_, places, who)
            assert after[last][0] < mu.get(last, 25.0), (round_, places, who)
            assert after[winner][3] == before.get(winner, (0, 0, 0, 0))[3] + 1
            for key in who.values():
                assert after[key][2] == round_ + 1  # games it rests on
            before = after

        # Every player's history: the three games, newest first, the placements of each.
        for n, person in enumerate(people):
            games = (await person.get("/api/me/games")).json()
            assert games["current"] == []
            assert [g["table_id"] for g in games["finished"]] == tables[::-1]
            for g in games["finished"]:
                record = (await person.get(f"/api/games/{g['game_id']}")).json()
                places = expected_places(record)
                scores = {p["seat"]: p["score"] for p in record["final_view"]["players"]}
                got = {p["seat"]: (p["place"], p["score"], p["left"]) for p in g["placements"]}
                assert got == {s: (places[s], scores[s], False) for s in scores}
                assert g["rated"] and g["replay"] == f"/replay/{g['game_id']}"
                assert [p["name"] for p in g["placements"]][n] == NAMES[n]
            # Paged: two, then the rest.
            page = (await person.get("/api/me/games", params={"limit": 2})).json()
            rest: list[Any] = []
            if page["before"] is not None:
                query = {"before": page["before"]}
                rest = (await person.get("/api/me/games", params=query)).json()["finished"]
            assert [g["table_id"] for g in page["finished"] + rest] == tables[::-1]
            me = (await person.get("/api/me")).json()
            public = (await people[0].get(f"/api/players/{me['id']}")).json()
            assert public["name"] == NAMES[n] and public["rating"]["games"] == rounds
            mean, sigma = before[me["id"]][:2]
            assert public["rating"]["shown"] == round(mean - 3 * sigma, 2)
    finally:
        for person in people:
            await person.aclose()

    # The rebuild recomputes exactly the stored numbers.
    server.stop()
    env = {**os.environ, **database.env(), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "ratings", "rebuild", "--check"],
        env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 ratings rebuilt from the recorded games; 0 differed" in done.stdout
    assert await ratings(database) == before
