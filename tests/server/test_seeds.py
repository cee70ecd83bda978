"""Games dealt for tests: a server started with TEST_SEED deals its n-th game from TEST_SEED + n
(or from the seed the start request names) and its bots follow from the game's seed, so two such
servers play the same games; a server without it refuses a named seed and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bearer,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
    wait_game_over,
)

ServerFactory = Callable[..., ServerProcess]
WARNING = "TEST_SEED is set"


async def test_a_named_seed_is_refused_unless_the_server_deals_for_tests(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3, timed=False)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2)
        url = f"/api/tables/{table_id}/start"
        r = await http.post(url, json={"seed": 7}, headers=bearer(ann))
        assert r.status_code == 400, r.text
        assert r.json()["detail"]["code"] == "invalid_request"
        assert "TEST_SEED" in r.json()["detail"]["message"]
        # Seeds the schema cannot take, whatever the server: 422 before anything is read.
        for body in ({"seed": -1}, {"seed": 2**64}, {"seed": "7"}, {"seed": 7.0}, {"deal": 7}):
            r = await http.post(url, json=body, headers=bearer(ann))
            assert r.status_code == 422 and r.json()["detail"]["code"] == "invalid_request", body
        # Nothing changed: the table is open and no game was dealt.
        assert (await http.get(f"/api/tables/{table_id}")).json()["status"] == "open"
        assert await db_rows(database, "SELECT id FROM games") == []
        # Without a seed (no body, an empty one, a null) it starts as always.
        r = await http.post(url, json={"seed": None}, headers=bearer(ann))
        assert r.status_code == 200 and r.json()["status"] == "playing", r.text
    assert WARNING not in server.log()


async def _play(server: ServerProcess, seed: int | None) -> dict[str, Any]:
    """Ann (a scripted person) and three bots of two kinds play a whole game: its record."""
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4, timed=False)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "heuristic")
        await add_bots(http, ann, 1, "random")
        game_id = (await start(http, ann, seed))["game_id"]
        client = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 3))
        await client.connect()
        try:
            await client.play_until_over(timeout=120)
        finally:
            await client.close()
        await wait_game_over(http, table_id)
        r = await http.get(f"/api/games/{game_id}")
        assert r.status_code == 200, r.text
        return dict(r.json())


def _by_seat(record: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Each seat's actions in order (the seats of one sealed round may act in any order)."""
    seats: dict[int, list[dict[str, Any]]] = {}
    for a in record["actions"]:
        seats.setdefault(a["seat"], []).append(a["action"])
    return seats


async def test_two_servers_with_the_same_test_seed_deal_and_play_the_same_games(
    database: Database, server_factory: ServerFactory, tmp_path: Path
) -> None:
    other = Database(url=f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}")
    records = []
    for db in (database, other):
        server = server_factory(db, TEST_SEED="1000")
        # The first game from TEST_SEED itself, one named by its start request, then the third
        # game of the database from TEST_SEED + 2.
        records.append(
            [await _play(server, None), await _play(server, 77), await _play(server, None)]
        )
        assert WARNING in server.log()
        server.stop()
    here, there = records
    assert [r["seed"] for r in here] == [r["seed"] for r in there] == ["1000", "77", "1002"]
    for mine, theirs in zip(here, there, strict=True):
        # The bots' seeds follow from the game's: every seat played the same moves.
        assert _by_seat(mine) == _by_seat(theirs)
        assert mine["winner"] == theirs["winner"] is not None
        assert mine["version"] == theirs["version"]
    # Different seeds, different games.
    assert _by_seat(here[0]) != _by_seat(here[2])
