"""Two server processes on one Postgres, people and spectators on both: every socket sees every
version in order; SIGKILL one process while actions are in flight, its people reconnect to the
other one with their last version, and the game goes on with no acknowledged action lost."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.server.harness import (
    RETRY_CODES,
    Database,
    SeatClient,
    ServerProcess,
    bot_strategy,
    chain_break,
    check_action_log,
    check_gap_free,
    create_table,
    join,
    retry_if_asked,
    start,
    stop_tasks,
)

# Runs alone, after the parallel tests (scripts/test.sh): two processes, one SIGKILLed: the failover is timed by the clients.
pytestmark = pytest.mark.serial

KILL_AT = 25  # the first process dies at the first bid one of its people sends from this version
MORE = 25  # versions the game must then go on through the second process (or end)
PLAY_SECONDS = 60.0  # bound on the whole game part of the test


def tail(client: SeatClient, n: int = 12) -> list[tuple[Any, ...]]:
    """The last messages of a socket, in short, for failure messages."""
    return [
        (m["type"], m.get("version"), m.get("events_from"), m.get("resync"), m.get("action_id"))
        + ((m["code"],) if m["type"] == "error" else ())
        for m in client.messages[-n:]
        if m["type"] != "table"
    ]


async def play_all(run: Any, clients: list[SeatClient]) -> None:
    """Run every client's loop; the first failure stops the others (no task outlives the test)."""
    tasks = [asyncio.create_task(run(c)) for c in clients]
    try:
        await asyncio.gather(*tasks)
    finally:
        await stop_tasks(*tasks)


async def test_sigkill_one_of_two_processes_its_players_go_on_through_the_other(
    pg_db: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(pg_db)
    two: ServerProcess = server_factory(pg_db)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat", "Dan")]

    # Ann and Cat play through the first process, Bob and Dan through the second; one spectator
    # on each. All sockets are open before the game starts (on the second process).
    people = [
        SeatClient(
            (one, two)[s.seat % 2].ws,
            table_id,
            s.token,
            s.seat,
            bot_strategy("heuristic" if s.seat < 2 else "random", 40 + s.seat),
        )
        for s in seats
    ]
    watchers = [SeatClient(one.ws, table_id, None, None), SeatClient(two.ws, table_id, None, None)]
    everyone = [*people, *watchers]
    for client in everyone:
        await client.connect()
    async with httpx.AsyncClient(base_url=two.http, timeout=20) as http:
        await start(http, seats[0])

    killed = asyncio.Event()
    at_kill: dict[str, Any] = {}

    async def kill_one() -> None:
        # The action has just left its client, unanswered: kill at once, with it in flight.
        at_kill["in_flight"] = [(c.seat, c.pending[0]) for c in people if c.pending]
        at_kill["version"] = max(c.version or 0 for c in everyone)
        one.kill()
        killed.set()

    def before_send(client: SeatClient, prompt: dict[str, Any], _action: Any) -> Any:
        # A bid: the other seats are bidding at the same moment, so more actions are in flight.
        if killed.is_set() or "version" in at_kill or client.base_ws != one.ws:
            return None
        if prompt["kind"] != "bid" or (client.version or 0) < KILL_AT:
            return None
        at_kill["version"] = -1  # claimed: only one kill
        return kill_one()

    for client in people:
        client.before_send = before_send

    def target_reached(client: SeatClient) -> bool:
        if client.over:
            return client.pending is None
        return (
            killed.is_set()
            and at_kill["version"] >= 0
            and (client.version or 0) >= at_kill["version"] + MORE
            and client.pending is None
        )

    async def run(client: SeatClient) -> None:
        deadline = time.monotonic() + PLAY_SECONDS
        while not target_reached(client):
            assert time.monotonic() < deadline, (
                f"seat {client.seat}: stuck at version {client.version} (kill: {at_kill}); "
                f"pending {client.pending}; last messages: {tail(client)}"
            )
            try:
                message = await client.recv(timeout=1.0)
                if message["type"] == "state":
                    broken = chain_break(client)
                    assert broken is None, f"{broken}; kill: {at_kill}; {tail(client)}"
                if not await retry_if_asked(client, message):
                    await client.maybe_act()
            except TimeoutError:
                continue
            except (ConnectionClosed, OSError):
                # Our process died: reconnect through the other one with the last version seen,
                # then send the unanswered action again with the same action_id.
                await asyncio.wait_for(killed.wait(), 10)
                assert client.base_ws == one.ws, f"seat {client.seat}: lost the second process"
                client.base_ws = two.ws
                await client.connect(since=client.version)
                await client.resend_pending()

    started = time.monotonic()
    await play_all(run, everyone)
    # Everyone stopped acting: every socket catches up with the last version committed.
    last = max(c.version or 0 for c in everyone)
    for client in everyone:
        if client.version != last:
            await client.wait_for(lambda m: m["type"] == "state" and m["version"] == last, 15)
    played = time.monotonic() - started
    for client in everyone:
        await client.close()

    assert killed.is_set() and at_kill["version"] >= KILL_AT, at_kill
    assert not one.alive() and two.alive()
    assert at_kill["in_flight"], "nothing was in flight when the process died"
    assert last >= at_kill["version"] + MORE or all(c.over for c in everyone), (last, at_kill)
    moved = [c for c in everyone if c.base_ws == two.ws]
    assert len(moved) == len(everyone), "a socket of the killed process did not reconnect"
    for client in people:
        if client.seat is not None and client.seat % 2 == 0:
            # The killed process's people acted again, through the second process.
            assert max(client.acks.values()) > at_kill["version"], (client.seat, client.acks)
    for client in everyone:
        assert all(e["code"] in RETRY_CODES for e in client.errors), client.errors

    game_id = next(m["game_id"] for m in people[0].messages if m["type"] == "state")
    states, raw_events = await check_action_log(pg_db, game_id, people)
    assert len(states) - 1 == last, f"the log ends at {len(states) - 1}, the sockets at {last}"
    for client in everyone:
        assert check_gap_free(client, states, raw_events) == last
    assert "Exception in ASGI application" not in two.log()
    print(f"kill at version {at_kill['version']}, in flight {at_kill['in_flight']}; ", end="")
    print(f"{last} versions in {played:.1f} s")
