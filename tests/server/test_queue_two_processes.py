"""Two server processes on one Postgres database share one queue: players queued through both,
joining and leaving at the same moment, are never seated twice, and no table is formed from a
player who is seated elsewhere or has left."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

import httpx
import pytest

from app.core.security import hash_token
from tests.server.harness import Database, ServerProcess, advance, db_rows, until
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued

# Runs alone, after the parallel tests (scripts/test.sh): two processes and a grace period that must pass.
pytestmark = [pytest.mark.postgres, pytest.mark.serial]

ROUNDS = 4
PLAYERS = 14


async def test_two_processes_never_seat_a_queued_player_twice(
    pg_db: Database, server_factory: Any
) -> None:
    # No entry expires here (that is the next test's): on a busy machine a socket may come
    # seconds after its join, and an entry expired meanwhile would not be the race looked for.
    # The clocks are moved to run the queues' passes at the end, instead of waiting for them.
    # The queue's tables untimed: nobody connects to them, and at a timed table bots would
    # stand in for everyone once the grace has passed and finish the game (a busy machine,
    # or the moved clocks, get there).
    settings = {
        **QUEUE_SETTINGS,
        "QUEUE_GRACE_SECONDS": "60",
        "TEST_CLOCK": "0",
        "DEFAULT_TURN_SECONDS": "0",
        "DEFAULT_CHOOSE_SECONDS": "0",
    }
    one: ServerProcess = server_factory(pg_db, **settings)
    two: ServerProcess = server_factory(pg_db, **settings)
    rng = random.Random(8)
    everyone: list[Queued] = []
    leavers: dict[Queued, int] = {}  # the DELETE's answer: 200 left, 409 already matched
    for round_ in range(ROUNDS):
        players = []
        for n in range(PLAYERS):
            # Joined through one process; the socket on the other: the match made by either
            # must reach it.
            via, other = (one, two) if n % 2 else (two, one)
            p = Queued(via.http, other.ws, f"P{round_}-{n}")
            players.append(p)
        choices: list[int | str] = ["any", "any", 3, 4, 5]
        sizes = [rng.choice(choices) for _ in players]

        async def arrive(p: Queued, size: int | str) -> None:
            await p.join(size)
            await p.connect()

        await asyncio.gather(*(arrive(p, s) for p, s in zip(players, sizes, strict=True)))
        # A few leave at once, racing the passes of both processes.
        quitting = rng.sample(players, 3)

        async def quit_(p: Queued) -> None:
            leavers[p] = (await p.call("DELETE")).status_code

        await asyncio.gather(*(quit_(p) for p in quitting))
        everyone += players

    async def read_all() -> dict[Queued, dict[str, Any]]:
        read = await asyncio.gather(*(p.read() for p in everyone))
        return dict(zip(everyone, read, strict=True))

    # The last passes of both processes are over once one of each changes nothing (the
    # entries left waiting cannot fill a table): a move of both clocks returns after a pass
    # of each queue's loop.
    async with (
        httpx.AsyncClient(base_url=one.http, timeout=20) as http1,
        httpx.AsyncClient(base_url=two.http, timeout=20) as http2,
    ):
        tickets = await read_all()
        for _ in range(30):
            await advance(http1, 0.5)
            await advance(http2, 0.5)
            again = await read_all()
            if again == tickets:
                break
            tickets = again
        else:
            raise AssertionError("the queue never settled")
    for p, code in leavers.items():
        assert code in (200, 409), code
        assert tickets[p]["status"] == ("left" if code == 200 else "matched"), (code, tickets[p])
    matched = {p: t for p, t in tickets.items() if t["status"] == "matched"}
    assert matched, "no table was formed"

    seats = await db_rows(
        pg_db, "SELECT table_id, seat, name, token_hash, bot FROM seats ORDER BY table_id, seat"
    )
    people = [s for s in seats if not s.bot]
    # Each seated person is exactly one matched ticket, seated once; no one else is seated.
    assert Counter(s.name for s in people).most_common(1)[0][1] == 1
    assert sorted(s.name for s in people) == sorted(p.name for p in matched)
    for p, t in matched.items():
        (row,) = [s for s in people if s.name == p.name]
        assert (row.table_id, row.seat, row.token_hash) == (
            t["table_id"],
            t["seat"],
            hash_token(t["seat_token"]),
        )
    # Every table is full and started; its players fit its size.
    tables = await db_rows(pg_db, "SELECT id, seats, status FROM tables")
    by_table = Counter(s.table_id for s in seats)
    for table in tables:
        assert by_table[table.id] == table.seats, table
        assert table.status == "playing", table
        for t in matched.values():
            if t["table_id"] == table.id:
                assert t["size"] in ("any", table.seats)
    # The socket of each matched player (on the other process) was told its seat.
    for p, t in matched.items():
        m = await p.wait_for("matched", timeout=5)
        assert (m["table_id"], m["seat"], m["token"]) == (t["table_id"], t["seat"], t["seat_token"])
    for p in everyone:
        await p.close()


async def test_a_crashed_process_entries_expire_and_are_never_matched(
    pg_db: Database, server_factory: Any
) -> None:
    doomed: ServerProcess = server_factory(pg_db, **QUEUE_SETTINGS)
    alive: ServerProcess = server_factory(pg_db, **QUEUE_SETTINGS)
    vic = Queued(doomed.http, doomed.ws, "Vic")
    await vic.join(3)
    await vic.connect()
    await vic.wait_for("queue")
    doomed.kill()  # SIGKILL: its socket is gone without a close, nobody refreshes Vic's entry
    vic.http = alive.http

    async def expired() -> bool:
        return bool((await vic.read())["status"] == "left")

    await until(expired, what="Vic's entry expires")  # longer than the grace
    wes, xia = Queued(alive.http, alive.ws, "Wes"), Queued(alive.http, alive.ws, "Xia")
    for p in (wes, xia):
        await p.join(3)
        await p.connect()
    assert (await vic.read())["status"] == "left"
    assert (await vic.read())["reason"] == "expired"
    assert (await wes.wait_for("queue", waiting=2))["needed"] == 1
    assert await db_rows(pg_db, "SELECT id FROM tables") == []
    for p in (vic, wes, xia):
        await p.close()
