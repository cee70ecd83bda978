"""Whole games over real HTTP and real WebSockets: bots and scripted people mixed, on SQLite and
Postgres, with spectators and a seat open in two tabs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from app.cli import check_record
from app.core.messages import PROTOCOL_VERSION
from tests.server.harness import (
    REPO,
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)


async def _finish(clients: list[SeatClient], timeout: float = 90.0) -> None:
    await asyncio.gather(*(c.play_until_over(timeout) for c in clients))


async def _watch(spectator: SeatClient, timeout: float = 90.0) -> None:
    await spectator.wait_for(
        lambda m: m["type"] == "state" and m["view"]["winner"] is not None, timeout
    )


async def test_complete_games_with_bots_people_spectators_and_two_tabs(
    database: Database, server_factory: Any, tmp_path: Path
) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        # Table A: two people (one in two tabs), two bots, a spectator.
        a = await create_table(http, 4)
        ann = await join(http, a, "Ann")
        bob = await join(http, a, "Bob")
        await add_bots(http, ann, 1, "heuristic")
        await add_bots(http, ann, 1, "random")  # Ann hosts: she adds every bot
        # Table B: three people, a private table.
        b = await create_table(http, 3, public=False)
        b_seats = [await join(http, b, name) for name in ("Cy", "Di", "Ed")]
        # Table C: one person and five bots.
        c = await create_table(http, 6)
        fay = await join(http, c, "Fay")
        await add_bots(http, fay, 5)

        listed = {t["id"] for t in (await http.get("/api/tables")).json()}
        assert a not in listed and c not in listed  # full: nobody can join them
        assert b not in listed  # private

        ann1 = SeatClient(server.ws, a, ann.token, ann.seat, bot_strategy("heuristic", 1))
        ann2 = SeatClient(server.ws, a, ann.token, ann.seat)  # a second tab: only watches
        bob1 = SeatClient(server.ws, a, bob.token, bob.seat, bot_strategy("random", 2))
        watcher = SeatClient(server.ws, a, None, None)
        people_b = [
            SeatClient(
                server.ws,
                b,
                s.token,
                s.seat,
                bot_strategy("heuristic" if s.seat else "random", 10 + s.seat),
            )
            for s in b_seats
        ]
        fay1 = SeatClient(server.ws, c, fay.token, fay.seat, bot_strategy("heuristic", 3))
        everyone = [ann1, ann2, bob1, watcher, *people_b, fay1]
        for client in everyone:
            await client.connect()
            hello = await client.recv()
            assert hello == {
                "type": "hello",
                "table_id": client.table_id,
                "seat": client.seat,
                "name": hello["name"],
                "protocol": PROTOCOL_VERSION,
            }
            assert (await client.recv())["type"] == "table"

        for seat in (ann, b_seats[0], fay):
            await start(http, seat)
        await asyncio.gather(
            _finish([ann1, bob1, *people_b, fay1]),
            _watch(ann2),
            _watch(watcher),
        )
        for client in everyone:
            await client.drain(0.3)

        for table_id in (a, b, c):
            table = await wait_game_over(http, table_id)
            record = (await http.get(f"/api/games/{table['game_id']}")).json()
            ok, summary = check_record(record)
            assert ok, summary
            assert record["winner"] == table["winner"] is not None
            assert record["version"] == len(record["actions"]) > 20
            for client in everyone:
                if client.table_id == table_id:
                    assert client.version == record["version"]
                    assert client.view is not None and client.view["winner"] == record["winner"]
                    assert client.errors == []
            # The seed is revealed at the end, and matches the commitment shown from the start.
            assert record["final_view"]["seed"] == record["seed"]

        # Both tabs of Ann saw the same states, version by version.
        def states(client: SeatClient) -> list[tuple[int, str]]:
            return [
                (m["version"], json.dumps(m["view"], sort_keys=True))
                for m in client.messages
                if m["type"] == "state"
            ]

        seen1, seen2 = states(ann1), states(ann2)
        assert seen1[-1] == seen2[-1]
        by_version = dict(seen1)
        assert by_version == {v: s for v, s in seen2 if v in by_version}
        # The spectator's view is the public one: nobody's coins.
        assert watcher.view is not None and watcher.view["me"] is None
        # Versions only ever rise, and each seat's log covers the game without gaps.
        for client in everyone:
            versions = [m["version"] for m in client.messages if m["type"] == "state"]
            assert versions == sorted(versions)
            logged = [e["version"] for e in client.events]
            assert logged == sorted(logged) and logged[-1] == client.version

        for client in everyone:
            await client.close()

        # The record replays through the command line tool as well.
        record_file = tmp_path / "record.json"
        table = (await http.get(f"/api/tables/{a}")).json()
        record_file.write_text((await http.get(f"/api/games/{table['game_id']}")).text)
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "replay", str(record_file)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("OK ")
        # A tampered record is refused with a clear message.
        tampered = json.loads(record_file.read_text())
        tampered["winner"] = (tampered["winner"] + 1) % tampered["seats"]
        record_file.write_text(json.dumps(tampered))
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", "replay", str(record_file)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1
        assert "MISMATCH" in done.stderr and "winner" in done.stderr
