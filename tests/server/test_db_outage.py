"""Postgres stops in the middle of a game and starts again: meanwhile the server answers
`unavailable` on sockets and 503 over HTTP (never 500, never a crash), it loses no acknowledged
action, and the game goes on to its end once the database is back.

The database is a private throwaway cluster (`private_pg`), never the machine's shared Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import asyncpg
import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from app.table.bots import backoff_seconds
from tests.server.conftest import PrivatePostgres
from tests.server.harness import (
    RETRY_CODES,
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bearer,
    bot_strategy,
    chain_break,
    check_action_log,
    check_gap_free,
    create_table,
    join,
    retry_if_asked,
    start,
    stop_tasks,
    until,
)

# Runs alone, after the parallel tests (scripts/test.sh): a private Postgres stopped for a timed outage.
pytestmark = pytest.mark.serial

STOP_AT = 20  # Postgres stops at the first bid a person sends from this version on
DOWN_SECONDS = 2.0  # at least this long without a database, people retrying meanwhile
MORE = 60  # versions the game must then go on (or end) once the database is back
PLAY_SECONDS = 90.0  # bound on the whole game part of the test


async def probe_http(server: ServerProcess, requests: list[tuple[str, str, Any, Any]]) -> list[str]:
    """Each request must answer 503 with the code `unavailable`; what else came, described."""
    problems = []
    for method, path, body, headers in requests:
        # A connection each: after an unhandled error the server drops the connection, which
        # would make the next request on it fail unanswered.
        try:
            async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
                r = await http.request(method, path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            problems.append(f"{method} {path}: no answer ({exc!r})")
            continue
        try:
            code = r.json()["detail"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        if (r.status_code, code) != (503, "unavailable"):
            problems.append(f"{method} {path}: {r.status_code} {r.text[:120]!r}")
    return problems


async def probe_socket(url: str, what: str) -> list[str]:
    """A socket opened while the database is down gets `error` `unavailable` (and may be closed,
    not with 1011), or is served hello, table and state; what else came, described."""
    frames: list[dict[str, Any]] = []
    code = None
    try:
        async with websockets.connect(url, close_timeout=2) as ws:
            while len(frames) < 3:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
                if frames[-1]["type"] == "error":
                    break
    except ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd else None
    except (TimeoutError, OSError) as exc:
        return [f"{what}: {exc!r} after {[f['type'] for f in frames]}"]
    kinds = [f["type"] for f in frames]
    errors = [f.get("code") for f in frames if f["type"] == "error"]
    if errors == ["unavailable"] and code in (None, 1013, 1012, 1008, 1000, 1001):
        return []
    if kinds == ["hello", "table", "state"]:
        return []
    return [f"{what}: frames {kinds} errors {errors}, closed with {code}"]


async def test_postgres_stops_and_starts_mid_game_unavailable_meanwhile_nothing_lost(
    private_pg: PrivatePostgres, server_factory: Any
) -> None:
    db = Database(url=private_pg.url)
    server: ServerProcess = server_factory(db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat", "Dan")]
        people = [
            SeatClient(server.ws, table_id, s.token, s.seat, bot_strategy("random", 70 + s.seat))
            for s in seats
        ]
        watcher = SeatClient(server.ws, table_id, None, None)
        everyone = [*people, watcher]
        for client in everyone:
            await client.connect()
        table = await start(http, seats[0])

    outage: dict[str, Any] = {"problems": [], "unavailable": 0}
    down, up = asyncio.Event(), asyncio.Event()

    async def stop_and_start() -> None:
        outage["version"] = max(c.version or 0 for c in everyone)
        outage["in_flight"] = [(c.seat, c.pending[0]) for c in people if c.pending]
        await asyncio.to_thread(private_pg.stop, "fast")
        down.set()
        began = time.monotonic()
        outage["problems"] += await probe_http(
            server,
            [
                ("GET", f"/api/tables/{table_id}", None, None),
                ("GET", "/api/tables", None, None),
                ("GET", "/api/tables?status=playing", None, None),
                ("POST", "/api/tables", {"seats": 3}, None),
                ("POST", f"/api/tables/{table_id}/join", {"name": "Eve"}, None),
                ("POST", "/api/quickplay", {"name": "Eve"}, None),
                ("POST", f"/api/tables/{table_id}/start", None, bearer(seats[0])),
                ("GET", f"/api/games/{table['game_id']}", None, None),
            ],
        )
        outage["problems"] += await probe_socket(
            people[0].url(people[0].version), "a seat's socket opened during the outage"
        )
        outage["problems"] += await probe_socket(
            watcher.url(None), "a spectator's socket opened during the outage"
        )
        healthz = await asyncio.to_thread(httpx.get, f"{server.http}/healthz", timeout=10)
        if healthz.status_code not in (200, 503):
            outage["problems"].append(f"GET /healthz: {healthz.status_code}")
        await asyncio.sleep(max(0.0, DOWN_SECONDS - (time.monotonic() - began)))
        outage["seconds"] = time.monotonic() - began
        await asyncio.to_thread(private_pg.start)
        up.set()

    def before_send(client: SeatClient, prompt: dict[str, Any], _action: Any) -> Any:
        if "version" in outage or prompt["kind"] != "bid" or (client.version or 0) < STOP_AT:
            return None
        outage["version"] = -1  # claimed: one outage
        # The bid has just left: Postgres stops while it (and the others' moves) are in flight.
        outage["task"] = asyncio.get_running_loop().create_task(stop_and_start())
        return None

    for client in people:
        client.before_send = before_send

    def database_state() -> str:
        if up.is_set():
            return "back up"
        return "down" if down.is_set() else "stopping"

    async def run(client: SeatClient) -> None:
        deadline = time.monotonic() + PLAY_SECONDS
        while not (
            up.is_set()
            and client.pending is None
            and (client.over or (client.version or 0) >= outage["version"] + MORE)
        ):
            assert time.monotonic() < deadline, (
                f"seat {client.seat}: stuck at version {client.version}; pending "
                f"{client.pending}; outage {outage}; last messages: {client.messages[-3:]}"
            )
            try:
                message = await client.recv(timeout=1.0)
                if message["type"] == "state":
                    broken = chain_break(client)
                    assert broken is None, broken
                if message["type"] == "error" and message["code"] == "unavailable":
                    outage["unavailable"] += 1
                if not await retry_if_asked(client, message, pause=0.2):
                    await client.maybe_act()
            except TimeoutError:
                continue
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else None
                outage["problems"].append(
                    f"seat {client.seat}: socket closed ({code}) at version {client.version}, "
                    f"database {database_state()}"
                )
                await up.wait()
                await client.connect(since=client.version)
                await client.resend_pending()

    started = time.monotonic()
    tasks = [asyncio.create_task(run(c)) for c in everyone]
    try:
        await asyncio.gather(*tasks)
    finally:
        await stop_tasks(*tasks)
    if "task" in outage:
        await outage["task"]
    # Everyone stopped acting: every socket catches up with the last version committed.
    last = max(c.version or 0 for c in everyone)
    for client in everyone:
        if client.version != last:
            await client.wait_for(lambda m: m["type"] == "state" and m["version"] == last, 15)
    played = time.monotonic() - started
    for client in everyone:
        await client.close()

    print(
        {k: v for k, v in outage.items() if k not in ("problems", "task")}, f"played {played:.1f} s"
    )
    assert server.alive(), "the server died"
    assert outage.get("version", -1) >= STOP_AT, outage
    # The action path met the outage: people's moves were refused with `unavailable`, retried.
    assert outage["unavailable"] > 0, outage
    for client in everyone:
        assert all(e["code"] in RETRY_CODES for e in client.errors), client.errors

    game_id = table["game_id"]
    states, raw_events = await check_action_log(db, game_id, people)
    assert len(states) - 1 == last, f"the log ends at {len(states) - 1}, the sockets at {last}"
    assert last >= outage["version"] + MORE or all(c.over for c in everyone), (last, outage)
    for client in everyone:
        assert check_gap_free(client, states, raw_events) == last
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        # The lobby answers again.
        assert (await http.get(f"/api/tables/{table_id}")).status_code == 200
    unhandled = server.log().count("Exception in ASGI application")
    if unhandled:
        outage["problems"].append(f"server log: 'Exception in ASGI application' x{unhandled}")
    # Last, so that a run lists every refusal that was not `unavailable` / 503.
    assert outage["problems"] == [], "\n".join(outage["problems"])
    print(
        f"database down {outage['seconds']:.1f} s at version {outage['version']}, in flight "
        f"{outage['in_flight']}, {outage['unavailable']} unavailable; {last} versions in "
        f"{played:.1f} s"
    )


def _bot_refusals(server: ServerProcess, table_id: str) -> int:
    """The `unavailable` refusals of the bots' moves at this table (seats 1 and 2), as the
    server logged them (its test settings log every refusal)."""
    return sum(
        "refused code=unavailable" in line
        and f"table={table_id}" in line
        and ("seat=1" in line.split() or "seat=2" in line.split())
        for line in server.log().splitlines()
    )


def _most_tries(seconds: float) -> int:
    """The most moves a bot may try in `seconds` of an outage: one at once, then one after each
    backoff wait (a busy machine only makes them fewer)."""
    tries, waited = 1, 0.0
    while waited + backoff_seconds(tries) <= seconds:
        waited += backoff_seconds(tries)
        tries += 1
    return tries


async def _commit_waiting(conn: Any) -> bool:
    """A commit of the server waits for the test's lock on `actions`."""
    waiting = await conn.fetchval(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        " AND query ILIKE '%INSERT INTO actions%'"
    )
    return bool(waiting)


