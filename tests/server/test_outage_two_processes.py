"""Postgres stops for a real outage while games are played with their seats on two server
processes, and starts again: every game then goes on to its end with no gap of more than a few
seconds between two actions, so no socket waits for a commit its process missed, and no
connection the server ended is used as if it were alive (asyncpg's "another operation is in
progress").

The clients never give up on a socket (no read timeout that reconnects, as a browser tab keeps
its page): a socket that missed a commit learns of it from its server or not at all. They send an
action refused with `unavailable` again with the same action_id, as docs/protocol.md asks.
As Postgres stops, lobby pages poll both processes, as browsers do, so that statements start on
pooled connections at the moment the server ends them; the servers reach Postgres through a relay
that passes the end of a connection half a second late (tests/server/late_end.py), so that this
moment is long enough to be met every time, not only on a loaded machine.

The database is a private throwaway cluster (`private_pg`), never the machine's shared Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import PrivatePostgres
from tests.server.harness import (
    RETRY_CODES,
    Database,
    SeatClient,
    ServerProcess,
    answer_to,
    bid,
    bot_strategy,
    chain_break,
    check_action_log,
    check_gap_free,
    create_table,
    db_rows,
    join,
    retry_if_asked,
    start,
    stop_tasks,
)
from tests.server.late_end import LateEnd

# Runs alone, after the parallel tests (scripts/test.sh): a private Postgres stopped for a real
# outage under two processes.
pytestmark = [pytest.mark.postgres, pytest.mark.serial]

TABLES = 3  # 3-person tables, untimed: no time-out or stand-in ever acts, only the people
STOP_AT = 8  # Postgres stops once every game has reached this version
DOWN_SECONDS = 10.0  # a real outage
# The servers reach Postgres through a relay that passes the end of a connection this late (as
# a proxy or a loaded host may): Postgres's error to each idle connection as it stops is read this
# long before the connection looks closed (tests/server/late_end.py).
LATE_END_SECONDS = 0.5
MAX_GAP = 5.0  # seconds allowed between two actions of a game once the database is back
PLAY_SECONDS = 120.0  # bound on the games once the database is back (the gaps are checked after)
# asyncpg's words for a connection the server ended while it sat idle in a pool.
ENDED_CONNECTION_USED = re.compile(r"another operation (\(\d+\) )?is in progress")


def seated_on(table: int, seat: int, servers: tuple[ServerProcess, ServerProcess]) -> ServerProcess:
    """Every table has seats on both processes, split differently from table to table."""
    return servers[(seat + table) % 2]


async def poll_lobby(server: ServerProcess, table_id: str, until: asyncio.Event) -> None:
    """A lobby page: the lists and a table, again and again, whatever the answer."""
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        while not until.is_set():
            for path in ("/api/tables", f"/api/tables/{table_id}"):
                with contextlib.suppress(httpx.HTTPError):
                    await http.get(path)
            await asyncio.sleep(0.02)


def waits_after(up_at: datetime, stamps: list[tuple[int, datetime]]) -> list[tuple[float, int]]:
    """(seconds, version) of each wait, from the database's return, until each action."""
    waits = []
    before = up_at
    for version, at in stamps:
        waits.append(((at - before).total_seconds(), version))
        before = at
    return waits


@pytest.fixture
def late_end(private_pg: PrivatePostgres) -> Iterator[LateEnd]:
    """The private Postgres behind a relay that passes the end of its connections late."""
    relay = LateEnd(private_pg.port, delay=LATE_END_SECONDS)
    relay.start()
    try:
        yield relay
    finally:
        relay.stop()


