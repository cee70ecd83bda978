"""Absent players: another seated person hands a seat whose person has been away for the
grace period to a bot, which plays it to the end; the person comes back and takes the seat back at
their next prompt; and every refusal (too early, an online seat, not seated, a spectator)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from tests.server.harness import (
    Database,
    Seat,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bearer,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
    until,
    wait_game_over,
)
from tests.server.timed import is_notice, move_clocks_while_waiting, notices

GRACE = 3
# The test that asks too early needs the grace not to have passed meanwhile: a longer one, so
# that a busy machine does not end it first.
LONG_GRACE = 10


def _player(table: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(p for p in table["players"] if p["seat"] == seat)


async def _setup(
    http: httpx.AsyncClient, server: ServerProcess, grace: int = GRACE
) -> tuple[str, Seat, Seat, SeatClient, SeatClient]:
    # Untimed (time limits are the default): here seated people hand the seat over;
    # a timed table's server does it by itself once the grace has passed.
    r = await http.post(
        "/api/tables",
        json={"seats": 3, "grace_seconds": grace, "turn_seconds": None, "choose_seconds": None},
    )
    assert r.status_code == 201 and r.json()["grace_seconds"] == grace
    table_id = r.json()["id"]
    ann = await join(http, table_id, "Ann")
    bob = await join(http, table_id, "Bob")
    await add_bots(http, ann, 1)
    a = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 1))
    b = SeatClient(server.ws, table_id, bob.token, bob.seat, bot_strategy("heuristic", 2))
    await a.connect()
    await b.connect()
    await a.arrived()
    await b.arrived()
    return table_id, ann, bob, a, b


async def _hand(http: httpx.AsyncClient, table_id: str, seat: int, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return await http.post(f"/api/tables/{table_id}/seats/{seat}/standin", headers=headers)


async def _absent(client: SeatClient, seat: int, timeout: float = 20) -> None:
    await client.wait_for(
        lambda m: m["type"] == "table" and _player(m["table"], seat)["absent"], timeout
    )


async def _actions(database: Database, table_id: str) -> list[Any]:
    return await db_rows(
        database,
        "SELECT a.version, a.seat, a.action_id FROM actions a JOIN games g ON g.id = a.game_id "
        "WHERE g.table_id = :t ORDER BY a.version",
        t=table_id,
    )


async def test_a_seated_player_hands_an_absent_seat_to_a_bot_which_finishes_the_game(
    database: Database, server_factory: Any
) -> None:
    # The grace runs on the server's clock, which the test moves past it.
    server: ServerProcess = server_factory(database, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, ann, bob, a, b = await _setup(http, server, LONG_GRACE)
        other = await join(http, await create_table(http, 3), "Zed")
        # Before the start there is nothing to hand over.
        r = await _hand(http, table_id, bob.seat, ann.token)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "not_started"
        await start(http, ann)
        await a.wait_for(lambda m: m["type"] == "state")
        # Bob is here: his seat is not anyone else's to give.
        r = await _hand(http, table_id, bob.seat, ann.token)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "seat_online"
        # Bob leaves for good.
        await b.close()
        await a.wait_for(
            lambda m: m["type"] == "table" and not _player(m["table"], bob.seat)["connected"]
        )
        away_since = time.monotonic()
        too_early = await _hand(http, table_id, bob.seat, ann.token)
        assert time.monotonic() - away_since < LONG_GRACE, "the machine is too slow for this test"
        refusals = {
            "too_early": too_early,
            "own_seat": await _hand(http, table_id, ann.seat, ann.token),
            "not_a_person": await _hand(http, table_id, 2, ann.token),  # the bot's seat
            "missing_token": await _hand(http, table_id, bob.seat, None),  # a spectator
            "invalid_token": await _hand(http, table_id, bob.seat, "not-a-token"),
            "not_seated": await _hand(http, table_id, bob.seat, other.token),
        }
        for code, r in refusals.items():
            assert r.json()["detail"]["code"] == code, (code, r.text)
            assert r.status_code == {
                "missing_token": 401,
                "invalid_token": 401,
                "not_seated": 403,
            }.get(code, 409)
        assert "try again in" in refusals["too_early"].json()["detail"]["message"]
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert not _player(table, bob.seat)["stand_in"]  # nothing changed
        (row,) = await db_rows(
            database,
            "SELECT stand_in FROM seats WHERE table_id = :t AND seat = :s",
            t=table_id,
            s=bob.seat,
        )
        assert not row.stand_in

        # Once the grace period has passed, every socket shows Bob absent: one click hands it.
        await advance(http, LONG_GRACE)
        await _absent(a, bob.seat)
        r = await _hand(http, table_id, bob.seat, ann.token)
        assert r.status_code == 200, r.text
        assert _player(r.json(), bob.seat)["stand_in"]
        r = await _hand(http, table_id, bob.seat, ann.token)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "already_stand_in"
        # Only Bob takes his seat back.
        r = await http.delete(
            f"/api/tables/{table_id}/seats/{bob.seat}/standin", headers=bearer(ann)
        )
        assert r.status_code == 403 and r.json()["detail"]["code"] == "not_your_seat"

        await a.play_until_over(90)
        await wait_game_over(http, table_id)
        said = notices(a)
        assert [(n["kind"], n["seat"], n["data"]["by"], n["data"]["by_name"]) for n in said] == [
            ("stand_in", bob.seat, ann.seat, "Ann")
        ]
        rows = await _actions(database, table_id)
        handed = said[0]["data"]["version"]
        after = [r.action_id for r in rows if r.seat == bob.seat and r.version > handed]
        assert after and all(i.startswith("~bot-") for i in after)
        # A socket that connects later is told too.
        late = SeatClient(server.ws, table_id, None, None)
        await late.connect()
        await late.wait_for(is_notice("stand_in"))
        await late.close()
        await a.close()


async def test_the_player_comes_back_and_takes_the_seat_back_at_their_next_prompt(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, ann, bob, a, b = await _setup(http, server)
        await start(http, ann)
        await b.close()
        # Ann plays on while Bob is away; the table waits for Bob's bid.
        play = asyncio.create_task(a.play_until_over(120))

        async def bob_away() -> bool:
            table = (await http.get(f"/api/tables/{table_id}")).json()
            return not _player(table, bob.seat)["connected"]

        await until(bob_away, what="the server sees Bob leave")
        await advance(http, GRACE)  # the grace period passes
        r = await _hand(http, table_id, bob.seat, ann.token)
        assert r.status_code == 200, r.text
        # The bot plays for Bob.
        ends = time.monotonic() + 20
        while not any(
            r.seat == bob.seat and r.action_id.startswith("~bot-")
            for r in await _actions(database, table_id)
        ):
            assert time.monotonic() < ends, "the stand-in never played"
            await asyncio.sleep(0.1)
        # Bob comes back with his token: the page is told, and the seat is his again.
        b.messages.clear()
        await b.connect()
        await b.wait_for(is_notice("back"))
        (back,) = notices(b, ("back",))
        assert back["seat"] == bob.seat and back["name"] == "Bob"
        table = await b.wait_for(
            lambda m: m["type"] == "table" and not _player(m["table"], bob.seat)["stand_in"]
        )
        assert _player(table["table"], bob.seat)["connected"]
        await asyncio.gather(play, b.play_until_over(120))
        await wait_game_over(http, table_id)
        rows = await _actions(database, table_id)
        mine = [
            r.action_id for r in rows if r.seat == bob.seat and r.version > back["data"]["version"]
        ]
        # From his next prompt on, Bob played every decision himself.
        assert mine and not any(i.startswith("~") for i in mine), mine
        assert set(b.acks) >= set(mine)
        kinds = [(n["kind"], n["seat"]) for n in notices(a)]
        assert kinds == [("stand_in", bob.seat), ("back", bob.seat)]
        await a.close()
        await b.close()


@pytest.mark.postgres
async def test_two_processes_time_a_seat_out_once_and_agree_on_its_stand_in(
    pg_db: Database, server_factory: Any
) -> None:
    # Postgres: processes hear of each other's table changes through LISTEN/NOTIFY (a second
    # process on one SQLite file only catches up game versions).
    database = pg_db
    # Both processes' clocks move together past each of Bob's time limits (10 s, which no busy
    # machine reaches by itself); the grace is longer than the game, so only the two time-outs
    # in a row hand his seat over.
    one: ServerProcess = server_factory(database, TEST_CLOCK="0")
    two: ServerProcess = server_factory(database, TEST_CLOCK="0")
    async with (
        httpx.AsyncClient(base_url=one.http, timeout=20) as http,
        httpx.AsyncClient(base_url=two.http, timeout=20) as http2,
    ):
        r = await http.post(
            "/api/tables",
            json={"seats": 3, "turn_seconds": 10, "choose_seconds": 10, "grace_seconds": 3600},
        )
        table_id = r.json()["id"]
        ann = await join(http, table_id, "Ann")
        bob = await join(http, table_id, "Bob")  # never answers, holds no socket
        await add_bots(http, ann, 1)
        # Ann plays on the first process; a spectator watches on the second, so both processes
        # hold the game, its clock and its bots.
        a = SeatClient(one.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 3))
        watcher = SeatClient(two.ws, table_id, None, None)
        await a.connect()
        await watcher.connect()
        await start(http, ann)

        def silent(seat: int) -> bool:  # Bob, until the clock answered for him twice
            timed_out = [e for e in watcher.events if e["type"] == "timed_out"]
            return seat == bob.seat and len(timed_out) < 2

        watching = asyncio.create_task(watcher.play_until_over(180))
        moves = move_clocks_while_waiting(watcher, silent, [http, http2], 10)
        await asyncio.gather(a.play_until_over(180), moves, watching)
        await wait_game_over(http, table_id)
        for client in (a, watcher):
            if not notices(client):
                await client.wait_for(is_notice("stand_in"), 10)
            await client.drain()
    rows = await _actions(database, table_id)
    bobs = [r.action_id for r in rows if r.seat == bob.seat]
    # Two time-outs (one each, though both processes watched the clock), then the stand-in.
    assert [i.startswith("~timeout-") for i in bobs[:2]] == [True, True]
    assert bobs[2:] and all(i.startswith("~bot-") for i in bobs[2:])
    for client in (a, watcher):
        said = [(n["kind"], n["seat"], n["data"]["by"]) for n in notices(client)]
        assert said == [("stand_in", bob.seat, None)]
        timed_out = [e for e in client.events if e["type"] == "timed_out"]
        assert [(e["seat"], e["prompt"]) for e in timed_out] == [(bob.seat, "bid")] * 2
    await a.close()
    await watcher.close()
