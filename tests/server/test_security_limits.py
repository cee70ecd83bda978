"""Limits per client address and per process, lobby flooding, small edges.

The second client address is 127.0.0.2 (the whole of 127/8 is loopback on Linux; the server
listens on 127.0.0.1 only): the client socket is bound to it as its source address.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    create_table,
    join,
    track,
    until,
)

ServerFactory = Callable[..., ServerProcess]
OTHER_ADDRESS = "127.0.0.2"


async def _socket(
    server: ServerProcess, table_id: str, token: str | None = None, source: str = "127.0.0.1"
) -> Any:
    url = f"{server.ws}/ws/tables/{table_id}" + (f"?token={token}" if token else "")
    ws = await websockets.connect(url, local_addr=(source, 0), close_timeout=2)
    return track(f"a socket of table {table_id} from {source}", ws)


async def _admitted(ws: Any) -> bool:
    """True for a socket that got its hello; False for one refused with 4429."""
    first = await asyncio.wait_for(ws.recv(), 10)
    if '"type":"hello"' in first:
        return True
    assert '"code":"too_many_sockets"' in first, first
    try:
        await asyncio.wait_for(ws.recv(), 10)
    except ConnectionClosed as exc:
        assert exc.rcvd is not None and exc.rcvd.code == 4429, exc
        return False
    raise AssertionError("a refused socket stayed open")


# -- sockets ---------------------------------------------------------------------------------


async def test_sockets_per_address_are_limited_and_freed(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, MAX_SOCKETS_PER_ADDRESS="4")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    held = [await _socket(server, table_id) for _ in range(3)]
    held.append(await _socket(server, table_id, ann.token))
    assert all([await _admitted(ws) for ws in held])
    # A fifth from the same address, seat or spectator, is refused with a clear code.
    assert not await _admitted(await _socket(server, table_id))
    assert not await _admitted(await _socket(server, table_id, ann.token))
    # Another address still can.
    other = await _socket(server, table_id, source=OTHER_ADDRESS)
    assert await _admitted(other)
    # A socket closed gives its place back, once the server has seen it close (asked until
    # then: a refusal meanwhile is counted below like the others).
    await held.pop().close()
    refused_meanwhile = 0
    deadline = time.monotonic() + 20
    while not await _admitted(again := await _socket(server, table_id)):
        refused_meanwhile += 1
        assert time.monotonic() < deadline, "a closed socket never gave its place back"
        await asyncio.sleep(0.1)
    for ws in [*held, other, again]:
        await ws.close()
    # Each refusal is logged, once (not twice through two handlers, not dropped).
    refusals = [line for line in server.log().splitlines() if "refused: at most 4 sockets" in line]
    assert len(refusals) == 2 + refused_meanwhile, refusals


async def test_spectators_per_table_and_sockets_per_process_are_limited(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, MAX_SPECTATORS_PER_TABLE="2", MAX_SOCKETS="5")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        first = await create_table(http, 3)
        second = await create_table(http, 3)
        ann = await join(http, first, "Ann")
    watchers = [await _socket(server, first) for _ in range(2)]
    assert all([await _admitted(ws) for ws in watchers])
    assert not await _admitted(await _socket(server, first, source=OTHER_ADDRESS))
    # The limit is per table, and seats are not spectators.
    seat = await _socket(server, first, ann.token)
    elsewhere = [await _socket(server, second) for _ in range(2)]
    assert await _admitted(seat) and all([await _admitted(ws) for ws in elsewhere])
    # Five sockets in all: the process takes no sixth, from any address.
    assert not await _admitted(await _socket(server, first, ann.token, source=OTHER_ADDRESS))
    for ws in [*watchers, seat, *elsewhere]:
        await ws.close()
    assert "Traceback" not in server.log()


async def test_a_seat_reconnecting_in_a_loop_does_not_flood_the_table(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await join(http, table_id, "Bob")
    watcher = SeatClient(server.ws, table_id, None, None)
    await watcher.connect()
    await watcher.drain(0.5)
    before = sum(m["type"] == "table" for m in watcher.messages)
    cycles = 40
    started = time.monotonic()
    for _ in range(cycles):
        ws = await _socket(server, table_id, ann.token)
        await asyncio.wait_for(ws.recv(), 10)  # hello
        await ws.close()
    elapsed = time.monotonic() - started
    await watcher.drain(1.0)
    tables = sum(m["type"] == "table" for m in watcher.messages) - before
    # Presence changes are coalesced, at most one table message per 0.25 s (the room's
    # PRESENCE_DELAY): far fewer than cycles when they come fast; a busy machine that spaces
    # the cycles out gets at most that rate (the last one tells the truth: Ann is away).
    assert tables <= max(cycles / 2 - 1, elapsed / 0.25 + 3), (tables, cycles, elapsed)
    assert watcher.table is not None
    assert [p["connected"] for p in watcher.table["players"] if p["seat"] == ann.seat] == [False]
    await watcher.close()


# -- lobby flooding ------------------------------------------------------------------------


async def test_a_burst_of_tables_from_one_address_gets_429_while_another_can(
    database: Database, server_factory: ServerFactory
) -> None:
    # The refill is waited for on the server's clock, which the test moves.
    server = server_factory(
        database, HTTP_RATE_BURST="10", HTTP_RATE_PER_SECOND="0.5", TEST_CLOCK="0"
    )
    other_transport = httpx.AsyncHTTPTransport(local_address=OTHER_ADDRESS)
    async with (
        httpx.AsyncClient(base_url=server.http, timeout=20) as http,
        httpx.AsyncClient(base_url=server.http, timeout=20, transport=other_transport) as other,
    ):
        began = time.monotonic()
        answers = [
            await http.post(
                "/api/tables",
                json={"seats": 3},
                # Ignored: no TRUSTED_PROXIES, so nobody picks their own address.
                headers={"X-Forwarded-For": f"10.0.0.{n}"},
            )
            for n in range(40)
        ]
        # The burst, plus what the bucket refilled while these 40 calls took their time (a
        # busy machine takes seconds), passes; nothing more.
        passing = 10 + int((time.monotonic() - began) * 0.5) + 1
        codes = [r.status_code for r in answers]
        assert codes[:10] == [201] * 10, codes
        assert codes.count(201) <= passing and codes.count(429) >= 40 - passing, codes
        refused = next(r for r in answers if r.status_code == 429)
        assert int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["detail"]["code"] == "rate_limited"
        # Every changing call counts (join, quick play...), reads do not.
        assert (await http.post("/api/quickplay", json={"name": "Flo"})).status_code == 429
        assert (await http.get("/api/tables")).status_code == 200
        # Another address is not held back: a real table, with a real player, in the lobby.
        real = await create_table(other, 4)
        await join(other, real, "Real")
        listed = [t["id"] for t in (await http.get("/api/tables")).json()]
        assert real in listed and len(listed) <= passing + 1
        # The bucket refills: after Retry-After one more call from the first address passes.
        await advance(http, int(refused.headers["Retry-After"]) + 0.2)
        assert (await http.post("/api/tables", json={"seats": 3})).status_code == 201


async def test_trusted_proxies_decide_whose_forwarded_address_counts(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(
        sqlite_db, HTTP_RATE_BURST="2", HTTP_RATE_PER_SECOND="0.01", TRUSTED_PROXIES="127.0.0.1"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as proxy:

        async def create(forwarded: str) -> int:
            r = await proxy.post(
                "/api/tables", json={"seats": 3}, headers={"X-Forwarded-For": forwarded}
            )
            return r.status_code

        # Behind the trusted proxy each client has its own bucket; the entries a client could
        # have written itself (left of the proxy's) do not count.
        assert [await create("203.0.113.9") for _ in range(3)] == [201, 201, 429]
        assert await create("1.2.3.4, 198.51.100.7") == 201
        assert await create("5.6.7.8, 198.51.100.7") == 201
        assert await create("9.9.9.9, 198.51.100.7") == 429


async def test_idle_tables_leave_the_lobby_unless_someone_seated_is_online(
    database: Database, server_factory: ServerFactory
) -> None:
    # A minute, which no busy machine takes to set the tables up; the test moves the server's
    # clock past it.
    server = server_factory(database, TABLE_IDLE_MINUTES="1", TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        abandoned = await create_table(http, 3)
        await join(http, abandoned, "Gone")
        waiting = await create_table(http, 3)
        ann = await join(http, waiting, "Ann")
        ws = await _socket(server, waiting, ann.token)
        assert await _admitted(ws)
        listed = {t["id"] for t in (await http.get("/api/tables")).json()}
        assert {abandoned, waiting} <= listed

        async def lobby_without_abandoned() -> set[str] | None:
            listed = {t["id"] for t in (await http.get("/api/tables")).json()}
            return listed if abandoned not in listed else None

        # Past the idle time: the abandoned table left, the other stays.
        await advance(http, 61)
        listed = await until(lobby_without_abandoned, 20, "the idle table leaves the lobby")
        assert waiting in listed, listed
        # Idle with nobody connected, it closes: a join is refused, the table itself
        # stays reachable by its link and says so.
        r = await http.post(f"/api/tables/{abandoned}/join", json={"name": "Bob"})
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        listed = {t["id"] for t in (await http.get("/api/tables")).json()}
        assert abandoned not in listed
        r = await http.get(f"/api/tables/{abandoned}")
        assert r.status_code == 200 and r.json()["status"] == "closed"
        # A table with someone online stays, however long.
        r = await http.post(f"/api/tables/{waiting}/join", json={"name": "Bob"})
        assert r.status_code == 200
        await add_bots(http, ann, 1)  # fills the table: no longer open
        await ws.close()


# -- smaller -------------------------------------------------------------------------------


async def test_options_lists_every_method_and_the_schema_states_the_name_rule(
    http: httpx.AsyncClient,
) -> None:
    r = await http.options("/api/tables")
    assert r.status_code == 405
    assert {m.strip() for m in r.headers["Allow"].split(",")} == {"GET", "POST"}
    r = await http.put("/api/tables/abc")
    assert r.status_code == 405 and r.headers["Allow"] == "GET, PATCH"  # PATCH: the host
    schema = (await http.get("/openapi.json")).json()
    name = schema["components"]["schemas"]["JoinTable"]["properties"]["name"]
    assert name["pattern"].startswith("^") and "u0000" in name["pattern"]
    assert name["maxLength"] == 64
    assert schema["components"]["schemas"]["CreateTable"]["properties"]["public"]["type"] == (
        "boolean"
    )
