"""SIGTERM in the middle of a game, with an action in flight: the server finishes what it was doing,
closes every socket with 1012 (service restart) so clients reconnect at once, and exits within
10 s; nothing acknowledged is lost, and the clients go on with the restarted server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Awaitable
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

import engine
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
)

# Runs alone, after the parallel tests (scripts/test.sh): asserts how fast the process exits.
pytestmark = pytest.mark.serial


class Terminator:
    """Sends SIGTERM just as a person's action leaves, once the game is under way."""

    def __init__(self, server: ServerProcess, at_version: int) -> None:
        self.server = server
        self.at_version = at_version
        self.done = False
        self.up = asyncio.Event()
        self.up.set()
        self.exit_seconds: float | None = None
        self.close_codes: list[int | None] = []

    def before_send(
        self, client: SeatClient, _prompt: dict[str, Any], _action: dict[str, Any]
    ) -> Awaitable[None] | None:
        if self.done or (client.version or 0) < self.at_version:
            return None
        self.done = True
        self.up.clear()
        assert self.server.proc is not None
        os.kill(self.server.proc.pid, signal.SIGTERM)  # the action goes out right after
        return self.restart()

    async def restart(self) -> None:
        asyncio.get_running_loop().create_task(self._restart())

    async def _restart(self) -> None:
        assert self.server.proc is not None
        began = time.monotonic()
        await asyncio.to_thread(self.server.proc.wait, 20)
        self.exit_seconds = time.monotonic() - began
        await asyncio.to_thread(self.server.start)
        self.up.set()


async def play_through_restart(client: SeatClient, term: Terminator) -> None:
    while True:
        try:
            await client.play_until_over(timeout=120)
            return
        except (ConnectionClosed, OSError) as exc:
            code = getattr(getattr(exc, "rcvd", None), "code", None)
            term.close_codes.append(code)
            await term.up.wait()
            await client.connect(since=client.version)
            await client.resend_pending()


async def test_sigterm_mid_game_closes_with_1012_exits_fast_and_loses_nothing(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    term = Terminator(server, at_version=6)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        seats = [await join(http, table_id, name) for name in ("Ann", "Bob", "Cat")]
        people = []
        for s in seats:
            client = SeatClient(
                server.ws, table_id, s.token, s.seat, bot_strategy("random", s.seat)
            )
            client.before_send = term.before_send
            people.append(client)
        for client in people:
            await client.connect()
        await start(http, seats[0])
        await asyncio.gather(*(play_through_restart(c, term) for c in people))
        for client in people:
            await client.close()

    assert term.done and server.starts == 2
    assert term.exit_seconds is not None and term.exit_seconds < 10, term.exit_seconds
    # Every socket was told to come back (1012), none saw the connection just drop.
    assert len(term.close_codes) == len(people) and set(term.close_codes) == {1012}, (
        term.close_codes
    )
    assert "Traceback" not in server.log()

    (game,) = await db_rows(database, "SELECT id, players, seed, state, version, status FROM games")
    rows = await db_rows(
        database,
        "SELECT version, seat, action, action_id FROM actions WHERE game_id = :g ORDER BY version",
        g=game.id,
    )
    assert game.status == "over"
    assert [r.version for r in rows] == list(range(1, game.version + 1))
    by_id = {(r.seat, r.action_id): r for r in rows}
    for client in people:
        # Every acknowledged action is in the log at its acknowledged version, and every action
        # of this seat in the log was acknowledged to it (the one in flight included).
        for action_id, version in client.acks.items():
            assert by_id[(client.seat, action_id)].version == version
        assert {r.action_id for r in rows if r.seat == client.seat} == set(client.acks)
        assert client.version == game.version
    replayed = engine.replay(
        game.players,
        int(game.seed),
        [(r.seat, r.action if isinstance(r.action, dict) else json.loads(r.action)) for r in rows],
    )
    assert engine.dumps(replayed) == game.state
