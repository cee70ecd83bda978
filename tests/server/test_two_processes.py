"""Two server processes on one database: the version guard lets only one action commit at each
version, and an action_id sent to both has one effect."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import engine
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    bid,
    create_table,
    db_rows,
    join,
    loaded_state,
    start,
)

# Runs alone, after the parallel tests (scripts/test.sh): two processes racing for the same versions.
pytestmark = pytest.mark.serial


async def test_two_processes_never_apply_two_actions_at_one_version(
    database: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(database)
    two: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat", "Dan")]
        await start(http, seats[0])
    # Ann and Cat talk to the first process, Bob and Dan to the second; Ann also has a tab on the
    # second process and sends the same action through both at once.
    clients = [SeatClient((one, two)[s.seat % 2].ws, table_id, s.token, s.seat) for s in seats]
    ann_two = SeatClient(two.ws, table_id, seats[0].token, seats[0].seat)
    for client in (*clients, ann_two):
        await client.connect()
        await client.wait_for(lambda m: m["type"] == "state")

    async def send_and_wait(
        client: SeatClient, action: dict[str, Any], action_id: str
    ) -> dict[str, Any]:
        await client.send_json({"type": "action", "action": action, "action_id": action_id})
        return await client.wait_for(
            lambda m: m["type"] in ("ack", "error") and m.get("action_id") == action_id
        )

    answers = await asyncio.gather(
        send_and_wait(clients[0], bid(1), "ann-1"),
        send_and_wait(ann_two, bid(1), "ann-1"),
        send_and_wait(clients[1], bid(2), "bob-1"),
        send_and_wait(clients[2], bid(0), "cat-1"),
    )
    assert all(a["type"] == "ack" for a in answers), answers
    ann_acks = answers[:2]
    assert ann_acks[0]["version"] == ann_acks[1]["version"]
    assert sorted(a["duplicate"] for a in ann_acks) == [False, True]
    versions = sorted(a["version"] for a in answers[1:])
    assert versions == [1, 2, 3]

    # Every socket, on either process, comes to see the latest version.
    for client in (*clients, ann_two):
        if client.version != 3:
            await client.wait_for(lambda m: m["type"] == "state" and m["version"] == 3, timeout=10)
        assert client.view is not None and client.view["auction"]["bids_submitted"] == [0, 1, 2]

    games = await db_rows(database, "SELECT id, players, seed, state, version FROM games")
    (game,) = games
    rows = await db_rows(
        database,
        "SELECT version, seat, action_id FROM actions WHERE game_id = :g ORDER BY version",
        g=game.id,
    )
    assert game.version == 3
    assert [(r.version, r.action_id) for r in rows] == sorted(
        (a["version"], a["action_id"]) for a in answers[1:]
    )
    actions = {"ann-1": bid(1), "bob-1": bid(2), "cat-1": bid(0)}
    replayed = engine.replay(
        game.players, int(game.seed), [(r.seat, actions[r.action_id]) for r in rows]
    )
    # The stored state is a snapshot (version 0 here): the game as a server loads it.
    loaded_version, loaded = await loaded_state(database, table_id)
    assert loaded_version == 3
    assert engine.dumps(replayed) == engine.dumps(loaded)
    for client in (*clients, ann_two):
        await client.close()
