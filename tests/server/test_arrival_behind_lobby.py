"""A seat socket whose arrival read the table before a lobby change still ends up with the changed
table (app.table.audience `arrive`, app.table.hub `lobby_changed`).

A seat's arrival reads the table's rows in the statement that writes its presence (app.store
.arrivals), before the socket joins the table's room. A lobby change made meanwhile (a bot added)
reads the table again and tells the room's sockets, but not this one, which has not joined yet: if
the socket then showed the rows its own arrival read, it would miss the bot until the next change.
Here the arrival is held back by a lock on its seat's row (its read is then older than the bot),
the bot is added, and the lock let go: the socket's table must list the bot, whether the room
that added it was kept meanwhile (a spectator watching) or dropped and made again."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg
import httpx
import pytest
import websockets

from app.core.security import hash_token
from tests.server.harness import Database, SeatClient, ServerProcess, add_bots, create_table, join


def _names(client: SeatClient) -> set[str]:
    return {p["name"] for p in (client.table or {}).get("players", [])}


async def _wait_blocked(conn: asyncpg.Connection, holder: int) -> None:
    """Until a statement waits for a lock the backend `holder` holds: the arrival's, on its
    seat's row (other tests' statements never wait for this test's lock)."""
    for _ in range(400):
        if await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", holder
        ):
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the arrival never waited for the seat's lock")


@pytest.mark.postgres
@pytest.mark.parametrize("watched", [True, False], ids=["room-kept", "room-dropped"])
async def test_an_arrival_that_read_the_table_before_a_bot_was_added_shows_the_bot(
    pg_db: Database, server_factory: Any, watched: bool
) -> None:
    database = pg_db  # a seat row's lock in Postgres holds the arrival back
    # Rows read by the room count as fresh for half of 3 heartbeats: at 0.1 s, they are stale
    # by the time the seat arrives, so its arrival reads the table (as after a quiet while).
    server: ServerProcess = server_factory(database, PRESENCE_HEARTBEAT_SECONDS="0.1")

    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4, timed=False)
        ann = await join(http, table_id, "Ann")
        # A spectator keeps the room (and what it read of the table) from one change to the next;
        # without one, the room the bot's request made is dropped when it ends.
        async with contextlib.AsyncExitStack() as stack:
            if watched:
                spectator = await stack.enter_async_context(
                    websockets.connect(f"{server.ws}/ws/tables/{table_id}")
                )
                await asyncio.wait_for(spectator.recv(), 10)
                await asyncio.sleep(0.3)  # the room's rows are older than 0.15 s: not fresh
            db = await asyncpg.connect(database.url.replace("postgresql+asyncpg", "postgresql"))
            try:
                await db.execute(f'SET search_path TO "{database.schema}"')
                lock = db.transaction()
                await lock.start()
                await db.execute(
                    "SELECT 1 FROM seats WHERE token_hash = $1 FOR UPDATE", hash_token(ann.token)
                )
                page = SeatClient(server.ws, table_id, ann.token, ann.seat)
                connecting = asyncio.create_task(page.connect())
                monitor = await asyncpg.connect(
                    database.url.replace("postgresql+asyncpg", "postgresql")
                )
                try:
                    await _wait_blocked(monitor, db.get_server_pid())
                finally:
                    await monitor.close()
                await add_bots(http, ann, 1, "random")  # the room reads the table again
                await lock.rollback()  # the arrival goes on, with its older read
                await connecting
            finally:
                await db.close()
            try:
                first = await page.wait_for(lambda m: m["type"] == "table")
                if watched:
                    # The room's later read is what the socket is shown, from its first frame.
                    assert len(first["table"]["players"]) == 2
                else:
                    # The room made for the socket reads the table again, and sends it.
                    await page.wait_for(lambda m: m["type"] == "table" and len(_names(page)) == 2)
                assert "Ann" in _names(page)
            finally:
                await page.close()
