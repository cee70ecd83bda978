"""Two server processes on one Postgres database share one queue: players queued through both,
joining and leaving at the same moment, are never seated twice, and no table is formed from a
player who is seated elsewhere or has left."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

import pytest

from app.core.security import hash_token
from tests.server.harness import Database, ServerProcess, db_rows
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued

pytestmark = pytest.mark.postgres

ROUNDS = 4
PLAYERS = 14


async def test_two_processes_never_seat_a_queued_player_twice(
    pg_db: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(pg_db, **QUEUE_SETTINGS)
    two: ServerProcess = server_factory(pg_db, **QUEUE_SETTINGS)
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
        sizes: list[int | str] = [rng.choice(["any", "any", 3, 4, 5]) for _ in players]

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
    await asyncio.sleep(1.0)  # the last passes and polls

    tickets = {p: await p.read() for p in everyone}
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
            t["table_id"], t["seat"], hash_token(t["seat_token"])
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
    await asyncio.sleep(3.5)  # longer than the grace
    wes, xia = Queued(alive.http, alive.ws, "Wes"), Queued(alive.http, alive.ws, "Xia")
    for p in (wes, xia):
        await p.join(3)
        await p.connect()
    vic.http = alive.http
    assert (await vic.read())["status"] == "left"
    assert (await vic.read())["reason"] == "expired"
    assert (await wes.wait_for("queue", waiting=2))["needed"] == 1
    assert await db_rows(pg_db, "SELECT id FROM tables") == []
    for p in (vic, wes, xia):
        await p.close()
