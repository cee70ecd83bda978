"""Hard bots at a real server: added by the host, seated by the queue, they think in
the worker processes and play whole games; the API names each bot's kind."""

from __future__ import annotations

from typing import Any

import httpx

from app.cli import check_record
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bearer,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

FAST = {"HARD_BOT_SECONDS": "0.02", "HARD_BOT_WORKERS": "2"}


async def test_a_person_plays_a_whole_game_against_two_hard_bots(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **FAST)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "hard")
        table = (await http.get(f"/api/tables/{table_id}")).json()
        kinds = [(p["bot"], p["bot_kind"]) for p in table["players"]]
        assert kinds == [(False, None), (True, "hard"), (True, "hard")]
        client = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 4))
        await client.connect()
        await start(http, ann)
        await client.play_until_over(180)
        table = await wait_game_over(http, table_id)
        record = (await http.get(f"/api/games/{table['game_id']}")).json()
        ok, summary = check_record(record)
        assert ok, summary
        assert record["version"] == len(record["actions"]) > 20
        assert client.view is not None and client.view["winner"] == record["winner"]
        await client.close()
    log = server.log()
    assert (
        "hard bots think in 2 worker process(es), 0.02 s of CPU per decision, niceness +10" in log
    )
    assert "failed to decide" not in log and "illegal action" not in log


async def test_an_unknown_bot_kind_is_refused(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        r = await http.post(
            f"/api/tables/{table_id}/bots", json={"count": 1, "kind": "genius"}, headers=bearer(ann)
        )
        assert r.status_code == 422, r.text
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert [p["bot"] for p in table["players"]] == [False]


async def test_the_queue_seats_hard_bots_on_request(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **FAST)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post("/api/queue", json={"name": "Ann", "size": 3, "bots_after": 0})
        assert r.status_code in (200, 201), r.text
        ticket = r.json()
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        bad = await http.post(
            f"/api/queue/{ticket['ticket']}/bots", json={"kind": "genius"}, headers=auth
        )
        assert bad.status_code == 422, bad.text
        assert (await http.get(f"/api/queue/{ticket['ticket']}", headers=auth)).json()[
            "status"
        ] == "waiting"
        r = await http.post(
            f"/api/queue/{ticket['ticket']}/bots", json={"kind": "hard"}, headers=auth
        )
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["status"] == "matched"
        table = (await http.get(f"/api/tables/{out['table_id']}")).json()
        assert [p["bot_kind"] for p in table["players"]] == [None, "hard", "hard"]


async def test_the_queue_seats_normal_bots_without_a_body(
    database: Database, server_factory: Any
) -> None:
    """The contract's call, unchanged: no body, the normal bot."""
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post("/api/queue", json={"name": "Bea", "size": 4, "bots_after": 0})
        ticket = r.json()
        r = await http.post(
            f"/api/queue/{ticket['ticket']}/bots",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        )
        assert r.status_code == 200, r.text
        table = (await http.get(f"/api/tables/{r.json()['table_id']}")).json()
        assert [p["bot_kind"] for p in table["players"]] == [None, *["heuristic"] * 3]


async def _stand_in_kind(
    http: httpx.AsyncClient, server: ServerProcess, chosen: str | None
) -> dict[str, Any]:
    """Bob leaves a started game, Ann hands his seat to a bot: the table's player record."""
    # Untimed: at a timed table (the default) the server hands the seat over by
    # itself once the grace has passed, racing Ann's request.
    r = await http.post(
        "/api/tables",
        json={"seats": 3, "grace_seconds": 1, "turn_seconds": None, "choose_seconds": None},
    )
    table_id = r.json()["id"]
    ann = await join(http, table_id, "Ann")
    bob = await join(http, table_id, "Bob")
    await add_bots(http, ann, 1)
    if chosen is not None:
        r = await http.patch(
            f"/api/tables/{table_id}", json={"stand_in_kind": chosen}, headers=bearer(ann)
        )
        assert r.status_code == 200 and r.json()["stand_in_kind"] == chosen, r.text
    a = SeatClient(server.ws, table_id, ann.token, ann.seat)
    await a.connect()
    await start(http, ann)
    # Bob never connected: once the grace period is over (the server's clock moved past it)
    # he is absent.
    await advance(http, 1)
    r = await http.post(f"/api/tables/{table_id}/seats/{bob.seat}/standin", headers=bearer(ann))
    assert r.status_code == 200, r.text
    await a.close()
    return next(p for p in r.json()["players"] if p["seat"] == bob.seat)


async def test_stand_ins_are_normal_bots_unless_the_host_chooses_hard(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **FAST, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        default = await _stand_in_kind(http, server, None)
        assert default["stand_in"] and default["bot_kind"] == "heuristic"
        chosen = await _stand_in_kind(http, server, "hard")
        assert chosen["stand_in"] and chosen["bot_kind"] == "hard"
        # A kind the server does not know is refused, and changes nothing.
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        r = await http.patch(
            f"/api/tables/{table_id}", json={"stand_in_kind": "genius"}, headers=bearer(ann)
        )
        assert r.status_code == 422
        assert (await http.get(f"/api/tables/{table_id}")).json()["stand_in_kind"] is None
