"""The table socket and the queue socket admit through one function of the edge
(app/edge/sockets.py `admit`): a queue socket counts against the same limits on sockets as the
table sockets, and one beyond a limit is refused the same way (`too_many_sockets`, then 4429)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import Database, ServerProcess, create_table
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued

ServerFactory = Callable[..., ServerProcess]


async def _refused(ws: Any) -> None:
    """The socket is told `too_many_sockets`, then closed with 4429."""
    first = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert first["type"] == "error" and first["code"] == "too_many_sockets", first
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429


async def _admitted_after_refusals(queued: Queued, within: float = 10.0) -> int:
    """Connect `queued` until its socket is admitted; how many times it was refused first."""
    deadline = time.monotonic() + within
    refused = 0
    while True:
        await queued.connect()
        first = await queued.recv()
        if first.get("code") != "too_many_sockets":
            return refused
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(queued.ws.recv(), 10)
        refused += 1
        assert time.monotonic() < deadline, f"refused {refused} times after a place was freed"
        await asyncio.sleep(0.05)


async def test_a_queue_socket_counts_against_the_limits_on_sockets(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database, MAX_SOCKETS_PER_ADDRESS="2", **QUEUE_SETTINGS)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
    ann = Queued(server.http, server.ws, "Ann")
    await ann.join()
    # Two spectators of a table take this address's two places.
    watchers = [
        await websockets.connect(f"{server.ws}/ws/tables/{table_id}", close_timeout=2)
        for _ in range(2)
    ]
    for ws in watchers:
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "hello"
    await ann.connect()
    await _refused(ann.ws)
    # A place given back: the queue socket is admitted and hears where it stands. The server
    # lets the place go once its side of the closed socket has finished, a moment after the
    # client's close returns: until then Ann is refused as before (and each refusal logged).
    await watchers.pop().close()
    again = await _admitted_after_refusals(ann)
    assert (await ann.wait_for("queue"))["ticket"] == ann.ticket
    # Now the queue socket holds a place: a table socket beyond the limit is refused.
    extra = await websockets.connect(f"{server.ws}/ws/tables/{table_id}", close_timeout=2)
    await _refused(extra)
    await ann.close()
    for ws in watchers:
        await ws.close()
    refusals = [line for line in server.log().splitlines() if "refused: at most 2 sockets" in line]
    assert len(refusals) == 2 + again, refusals
