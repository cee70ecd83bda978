"""Reconnection: the missed events, or a full state when the gap is too old; presence shown to
the table."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bid,
    bot_strategy,
    create_table,
    join,
    start,
)

BOT_SEAT = 3  # three people join, then one bot


async def _settled(client: SeatClient, version: int = 0) -> None:
    """Read until this socket has `version` (at least) and the game waits for people only: no
    bot has a prompt open, so no version comes until a person here acts. (Reading until a
    quiet moment instead would stop early on a busy machine, where a bot's move can take longer
    than the pause.)"""
    while (
        client.version is None
        or client.version < version
        or not client.prompts
        or any(p["seat"] == BOT_SEAT for p in client.prompts)
    ):
        await client.recv()


def _presence(client: SeatClient, seat: int) -> bool:
    assert client.table is not None
    return bool(next(p for p in client.table["players"] if p["seat"] == seat)["connected"])


async def test_reconnect_gets_missed_events_or_a_full_state_and_presence_is_shown(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db, MAX_EVENT_GAP="2")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        ann, bob, cy = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cy")]
        await add_bots(http, ann, 1)
        await start(http, ann)
        a = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("random", 1))
        b = SeatClient(server.ws, table_id, bob.token, bob.seat, bot_strategy("random", 2))
        c = SeatClient(server.ws, table_id, cy.token, cy.seat, bot_strategy("random", 3))
        watcher = SeatClient(server.ws, table_id, None, None)
        for client in (a, b, c, watcher):
            await client.connect()
            await client.wait_for(lambda m: m["type"] == "state")
        # The bot bids at once: every socket has its bid before Ann's last version is taken.
        for client in (a, b, c, watcher):
            await _settled(client)
        assert _presence(watcher, ann.seat) and _presence(
            watcher, BOT_SEAT
        )  # a bot is always there

        # Ann goes away: the table is told.
        seen = a.version
        assert seen is not None
        await a.close()
        await watcher.wait_for(lambda m: m["type"] == "table" and not _presence(watcher, ann.seat))
        # Bob bids while she is away: one version she misses.
        await b.send_action(bid(1), "b1")
        await b.wait_for(lambda m: m["type"] == "ack")

        # Back with the last version seen: exactly the missed events, no reset.
        await a.connect(since=seen)
        state = await a.wait_for(lambda m: m["type"] == "state")
        assert (state["events_from"], state["resync"]) == (seen, False)
        assert state["version"] == seen + 1
        assert [e["version"] for e in state["events"]] == [seen + 1]
        assert (
            state["events"][0]["type"] == "bid_submitted" and state["events"][0]["seat"] == bob.seat
        )
        await watcher.wait_for(lambda m: m["type"] == "table" and _presence(watcher, ann.seat))

        # Away again while more than MAX_EVENT_GAP (2) versions pass: a full state arrives, the
        # log reset to the last two versions.
        seen = a.version
        assert seen is not None
        await a.close()
        await c.send_action(bid(0), "c1")
        await c.wait_for(lambda m: m["type"] == "ack")
        other_tab = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await other_tab.connect()
        await other_tab.wait_for(lambda m: m["type"] == "state")
        await other_tab.send_action(bid(0), "a1")  # the last bid: the Witch is revealed
        await other_tab.wait_for(lambda m: m["type"] == "ack")
        await other_tab.close()
        # Bob has the reveal and whatever the bot did after it: the game waits for people.
        await _settled(b, other_tab.acks["a1"])
        assert b.version is not None and b.version - seen > 2
        await a.connect(since=seen)
        old = await a.wait_for(lambda m: m["type"] == "state")
        assert (old["resync"], old["events_from"], old["version"]) == (
            True,
            b.version - 2,
            b.version,
        )
        assert {e["version"] for e in old["events"]} <= {b.version - 1, b.version}
        # A version from the future (a restored database?) gets a reset too.
        await a.close()
        await a.connect(since=10_000)
        future = await a.wait_for(lambda m: m["type"] == "state")
        assert (future["resync"], future["events_from"]) == (True, b.version - 2)
        # A fresh page gets the log it may see, within the same limit.
        await a.close()
        await a.connect()
        fresh = await a.wait_for(lambda m: m["type"] == "state")
        assert fresh["events_from"] == b.version - 2

        # A malformed since is refused.
        bad = SeatClient(server.ws, table_id, f"{ann.token}&since=abc", ann.seat)
        await bad.connect()
        assert await bad.wait_closed() == 1008
        assert bad.errors[0]["code"] == "invalid_since"
        await bad.close()

        # Everyone plays on to the end.
        a.strategy = bot_strategy("random", 9)
        await b.drain(0.1)
        await c.drain(0.1)
        await asyncio.gather(*(x.play_until_over(90) for x in (a, b, c)))
        for client in (a, b, c, watcher):
            await client.close()
