"""The matchmaking queue with a real server, real queue sockets and a real database (SQLite and
Postgres): tables formed by the rule, bots after the wait, leaving, and bad input."""

from __future__ import annotations

import functools
from typing import Any

import httpx

from app.core.security import hash_token
from tests.server.harness import Database, SeatClient, ServerProcess, advance, db_rows, until
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued, seated_names


async def move_clock(server: ServerProcess, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        await advance(http, seconds)


async def test_any_4_4_any_get_one_four_seat_table_and_the_game_starts(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **QUEUE_SETTINGS)
    ann, bob, cat, dan = (Queued(server.http, server.ws, n) for n in ("Ann", "Bob", "Cat", "Dan"))
    for player, size in ((ann, "any"), (bob, 4), (cat, 4)):
        await player.join(size)
        assert player.joined["status"] == "waiting"
        await player.connect()
    # Three wait: the first three do not make a 3-seat table (Bob and Cat want 4).
    shown = await ann.wait_for("queue", waiting=3)
    assert (shown["target"], shown["needed"], shown["can_accept_bots"]) == (4, 1, False)
    assert (await bob.wait_for("queue", waiting=3))["target"] == 4
    assert await db_rows(database, "SELECT id FROM tables") == []

    await dan.join("any")
    await dan.connect()
    matched = {p.name: await p.wait_for("matched") for p in (ann, bob, cat, dan)}
    (table_id,) = {m["table_id"] for m in matched.values()}
    # Seated in queue order: the longest waiting first (the host).
    assert {n: m["seat"] for n, m in matched.items()} == {"Ann": 0, "Bob": 1, "Cat": 2, "Dan": 3}
    assert all(m["bots"] == 0 for m in matched.values())
    assert await seated_names(server.http, table_id) == [
        (0, "Ann", False),
        (1, "Bob", False),
        (2, "Cat", False),
        (3, "Dan", False),
    ]

    # Matched (and told) in one commit, started just after: the start is waited for.
    async def started() -> list[Any] | None:
        rows = await db_rows(database, "SELECT id, seats, status, public FROM tables")
        return rows if any(t.status != "open" for t in rows) else None

    tables = await until(started, what="the queue's table starts")
    assert [(t.id, t.seats, t.status) for t in tables] == [(table_id, 4, "playing")]
    assert tables[0].public
    seats = await db_rows(database, "SELECT seat, token_hash FROM seats ORDER BY seat")
    assert [s.token_hash for s in seats] == [
        hash_token(matched[n]["token"]) for n in ("Ann", "Bob", "Cat", "Dan")
    ]
    # The ticket can be read again (a page reload): the same seat and token.
    again = await bob.read()
    assert (again["status"], again["table_id"], again["seat"], again["seat_token"]) == (
        "matched",
        table_id,
        1,
        matched["Bob"]["token"],
    )
    # The socket is closed once matched; the seat token opens the table's socket.
    for p in (ann, bob, cat, dan):
        await p.close()
    seat = SeatClient(server.ws, table_id, matched["Cat"]["token"], 2)
    await seat.connect()
    hello = await seat.wait_for(lambda m: m["type"] == "hello")
    assert (hello["seat"], hello["name"]) == (2, "Cat")
    state = await seat.wait_for(lambda m: m["type"] == "state")
    assert len(state["view"]["players"]) == 4
    await seat.close()


async def test_a_lone_player_accepts_bots_after_the_wait(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **QUEUE_SETTINGS)
    # Before the wait: refused, nothing changes. (A wait of a minute: however busy the machine,
    # it has not passed by the time the refusal is asked for.)
    eli = Queued(server.http, server.ws, "Eli")
    await eli.join("any", bots_after=60)
    await eli.connect()
    first = await eli.wait_for("queue")
    assert (first["target"], first["waiting"], first["can_accept_bots"]) == (3, 1, False)
    r = await eli.call("POST", "/bots")
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "bots_not_yet")
    assert (await eli.read())["status"] == "waiting"
    assert (await eli.call("DELETE")).status_code == 200
    await eli.close()
    # After the wait (a second): accepted.
    eve = Queued(server.http, server.ws, "Eve")
    await eve.join("any", bots_after=1)
    await eve.connect()
    first = await eve.wait_for("queue")
    assert (first["target"], first["waiting"]) == (3, 1)
    await eve.wait_for("queue", can_accept_bots=True, timeout=20)
    await eve.ws.send('{"type": "bots"}')
    matched = await eve.wait_for("matched")
    assert (matched["seat"], matched["bots"]) == (0, 3)  # "any" accepts bots at a 4-seat table
    players = await seated_names(server.http, matched["table_id"])
    assert players == [
        (0, "Eve", False),
        (1, "Bot 2", True),
        (2, "Bot 3", True),
        (3, "Bot 4", True),
    ]
    # The ticket is matched (and its socket told) in one commit, the game started just after:
    # two events whose order a socket may see either way; the game starts, waited for.
    async with httpx.AsyncClient(base_url=server.http) as http:

        async def playing() -> dict[str, Any] | None:
            table = (await http.get(f"/api/tables/{matched['table_id']}")).json()
            return table if table["status"] != "open" else None

        table = await until(playing, what="the queue's table starts")
    assert table["status"] == "playing" and table["game_id"]
    await eve.close()

    # Over HTTP, with the size asked and another waiting player who fits.
    fay, gus = Queued(server.http, server.ws, "Fay"), Queued(server.http, server.ws, "Gus")
    await fay.join(3, bots_after=0)
    await gus.join("any", bots_after=600)
    for p in (fay, gus):
        await p.connect()
    r = await gus.call("POST", "/bots")
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "bots_not_yet")
    r = await fay.call("POST", "/bots")
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["status"], out["seat"], out["bots"]) == ("matched", 0, 1)
    assert (await gus.wait_for("matched"))["table_id"] == out["table_id"]
    assert await seated_names(server.http, out["table_id"]) == [
        (0, "Fay", False),
        (1, "Gus", False),
        (2, "Bot 3", True),
    ]
    # Accepting again: the ticket already has its seat.
    r = await fay.call("POST", "/bots")
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "already_matched")
    for p in (fay, gus):
        await p.close()


