"""A seat socket at a table whose room holds its rows finds its seat by its token in memory
(app.edge.ws, app.store.arrival_batch): it is let in as before and its presence is written, and
every token the database would refuse is still refused the same way while the room holds rows
that knew it (a wrong token, another table's, a seat that left, a token changed behind the
room's back as another process would)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from app.core.security import hash_token
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    bearer,
    create_table,
    db_execute,
    db_rows,
    join,
)


def _connected(message: dict[str, Any], seat: int) -> bool | None:
    if message["type"] != "table":
        return None
    return bool(next(p["connected"] for p in message["table"]["players"] if p["seat"] == seat))


async def _let_in(server: ServerProcess, table_id: str, token: str) -> dict[str, Any]:
    client = SeatClient(server.ws, table_id, token, None)
    await client.connect()
    hello = await client.wait_for(lambda m: m["type"] == "hello")
    await client.wait_for(lambda m: m["type"] == "table")
    await client.close()
    return hello


async def _refused(server: ServerProcess, table_id: str, token: str, code: str) -> None:
    client = SeatClient(server.ws, table_id, token, None)
    await client.connect()
    assert await client.wait_closed() == 1008
    assert [m["code"] for m in client.messages if m["type"] == "error"] == [code]
    assert not any(m["type"] in ("hello", "table", "state") for m in client.messages)


async def test_tokens_found_in_memory_are_checked_as_the_database_would(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, 4)
        ann, bob, cy, dee = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cy", "Dee")]
        other_id = await create_table(http, 3)
        eve = await join(http, other_id, "Eve")
        # Ann's socket keeps the room, with the table's rows and their tokens, in memory.
        keeper = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await keeper.connect()
        await keeper.wait_for(lambda m: m["type"] == "table")
        try:
            # Bob comes, goes (written away: Ann is told) and comes back: found in memory,
            # written online.
            for _ in range(2):
                hello = await _let_in(server, table_id, bob.token)
                assert (hello["seat"], hello["name"]) == (bob.seat, "Bob")
                await keeper.wait_for(lambda m: _connected(m, bob.seat) is False)
            client = SeatClient(server.ws, table_id, bob.token, None)
            await client.connect()
            await client.wait_for(lambda m: m["type"] == "table")
            [(away, seen)] = await db_rows(
                database, "SELECT away_since, seen_at FROM seats WHERE name = 'Bob'"
            )
            assert away is None and seen is not None
            await client.close()

            # Dee's token changes behind the room's back (as another process giving her seat to
            # another browser would): the old one, still in the rows held, is refused.
            fresh = "d" * 43
            await db_execute(
                database,
                "UPDATE seats SET token_hash = :new WHERE token_hash = :old",
                new=hash_token(fresh),
                old=hash_token(dee.token),
            )
            await _refused(server, table_id, dee.token, "invalid_token")
            hello = await _let_in(server, table_id, fresh)
            assert (hello["seat"], hello["name"]) == (dee.seat, "Dee")

            await _refused(server, table_id, "not-a-token", "invalid_token")
            await _refused(server, table_id, eve.token, "not_seated")
            # Cy leaves: her token holds nothing any more.
            await _let_in(server, table_id, cy.token)
            r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(cy))
            assert r.status_code == 200, r.text
            await _refused(server, table_id, cy.token, "invalid_token")
            # And the others are still let in from memory.
            hello = await _let_in(server, table_id, bob.token)
            assert hello["seat"] == bob.seat
        finally:
            await keeper.close()


async def test_sockets_arriving_at_once_at_a_table_held_nowhere_each_get_their_own_seat(
    database: Database, server_factory: Any
) -> None:
    """A storm of arrivals at a table no room holds (each reads the table, the room is made by
    whichever comes first): each is let in as its own seat and shown online; a wrong token among
    them is refused, also when it is the first to arrive."""
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, 4)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cy", "Dee")]
        for round_ in range(3):
            # No socket left from the round before: the room is dropped, nothing is held.
            wrong = asyncio.create_task(_refused(server, table_id, "w" * 43, "invalid_token"))
            if round_ == 1:
                await asyncio.sleep(0)  # the wrong token first
            clients = [SeatClient(server.ws, table_id, s.token, None) for s in seats]
            await asyncio.gather(*(c.connect() for c in clients))
            hellos = await asyncio.gather(*(c.arrived() for c in clients))
            assert [(h["seat"], h["name"]) for h in hellos] == [(s.seat, s.name) for s in seats]
            await wrong
            # Every seat is shown online to the others.
            for client in clients:
                await client.wait_for(
                    lambda m: m["type"] == "table" and all(_connected(m, s.seat) for s in seats)
                )
            for client in clients:
                await client.close()