async def test_games_with_seats_on_two_processes_go_on_at_once_after_a_database_outage(
    private_pg: PrivatePostgres, late_end: LateEnd, server_factory: Any
) -> None:
    db = Database(url=private_pg.url)  # the test's own reads
    behind_relay = Database(url=late_end.url())
    servers: tuple[ServerProcess, ServerProcess] = (
        server_factory(behind_relay),
        server_factory(behind_relay),
    )
    people: list[SeatClient] = []
    games: list[str] = []
    async with httpx.AsyncClient(base_url=servers[0].http, timeout=20) as http:
        for t in range(TABLES):
            table_id = await create_table(http, 3, timed=False)
            seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat")]
            mine = [
                SeatClient(
                    seated_on(t, s.seat, servers).ws,
                    table_id,
                    s.token,
                    s.seat,
                    bot_strategy("heuristic", 100 * t + s.seat),
                )
                for s in seats
            ]
            for client in mine:
                await client.connect()
            people += mine
            games.append((await start(http, seats[0]))["game_id"])

    outage: dict[str, Any] = {"closed": [], "unavailable": 0}
    up = asyncio.Event()

    async def stop_and_start() -> None:
        while min(c.version or 0 for c in people) < STOP_AT:
            await asyncio.sleep(0.05)
        outage["versions"] = sorted({c.version or 0 for c in people})
        stopped = asyncio.Event()
        pollers = [
            asyncio.create_task(poll_lobby(server, people[0].table_id, stopped))
            for server in servers * 2
        ]
        try:
            await asyncio.sleep(0.2)
            await asyncio.to_thread(private_pg.stop, "fast")
        finally:
            stopped.set()
            await asyncio.gather(*pollers, return_exceptions=True)
        began = time.monotonic()
        await asyncio.sleep(DOWN_SECONDS)
        await asyncio.to_thread(private_pg.start)
        outage["seconds"] = time.monotonic() - began
        outage["up_at"] = datetime.now(UTC)
        up.set()

    async def run(client: SeatClient) -> None:
        deadline: float | None = None
        while not (client.over and client.pending is None):
            if up.is_set() and deadline is None:
                deadline = time.monotonic() + PLAY_SECONDS
            assert deadline is None or time.monotonic() < deadline, (
                f"seat {client.seat} of {client.table_id}: stuck at version {client.version}, "
                f"pending {client.pending}; last messages: {client.messages[-3:]}"
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
                # The server may close a socket (1013: reconnect shortly): back with the last
                # version once the database is, and the unanswered action again.
                outage["closed"].append((client.seat, exc.rcvd.code if exc.rcvd else None))
                await up.wait()
                await client.connect(since=client.version)
                await client.resend_pending()

    tasks = [asyncio.create_task(stop_and_start()), *(asyncio.create_task(run(c)) for c in people)]
    try:
        await asyncio.gather(*tasks)
    finally:
        await stop_tasks(*tasks)
        for client in people:
            await client.close()

    assert all(s.alive() for s in servers), "a server died"
    assert outage["unavailable"] > 0, "no action met the outage"
    for client in people:
        assert all(e["code"] in RETRY_CODES for e in client.errors), client.errors
    gaps, longest = [], 0.0
    for t, game_id in enumerate(games):
        # Every game went to its end, nothing lost or applied twice, every socket gap-free.
        mine = people[3 * t : 3 * t + 3]
        states, raw_events = await check_action_log(db, game_id, mine)
        for client in mine:
            assert check_gap_free(client, states, raw_events) == len(states) - 1
        rows = await db_rows(
            db,
            "SELECT version, created_at FROM actions WHERE game_id = :g AND created_at > :t "
            "ORDER BY version",
            g=game_id,
            t=outage["up_at"],
        )
        waits = waits_after(outage["up_at"], rows)
        longest = max([longest, *(w for w, _v in waits)])
        gaps += [f"game {game_id}: {w:.1f} s before version {v}" for w, v in waits if w > MAX_GAP]
    ended_connection_used = [
        line for s in servers for line in s.log().splitlines() if ENDED_CONNECTION_USED.search(line)
    ]
    print(
        f"database down {outage['seconds']:.1f} s at versions {outage['versions']}; "
        f"{outage['unavailable']} actions refused `unavailable`; sockets closed: {outage['closed']}; "
        f"then the longest wait between two actions of a game: {longest:.2f} s"
    )
    assert gaps == [], "once the database was back, games waited:\n" + "\n".join(gaps)
    assert ended_connection_used == [], "\n".join(ended_connection_used[:5])


async def test_an_action_refused_in_the_outage_then_committed_elsewhere_reaches_this_process_at_once(
    private_pg: PrivatePostgres, server_factory: Any
) -> None:
    """Ann's bid reaches the first process while the database is away (`unavailable`: maybe
    committed, maybe not). Back, she sends it again with the same action_id from a page on the
    second process, which commits it. The first process, where Cat waits for that bid, pushes it
    to Cat at once: no slow safety sweep (set to 5 minutes here) is needed for that."""
    db = Database(url=private_pg.url)
    one: ServerProcess = server_factory(db, SWEEP_INTERVAL_SECONDS="300")
    two: ServerProcess = server_factory(db, SWEEP_INTERVAL_SECONDS="300")
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        table_id = await create_table(http, 3, timed=False)
        ann, bob, cat = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat")]
        ann_one = SeatClient(one.ws, table_id, ann.token, ann.seat)
        bob_two = SeatClient(two.ws, table_id, bob.token, bob.seat)
        cat_one = SeatClient(one.ws, table_id, cat.token, cat.seat)
        ann_two = SeatClient(two.ws, table_id, ann.token, ann.seat)
        clients = [ann_one, bob_two, cat_one]
        for client in clients:
            await client.connect()
        await start(http, ann)
    try:
        # The first bid round: Bob's and Cat's bids are in, Ann's is the last.
        for client in clients:
            await client.wait_for(lambda m: m["type"] == "state")
        for client, action_id in ((bob_two, "bob-1"), (cat_one, "cat-1")):
            await client.send_action(bid(0), action_id)
            await client.wait_for(answer_to(action_id))
        for client in clients:
            if client.version != 2:
                await client.wait_for(lambda m: m["type"] == "state" and m["version"] == 2)

        await asyncio.to_thread(private_pg.stop, "fast")
        await ann_one.send_action(bid(1), "ann-1")
        refused = await ann_one.wait_for(lambda m: m.get("action_id") == "ann-1")
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        await asyncio.to_thread(private_pg.start)

        # Both processes listen again: a chat line Bob sends through the second reaches Cat on
        # the first (chat is announced by the same notifications as commits).
        await until_answered(bob_two, {"type": "chat", "text": "back?"})
        await cat_one.wait_for(lambda m: m["type"] == "chat" and m["line"]["text"] == "back?", 30)

        await ann_two.connect(since=2)
        await ann_two.send_action(bid(1), "ann-1")
        ack = await ann_two.wait_for(lambda m: m.get("action_id") == "ann-1")
        assert ack["type"] == "ack" and ack["version"] == 3, ack
        began = time.monotonic()
        for client in (cat_one, ann_one):
            await client.wait_for(lambda m: m["type"] == "state" and m["version"] == 3, MAX_GAP)
        print(
            f"version 3 reached the first process's sockets {time.monotonic() - began:.2f} s "
            "after its ack on the second"
        )
    finally:
        for client in (*clients, ann_two):
            await client.close()
    assert not [line for s in (one, two) for line in s.log().splitlines()
                if ENDED_CONNECTION_USED.search(line)]  # fmt: skip


async def until_answered(client: SeatClient, message: dict[str, Any]) -> None:
    """Send `message` until it is stored (a chat line comes back to its sender): the database
    may take a moment to answer again after its start."""
    deadline = time.monotonic() + 30
    while True:
        await client.send_json(message)
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda m: m["type"] in ("chat", "error"), 2)
            if client.messages[-1]["type"] == "chat":
                return
        assert time.monotonic() < deadline, f"chat never stored: {client.messages[-3:]}"