async def test_a_player_who_left_is_never_seated(database: Database, server_factory: Any) -> None:
    # The grace runs on the server's clock, which the test moves past it.
    server: ServerProcess = server_factory(database, **QUEUE_SETTINGS, TEST_CLOCK="0")
    # Explicit leave, by HTTP and by the socket.
    lea, max_ = Queued(server.http, server.ws, "Lea"), Queued(server.http, server.ws, "Max")
    await lea.join(3)
    await lea.connect()
    await max_.join(3)
    await max_.connect()
    r = await lea.call("DELETE")
    assert r.status_code == 200 and (r.json()["status"], r.json()["reason"]) == ("left", "left")
    assert (await lea.wait_for("left"))["reason"] == "left"
    await max_.ws.send('{"type": "leave"}')
    assert (await max_.wait_for("left"))["reason"] == "left"
    r = await lea.call("DELETE")
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "left_queue")
    r = await lea.call("POST", "/bots")
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "left_queue")

    # A ticket whose socket never came (Ola), then a closed page (Ned): Ned's socket closes and
    # the others arrive at once, within the grace: he is not seated with them; after the grace
    # both entries have left.
    ola = Queued(server.http, server.ws, "Ola")
    await ola.join(3)

    async def left(p: Queued) -> bool:
        return bool((await p.read())["status"] == "left")

    assert not await left(ola)
    # Longer than the grace (QUEUE_GRACE_SECONDS=3): her entry has left the queue.
    await move_clock(server, 3.5)
    await until(lambda: left(ola), what="Ola's entry expires")
    ned = Queued(server.http, server.ws, "Ned")
    await ned.join(3)
    await ned.connect()
    await ned.wait_for("queue")
    await ned.close()

    async def ned_closed() -> bool:
        rows = await db_rows(
            database, "SELECT closed_at FROM queue_entries WHERE id = :t", t=ned.ticket
        )
        return rows[0].closed_at is not None

    await until(ned_closed, what="the server sees Ned's socket close")
    others = [Queued(server.http, server.ws, n) for n in ("Pia", "Qui", "Ray")]
    for p in others:
        await p.join(3)
        await p.connect()
    matched = [await p.wait_for("matched") for p in others]
    (table_id,) = {m["table_id"] for m in matched}
    names = [n for _s, n, _b in await seated_names(server.http, table_id)]
    assert names == ["Pia", "Qui", "Ray"]
    await move_clock(server, 3.5)
    for p in (lea, max_, ned, ola):  # Ned's entry, too, once the grace is over
        await until(functools.partial(left, p), what=f"{p.name}'s entry leaves")
    for p in (lea, max_, ned, ola):
        ticket = await p.read()
        assert ticket["status"] == "left" and ticket["table_id"] is None, ticket
    assert {(await p.read())["reason"] for p in (ned, ola)} == {"expired"}
    seated = await db_rows(database, "SELECT name FROM seats")
    assert sorted(s.name for s in seated) == ["Pia", "Qui", "Ray"]
    for p in others:
        await p.close()


async def test_a_page_reload_keeps_the_place_in_the_queue(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **QUEUE_SETTINGS, TEST_CLOCK="0")
    sam, tia, uma = (Queued(server.http, server.ws, n) for n in ("Sam", "Tia", "Uma"))
    await sam.join(3)
    await sam.connect()
    await sam.wait_for("queue")
    await sam.close()

    async def sam_closed() -> bool:
        rows = await db_rows(
            database, "SELECT closed_at FROM queue_entries WHERE id = :t", t=sam.ticket
        )
        return rows[0].closed_at is not None

    await until(sam_closed, what="the server sees Sam's socket close")
    await sam.connect()  # the reloaded page opens the socket again within the grace
    await sam.wait_for("queue")
    # Longer than the grace (3 s): kept alive by the socket's heartbeats, which the queue's
    # loop writes as the clock moves in steps shorter than the grace.
    for _ in range(8):
        await move_clock(server, 0.5)
    assert (await sam.read())["status"] == "waiting"
    for p in (tia, uma):
        await p.join(3)
        await p.connect()
    matched = [await p.wait_for("matched") for p in (sam, tia, uma)]
    assert [m["seat"] for m in matched] == [0, 1, 2]
    for p in (sam, tia, uma):
        await p.close()
