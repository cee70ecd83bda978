"""Web Push with a table's seats on two server processes (Postgres). A process decides whom to
wake after its own commit from what it knows in memory (the table's rows, kept current by the
other process's notices) once it has heard that commit's own notice: Postgres delivers notices in
commit order, so a departure committed elsewhere before the move is known by then. Pinned here:
a player online on the other process is not pushed when a move here asks them; once their socket
there has closed (as the database shows), the next move here that asks them pushes them, at once.
Without push's rate limit (PUSH_EVERY_MINUTES=0), so that a wrong push would show as a second one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.core.config import Settings
from app.store.db import make_engine
from tests import deals
from tests.server.harness import (
    Database,
    ServerProcess,
    bot_strategy,
    start,
    stop_tasks,
)
from tests.server.push_service import Player, PushService, metric, read_forever, signed_in, until

pytestmark = [pytest.mark.postgres, pytest.mark.serial]


@contextlib.asynccontextmanager
async def _presence_watch(
    database: Database, table_id: str, seat: int
) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """A connection opened beforehand, and what waits on it until the seat's departure is
    committed, looking every few milliseconds: the first process's rows still show the seat
    online for a moment after that (until its notice is heard and the table read again)."""
    engine = make_engine(Settings(database_url=database.url, database_schema=database.schema))
    query = text("SELECT away_since FROM seats WHERE table_id = :t AND seat = :s")
    try:
        async with engine.connect() as conn:

            async def away() -> None:
                ends = time.monotonic() + 30
                while True:
                    gone = (await conn.execute(query, {"t": table_id, "s": seat})).scalar()
                    await conn.rollback()  # a fresh snapshot each time
                    if gone is not None:
                        return
                    assert time.monotonic() < ends, "the departure never written"
                    await asyncio.sleep(0.002)

            await conn.execute(query, {"t": table_id, "s": seat})
            await conn.rollback()
            yield away
    finally:
        await engine.dispose()


def _answered(client: Player, actions: int) -> bool:
    """The client has sent `actions` actions or more, each acknowledged, and holds a state
    since its last one that asks it nothing."""
    if len(client.sent) < actions or client.pending is not None:
        return False
    last = client.acks[list(client.sent)[-1]]
    return client.version is not None and client.version >= last and client.my_prompt() is None


async def test_a_move_here_pushes_a_seat_that_left_the_other_process_and_no_other(
    pg_db: Database, server_factory: Any
) -> None:
    async with PushService() as service:
        settings = {
            "TEST_SEED": str(deals.FULL_GAME_SEED),
            "PUSH_TEST_ENDPOINTS": "true",
            "PUSH_EVERY_MINUTES": "0",
        }
        one: ServerProcess = server_factory(pg_db, **settings)
        two: ServerProcess = server_factory(pg_db, **settings)
        https: list[httpx.AsyncClient] = []
        try:
            await _play(one, two, service, pg_db, https)
        finally:
            for http in https:
                await http.aclose()


async def _play(
    one: ServerProcess,
    two: ServerProcess,
    service: PushService,
    database: Database,
    https: list[httpx.AsyncClient],
) -> None:
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as lobby:
        r = await lobby.post(
            "/api/tables",
            json={"seats": 3, "turn_seconds": None, "choose_seconds": None, "grace_seconds": 60},
        )
        assert r.status_code == 201, r.text
        table_id = r.json()["id"]
    seats, browsers = {}, {}
    for name in ("Ann", "Bob", "Cid"):
        http, seats[name] = await signed_in(one, table_id, name)
        https.append(http)
        browsers[name] = service.browser(name)
        r = await http.post("/api/me/push", json=browsers[name].subscription())
        assert r.status_code == 204, r.text
    # Ann and Bob on the first process, Cid on the second.
    ann, bob, cid = (
        Player(server.ws, table_id, seats[n].token, seats[n].seat, bot_strategy("heuristic", i))
        for i, (n, server) in enumerate((("Ann", one), ("Bob", one), ("Cid", two)))
    )
    readers: list[asyncio.Task[None]] = []
    try:
        for client in (ann, bob, cid):
            await client.connect()
            await client.arrived()
        ann.paused = bob.paused = True  # Cid bids first
        readers += [asyncio.create_task(read_forever(c)) for c in (ann, bob, cid)]
        await start(https[0], seats["Ann"])
        await until(lambda: _answered(cid, 1), "Cid's bid")

        # 1. Cid, online on the second process, is asked again by a move of Ann's or Bob's on
        # the first: not pushed.
        cid.paused = True
        ann.paused = bob.paused = False
        await ann.maybe_act()
        await bob.maybe_act()
        await until(lambda: cid.my_prompt() is not None, "Cid asked again")
        ann.paused = bob.paused = True

        # 2. Cid answers (what it is asked, until the game waits for the others) and leaves the
        # second process; the database shows Cid away.
        cid.paused = False
        await cid.maybe_act()
        await until(lambda: _answered(cid, 2), "Cid's answers")
        cid.paused = True
        await stop_tasks(readers.pop())
        async with _presence_watch(database, table_id, cid.seat or 0) as away:
            await cid.close()
            await away()
            # 3. Ann and Bob play on at once on the first process: the move that asks Cid
            # pushes.
            ann.paused = bob.paused = False
            await ann.maybe_act()
            await bob.maybe_act()
        await until(lambda: len(service.delivered("Cid")) == 1, "Cid's push")
        push = browsers["Cid"].read(service.delivered("Cid")[0].body)
        assert push["kind"] == "your_turn" and push["table_id"] == table_id, push
        # Only that one: the first process sent one push in all, nobody watching was pushed.
        sent = metric((await https[0].get("/metrics")).text, "dragonstones_push_sent_total")
        assert sent == 1, f"the first process sent {sent} pushes"
        assert len(service.requests["Cid"]) == 1, service.requests["Cid"]
        assert service.requests["Ann"] == [] and service.requests["Bob"] == []
    finally:
        for task in readers:
            await stop_tasks(task)
        for client in (ann, bob, cid):
            await client.close()