async def test_bots_wait_for_the_database_instead_of_trying_without_pause(
    private_pg: PrivatePostgres, server_factory: Any
) -> None:
    """Bots due while the database does not answer try again after a wait that grows, on the
    server's clock: a few tries in an outage, not a loop of hundreds a second."""
    server: ServerProcess = server_factory(Database(url=private_pg.url), TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3, public=False, timed=False)
        person = await join(http, table_id, "Ann")
        await add_bots(http, person, 2, "random")
        ann = SeatClient(server.ws, table_id, person.token, person.seat)
        await ann.connect()
        await ann.arrived()
        try:
            # Commits wait behind the test's lock (reads do not): the bots' first bid is under
            # way when the database stops, and the bots (which never wait between moves in the
            # tests) are due all through the outage.
            dsn = private_pg.url.replace("+asyncpg", "")
            lock, probe = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
            try:
                await lock.execute("BEGIN; LOCK TABLE actions IN EXCLUSIVE MODE")
                await start(http, person)
                # Asked outside the lock's transaction: inside it, pg_stat_activity is read once
                # and kept (the probe then never saw a commit that came after its first look).
                await until(lambda: _commit_waiting(probe), what="a bot's commit waiting")
                began = time.monotonic()  # before the bots' first refusal
                # Immediate: a fast shutdown ends the lock's idle session first, and the commit
                # waiting for it could be granted the lock and commit before its own end came
                # (both bots' bids committed then, and no bot was due in the outage).
                await asyncio.to_thread(private_pg.stop, "immediate")
            finally:
                for conn in (lock, probe):
                    with contextlib.suppress(Exception):
                        await conn.close(timeout=2)
            await asyncio.sleep(DOWN_SECONDS)
            tries = _bot_refusals(server, table_id)
            seconds = time.monotonic() - began
            await asyncio.to_thread(private_pg.start)

            assert tries >= 1, server.log()[-3000:]
            # Without a pause between tries the bots tried hundreds of times in this outage.
            assert tries <= _most_tries(seconds) + 1, (tries, seconds)
            # The database is back: the bots' next try (its wait passed on the server's clock)
            # finds the game as the database holds it and plays on, both bids.
            await advance(http, 60)
            state = await ann.wait_for(lambda m: m["type"] == "state" and m["version"] >= 2, 60)
            assert state["version"] == 2 and ann.my_prompt() is not None
        finally:
            await ann.close()
