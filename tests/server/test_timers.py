"""R13: on a table with a time limit, a seat that submits nothing in time bids nothing."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.server.harness import Database, SeatClient, ServerProcess, add_bots, join

# Runs alone, after the parallel tests (scripts/test.sh): turn deadlines compared with the wall clock.
pytestmark = pytest.mark.serial


async def test_a_seat_that_does_not_bid_in_time_bids_nothing(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post("/api/tables", json={"seats": 3, "turn_seconds": 1})
        assert r.status_code == 201 and r.json()["turn_seconds"] == 1
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
        assert started + 0.5 < first["deadline"] < time.time() + 1.5
        # Time runs out: Ann's empty bid is taken, the auction is revealed, the next one opens.
        revealed = await client.wait_for(
            lambda m: (
                m["type"] == "state" and any(e["type"] == "bids_revealed" for e in m["events"])
            ),
            timeout=10,
        )
        bids = next(e for e in revealed["events"] if e["type"] == "bids_revealed")["bids"]
        assert bids[str(ann.seat)]["value"] == 0
        assert time.time() - started >= 0.9
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

        while ann_bids() < 2:
            await client.wait_for(lambda m: m["type"] == "state", 15)
        assert time.time() - started >= 1.9
        await client.close()
