"""R13: on a table with a time limit, a seat that submits nothing in time bids nothing."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.server.harness import Database, SeatClient, ServerProcess, add_bots, advance, join

# A minute to bid: never reached by itself during the test, which moves the server's clock.
LIMIT = 60


async def test_a_seat_that_does_not_bid_in_time_bids_nothing(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post("/api/tables", json={"seats": 3, "turn_seconds": LIMIT})
        assert r.status_code == 201 and r.json()["turn_seconds"] == LIMIT
        table_id = r.json()["id"]
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "heuristic")
        # Ann watches and never acts.
        client = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await client.connect()
        started = time.time()
        r = await http.post(
            f"/api/tables/{table_id}/start", headers={"Authorization": f"Bearer {ann.token}"}
        )
        assert r.status_code == 200
        first = await client.wait_for(lambda m: m["type"] == "state")
        assert first["deadline"] is not None
        assert started + LIMIT - 0.5 < first["deadline"] < time.time() + LIMIT + 0.5
        # Time runs out: Ann's empty bid is taken, the auction is revealed, the next one opens.
        await advance(http, LIMIT)
        revealed = await client.wait_for(
            lambda m: (
                m["type"] == "state" and any(e["type"] == "bids_revealed" for e in m["events"])
            ),
            timeout=10,
        )
        bids = next(e for e in revealed["events"] if e["type"] == "bids_revealed")["bids"]
        assert bids[str(ann.seat)]["value"] == 0
        assert revealed["server_time"] >= first["deadline"]
        # A new round opens with a new deadline, and the game goes on by itself.
        assert revealed["deadline"] is None or revealed["deadline"] > first["deadline"]

        def ann_bids() -> int:
            return sum(
                1
                for m in client.messages
                if m["type"] == "state"
                for e in m["events"]
                if e["type"] == "bid_submitted" and e["seat"] == ann.seat
            )

        # Her next prompt, with a deadline of its own: it runs out too.
        await client.wait_for(
            lambda m: (
                m["type"] == "state"
                and (m["deadline"] or 0) > first["deadline"]
                and client.my_prompt() is not None
            ),
            15,
        )
        await advance(http, LIMIT)
        while ann_bids() < 2:
            await client.wait_for(lambda m: m["type"] == "state", 15)
        await client.close()
