"""After the game, at a real server: every screen opened and the analysis of each decision, both
refused while the game is played; an analysis a crash interrupted is resumed when the server
starts again, and `dragonstones analyse` prints the same figures as the page shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import engine
from app.cli import main as cli_main
from app.table.analysis import analysis_lines
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
    until,
    wait_game_over,
)

WORLDS = 1  # the smallest budget: a second or two of CPU for a whole game


async def stored(db: Database, game_id: str) -> int:
    rows = await db_rows(
        db, "SELECT count(*) FROM analysis_decisions WHERE game_id = :g", g=game_id
    )
    return int(rows[0][0])


async def finished(db: Database, game_id: str) -> bool:
    rows = await db_rows(db, "SELECT finished_at FROM analyses WHERE game_id = :g", g=game_id)
    return bool(rows) and rows[0][0] is not None


async def test_screens_and_analysis_after_the_end_resumed_after_a_crash(
    database: Database,
    server_factory: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server: ServerProcess = server_factory(database, ANALYSIS_WORLDS=str(WORLDS), ANALYSIS_NICE="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2)
        client = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 3))
        await client.connect()
        table = await start(http, ann)
        game_id = table["game_id"]
        for document in ("screens", "analysis"):
            live = await http.get(f"/api/games/{game_id}/{document}")
            assert live.status_code == 409, live.text
            assert live.json()["detail"]["code"] == "not_over"
        await client.play_until_over(120)
        await client.close()
        await wait_game_over(http, table_id)
        record = (await http.get(f"/api/games/{game_id}")).json()

        # Every screen: each seat's coins and sealed bids, as its own view showed them.
        screens = (await http.get(f"/api/games/{game_id}/screens")).json()
        state, _ = engine.start(record["seats"], int(record["seed"]))
        assert len(screens["versions"]) == record["version"] + 1
        sealed_seen = 0
        for i, version in enumerate(screens["versions"]):
            if i:
                a = record["actions"][i - 1]
                state, _ = engine.apply(state, a["seat"], a["action"])
            for screen in version["screens"]:
                me = engine.view(state, screen["seat"])["me"]
                assert screen == {
                    "seat": screen["seat"],
                    **{k: me[k] for k in screen if k != "seat"},
                }
                sealed_seen += screen["bid"] is not None
        assert sealed_seen > 0

        # The analysis starts with the first call; a crash stops it part way.
        first = (await http.get(f"/api/games/{game_id}/analysis")).json()
        assert first["total"] == len(record["actions"]) and first["worlds"] == WORLDS
        assert not first["complete"]
        await until(lambda: stored(database, game_id), 120, "a first batch stored")
        server.kill()
        before = await stored(database, game_id)
        assert 0 < before < len(record["actions"])

    # Started again, the server resumes it by itself, from where it stopped.
    server.start()
    await until(lambda: finished(database, game_id), 240, "the analysis resumed and finished")
    assert "resumed at decision" in server.log()
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        page = (await http.get(f"/api/games/{game_id}/analysis")).json()
    assert page["complete"] and page["done"] == page["total"] == len(record["actions"])
    assert [d["index"] for d in page["decisions"]] == list(range(len(record["actions"])))
    assert {d["label"] for d in page["decisions"]} <= {
        "best", "good", "inaccuracy", "mistake", "blunder", "forced",
    }  # fmt: skip

    # The command analyses the record offline, to the same figures as the page shows.
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert cli_main(["analyse", str(path), "--worlds", str(WORLDS)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == analysis_lines(page, record)
    assert len(printed) > len(record["actions"])
