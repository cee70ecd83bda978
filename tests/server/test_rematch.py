"""Play again with the same players: the first call opens a new table with the same
settings, linked from the old one; each person who accepts is seated there once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    Seat,
    SeatClient,
    ServerProcess,
    bearer,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
    wait_game_over,
)


async def _finished_game(
    http: httpx.AsyncClient, server: ServerProcess, names: tuple[str, str]
) -> tuple[str, list[Seat], list[SeatClient]]:
    """A 3-seat table (two people and a bot, 20-second turns) whose game is over; the people's
    sockets stay open."""
    table_id = await create_table(http, 3)
    seats = [await join(http, table_id, n) for n in names]
    r = await http.patch(
        f"/api/tables/{table_id}", json={"turn_seconds": 20}, headers=bearer(seats[0])
    )
    assert r.status_code == 200, r.text
    r = await http.post(
        f"/api/tables/{table_id}/bots",
        json={"count": 1, "kind": "random"},
        headers=bearer(seats[0]),
    )
    assert r.status_code == 200, r.text
    pages = [
        SeatClient(server.ws, table_id, s.token, s.seat, strategy=bot_strategy("heuristic", n))
        for n, s in enumerate(seats)
    ]
    for page in pages:
        await page.connect()
        await page.wait_for(lambda m: m["type"] == "table")
    await start(http, seats[0])
    await asyncio.gather(*(p.play_until_over() for p in pages))
    await wait_game_over(http, table_id)
    return table_id, seats, pages


async def _rematch(http: httpx.AsyncClient, seat: Seat, body: Any = None) -> httpx.Response:
    return await http.post(f"/api/tables/{seat.table_id}/rematch", json=body, headers=bearer(seat))


async def test_rematch_seats_everyone_who_accepts_once(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        # Not before the end.
        early = await create_table(http, 3)
        eve = await join(http, early, "Eve")
        r = await _rematch(http, eve)
        assert (r.status_code, r.json()["detail"]["code"]) == (409, "not_over")

        old, (ann, bea), (ann_page, bea_page) = await _finished_game(http, server, ("Ann", "Bea"))
        before = (await http.get(f"/api/tables/{old}")).json()
        assert before["rematch_id"] is None and before["host"] == ann.seat
        r = await http.post(f"/api/tables/{old}/rematch")
        assert (r.status_code, r.json()["detail"]["code"]) == (401, "missing_token")
        r = await http.post(f"/api/tables/{old}/rematch", headers=bearer(eve))
        assert (r.status_code, r.json()["detail"]["code"]) == (403, "not_seated")

        # Bea (not the host) opens it: her "no bots" is not hers to choose; the bot keeps its seat.
        r = await _rematch(http, bea, {"bots": False})
        assert r.status_code == 200, r.text
        first = r.json()
        new = first["table_id"]
        assert new != old and first["seat"] == bea.seat
        # Everyone at the old table sees the link at once, on their socket.
        for page in (ann_page, bea_page):
            await page.wait_for(lambda m: m["type"] == "table" and m["table"]["rematch_id"] == new)
        linked = (await http.get(f"/api/tables/{old}")).json()
        assert (linked["rematch_id"], linked["rematch_path"]) == (new, f"/t/{new}")

        table = (await http.get(f"/api/tables/{new}")).json()
        assert (table["status"], table["seats"], table["public"], table["turn_seconds"]) == (
            "open",
            3,
            True,
            20,
        )
        assert [(p["name"], p["bot"]) for p in table["players"]] == [
            (p["name"], p["bot"]) for p in before["players"] if p["name"] != "Ann"
        ]
        assert table["host"] == bea.seat  # the first to accept hosts

        # Asking again: the same seat and token, no second seat.
        again = await _rematch(http, bea)
        assert again.status_code == 200 and again.json() == first
        # Ann accepts: her own seat, her name; both at once stay one seat each.
        answers = await asyncio.gather(_rematch(http, ann), _rematch(http, ann))
        assert answers[0].json() == answers[1].json()
        mine = answers[0].json()
        assert (mine["table_id"], mine["seat"]) == (new, ann.seat)
        table = (await http.get(f"/api/tables/{new}")).json()
        assert table["taken"] == 3 and sorted(p["name"] for p in table["players"])[:2] == [
            "Ann",
            "Bea",
        ]
        assert table["host"] == bea.seat
        # The new tokens work: Bea (host) starts the new game; Ann's token is seated there.
        r = await http.post(
            f"/api/tables/{new}/start", headers={"Authorization": f"Bearer {first['token']}"}
        )
        assert r.status_code == 200, r.text
        ann_new = SeatClient(server.ws, new, mine["token"], mine["seat"])
        await ann_new.connect()
        hello = await ann_new.wait_for(lambda m: m["type"] == "hello")
        assert (hello["seat"], hello["name"]) == (ann.seat, "Ann")
        # Still idempotent after the start.
        assert (await _rematch(http, ann)).json() == mine
        for page in (ann_page, bea_page, ann_new):
            await page.close()


async def test_the_host_may_leave_the_bots_out(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        _old, (ann, bea), pages = await _finished_game(http, server, ("Ann", "Bea"))
        r = await _rematch(http, ann, {"bots": False})
        assert r.status_code == 200, r.text
        table = (await http.get(f"/api/tables/{r.json()['table_id']}")).json()
        assert [p["name"] for p in table["players"]] == ["Ann"] and table["host"] == ann.seat
        r = await _rematch(http, bea, {"bots": True})  # too late, and not hers to choose
        table = (await http.get(f"/api/tables/{r.json()['table_id']}")).json()
        assert sorted(p["name"] for p in table["players"]) == ["Ann", "Bea"]
        for page in pages:
            await page.close()


async def test_two_processes_open_one_rematch(database: Database, server_factory: Any) -> None:
    one: ServerProcess = server_factory(database)
    two: ServerProcess = server_factory(database)
    async with (
        httpx.AsyncClient(base_url=one.http, timeout=30) as http1,
        httpx.AsyncClient(base_url=two.http, timeout=30) as http2,
    ):
        old, (ann, bea), pages = await _finished_game(http1, one, ("Ann", "Bea"))
        # Both accept at the same moment, each through another process: one new table.
        answers = await asyncio.gather(_rematch(http1, ann), _rematch(http2, bea))
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        new = {a.json()["table_id"] for a in answers}
        assert len(new) == 1
        (new_id,) = new
        assert (await http2.get(f"/api/tables/{old}")).json()["rematch_id"] == new_id
        rows = await db_rows(database, "SELECT id FROM tables WHERE id <> :old", old=old)
        assert [r.id for r in rows] == [new_id]  # no second, orphan table
        table = (await http1.get(f"/api/tables/{new_id}")).json()
        assert sorted(p["name"] for p in table["players"]) == ["Ann", "Bea", "Bot 3"]
        for page in pages:
            await page.close()
