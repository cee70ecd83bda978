"""The opening of a game (turn 1 announced, the Witch up for auction) is the first thing in every
socket's log: the ones waiting at the start, fresh ones, spectators; `since=0` does not repeat it."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.harness import SeatClient, ServerProcess, create_table, join, start

BID_NOTHING = {
    "type": "bid",
    "fairy_gold": 0,
    "common_gold": 0,
    "amulet": False,
    "black_magic": False,
}


def _opening(state: dict[str, Any]) -> list[dict[str, Any]]:
    assert state["events_from"] == -1 and not state["resync"]
    first: list[dict[str, Any]] = state["events"][:2]
    assert [(e["type"], e["version"]) for e in first] == [
        ("turn_started", 0),
        ("auction_started", 0),
    ]
    assert first[0]["text"].startswith("Turn 1: this turn's special characters are the ")
    assert first[0]["specials"] == state["view"]["specials"]
    assert first[0]["turn"] == 1 and len(first[0]["specials"]) == 2
    assert first[1]["text"] == "The Witch is up for auction."
    assert first[1]["card"] == "witch"
    return first


async def test_every_log_starts_with_the_opening(shared_server: ServerProcess) -> None:
    server = shared_server
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann, bob, cy = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cy")]
        # Ann waits in the waiting room: the start itself brings her the opening.
        a = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await a.connect()
        await a.wait_for(lambda m: m["type"] == "table")
        await start(http, ann)
        at_start = await a.wait_for(lambda m: m["type"] == "state")
        assert at_start["version"] == 0
        opening = _opening(at_start)
        assert len(at_start["events"]) == 2

        # A fresh socket of a player and a spectator's get the very same opening.
        b = SeatClient(server.ws, table_id, bob.token, bob.seat)
        watcher = SeatClient(server.ws, table_id, None, None)
        for client in (b, watcher):
            await client.connect()
            state = await client.wait_for(lambda m: m["type"] == "state")
            assert _opening(state) == opening

        # After an action, a fresh page still starts with the opening, then the action.
        await b.send_action(BID_NOTHING, "b1")
        await b.wait_for(lambda m: m["type"] == "ack")
        late = SeatClient(server.ws, table_id, None, None)
        await late.connect()
        state = await late.wait_for(lambda m: m["type"] == "state")
        assert state["version"] == 1
        assert _opening(state) == opening
        assert [(e["type"], e["version"]) for e in state["events"][2:]] == [("bid_submitted", 1)]
        await late.close()

        # A reconnect that already holds version 0 is not told the opening twice.
        c = SeatClient(server.ws, table_id, cy.token, cy.seat)
        await c.connect(since=0)
        state = await c.wait_for(lambda m: m["type"] == "state")
        assert (state["events_from"], state["resync"]) == (0, False)
        assert [e["version"] for e in state["events"]] == [1]
        # An unusable since (from the future) replaces the log: the opening comes first again.
        await c.close()
        await c.connect(since=99)
        state = await c.wait_for(lambda m: m["type"] == "state")
        assert state["resync"] is True and state["events_from"] == -1
        assert [e["type"] for e in state["events"][:2]] == ["turn_started", "auction_started"]
        for client in (a, b, c, watcher):
            await client.close()
