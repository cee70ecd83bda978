"""The game row keeps a snapshot every SNAPSHOT_EVERY versions, the action log the rest: a server
killed (SIGKILL) between two snapshots resumes the game at its version with its state, loses no
acknowledged action, and a row written before snapshots (its state at its version) loads as it is."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

import engine
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    answer_to,
    bot_strategy,
    create_table,
    db_execute,
    db_rows,
    join,
    loaded_state,
    start,
    state_at,
)

EVERY = 4


async def _seat_clients(server: ServerProcess) -> tuple[str, list[SeatClient]]:
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat", "Dan")]
        await start(http, seats[0])
    clients = [
        SeatClient(server.ws, table_id, s.token, s.seat, bot_strategy("heuristic", 7 + s.seat))
        for s in seats
    ]
    for client in clients:
        await client.connect()
        await client.wait_for(lambda m: m["type"] == "state")
    return table_id, clients


async def _play_to(clients: list[SeatClient], version: int) -> None:
    """One action at a time (each acknowledged, every socket caught up) up to `version`."""
    while clients[0].version is not None and clients[0].version < version:
        actor = next(c for c in clients if c.my_prompt() is not None)
        await actor.maybe_act()
        assert actor.pending is not None
        action_id = actor.pending[0]
        ack = await actor.wait_for(answer_to(action_id))
        assert ack["type"] == "ack", ack
        for client in clients:
            if client.version != ack["version"]:
                await client.wait_for(state_at(ack["version"]))


async def _log(database: Database, table_id: str) -> tuple[Any, list[Any]]:
    (game,) = await db_rows(
        database,
        "SELECT id, players, seed, state, version, snapshot_version, status FROM games "
        "WHERE table_id = :t",
        t=table_id,
    )
    rows = await db_rows(
        database,
        "SELECT version, seat, action, action_id FROM actions WHERE game_id = :g ORDER BY version",
        g=game.id,
    )
    return game, rows


def _replayed(game: Any, rows: list[Any], upto: int) -> Any:
    actions = [
        (r.seat, r.action if isinstance(r.action, dict) else json.loads(r.action))
        for r in rows
        if r.version <= upto
    ]
    return engine.replay(game.players, int(game.seed), actions)


def _check_acks(clients: list[SeatClient], rows: list[Any]) -> None:
    """Every acknowledged action is in the log at its version, for its seat, as sent."""
    by_id = {(r.seat, r.action_id): r for r in rows}
    for client in clients:
        for action_id, version in client.acks.items():
            row = by_id[(client.seat, action_id)]
            action = row.action if isinstance(row.action, dict) else json.loads(row.action)
            assert (row.version, action) == (version, client.sent[action_id])


async def test_a_server_killed_between_two_snapshots_resumes_at_the_right_version(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, SNAPSHOT_EVERY=str(EVERY))
    table_id, clients = await _seat_clients(server)
    await _play_to(clients, EVERY + 2)

    game, rows = await _log(database, table_id)
    # Between two snapshots: the row holds version 4's state, the log versions 5 and 6.
    assert (game.version, game.snapshot_version) == (EVERY + 2, EVERY)
    assert [r.version for r in rows] == list(range(1, EVERY + 3))
    assert game.state == engine.dumps(_replayed(game, rows, EVERY))
    assert game.state != engine.dumps(_replayed(game, rows, EVERY + 2))

    server.kill()
    for client in clients:
        await client.close()
    # Loading: the snapshot plus the actions after it.
    version, state = await loaded_state(database, table_id)
    assert version == EVERY + 2
    assert engine.dumps(state) == engine.dumps(_replayed(game, rows, EVERY + 2))

    server.start()
    for client in clients:
        # From scratch: the whole state of version 6, as the log replays it.
        await client.connect()
        m = await client.wait_for(lambda m: m["type"] == "state")
        assert m["version"] == EVERY + 2
        assert m["view"] == engine.view(_replayed(game, rows, EVERY + 2), client.seat)
    # The game goes on from there, across the next snapshot.
    await _play_to(clients, 2 * EVERY + 1)
    game, rows = await _log(database, table_id)
    assert (game.version, game.snapshot_version) == (2 * EVERY + 1, 2 * EVERY)
    assert game.state == engine.dumps(_replayed(game, rows, 2 * EVERY))
    _check_acks(clients, rows)

    # And to its end, where the final state is stored.
    server.kill()
    server.start()
    for client in clients:
        await client.connect(since=client.version)
    await asyncio.gather(*(client.play_until_over(timeout=120) for client in clients))
    game, rows = await _log(database, table_id)
    assert game.status == "over"
    assert [r.version for r in rows] == list(range(1, game.version + 1))
    assert game.snapshot_version == game.version
    final = _replayed(game, rows, game.version)
    assert game.state == engine.dumps(final)
    _check_acks(clients, rows)
    for client in clients:
        assert client.version == game.version
        assert client.view == engine.view(final, client.seat)
        await client.close()


async def test_a_game_stored_before_snapshots_loads_and_goes_on(
    database: Database, server_factory: Any
) -> None:
    # A snapshot with every action, as servers before snapshots wrote it...
    server: ServerProcess = server_factory(database, SNAPSHOT_EVERY="1")
    table_id, clients = await _seat_clients(server)
    await _play_to(clients, 3)
    server.stop()
    for client in clients:
        await client.close()
    game, rows = await _log(database, table_id)
    assert game.state == engine.dumps(_replayed(game, rows, 3))
    # ...and no snapshot_version, as before the migration that added it.
    await db_execute(database, "UPDATE games SET snapshot_version = NULL WHERE id = :g", g=game.id)
    game, rows = await _log(database, table_id)
    assert game.snapshot_version is None

    server.settings["SNAPSHOT_EVERY"] = "50"
    server.start()
    for client in clients:
        await client.connect()
        m = await client.wait_for(lambda m: m["type"] == "state")
        assert m["version"] == 3
        assert m["view"] == engine.view(_replayed(game, rows, 3), client.seat)
    await _play_to(clients, 5)
    game, rows = await _log(database, table_id)
    # The old row's state was version 3's; the actions after it are in the log.
    assert (game.version, game.snapshot_version) == (5, 3)
    assert game.state == engine.dumps(_replayed(game, rows, 3))
    version, state = await loaded_state(database, table_id)
    assert version == 5
    assert engine.dumps(state) == engine.dumps(_replayed(game, rows, 5))
    _check_acks(clients, rows)
    for client in clients:
        await client.close()
