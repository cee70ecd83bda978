"""Identifiers.

- the ids of the server's own actions (bots, time-outs) live in a namespace no client can write,
so a player cannot make a bot bid nothing, freeze a game, or switch off another seat's timer by
sending the id the server is about to use.
- every identifier in a path, a query or a frame is checked at the edge (pattern and range): a
4xx or an `error`, never a 500, a traceback or a database error; on SQLite and on Postgres.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bid,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
)

ServerFactory = Callable[..., ServerProcess]


def _clean_log(server: ServerProcess) -> None:
    log = server.log()
    assert "Traceback" not in log, log[-3000:]
    assert "Exception in ASGI application" not in log, log[-3000:]
    assert " 500 " not in log, log[-3000:]


async def _my_turn(client: SeatClient, timeout: float = 30.0) -> dict[str, Any] | None:
    """Read until this seat has an open prompt: the prompt (None once the game is over)."""
    deadline = time.monotonic() + timeout
    while (prompt := client.my_prompt()) is None or client.pending is not None:
        if client.over and client.pending is None:
            return None
        await client.recv(timeout=max(0.01, deadline - time.monotonic()))
    return prompt


# -- the server's action ids ------------------------------------------------------------------


async def test_a_player_using_the_bots_ids_cannot_stop_them(
    database: Database, server_factory: ServerFactory
) -> None:
    """Ann answers every prompt with the id a bot will use next (`bot-<seat>-v<next>`, its
    `-fallback`, and the `~` form, which is refused): the bots still play every bid and the game
    ends."""
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "heuristic")
        client = SeatClient(server.ws, table_id, ann.token, ann.seat, bot_strategy("heuristic", 3))
        await client.connect()
        await start(http, ann)
        refused = 0
        deadline = time.monotonic() + 90
        n = 0
        while not client.over:
            assert time.monotonic() < deadline, f"the game froze at version {client.version}"
            try:
                prompt = await _my_turn(client, timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                raise AssertionError(f"the game froze at version {client.version}") from None
            if prompt is None:
                break
            action = client.strategy(client, prompt)  # type: ignore[misc]
            assert client.version is not None
            n += 1
            bot_seat = 1 + n % 2
            # The id the bot will use after this action, in the server's namespace: refused.
            server_id = f"~bot-{bot_seat}-v{client.version + 1}"
            await client.send_json({"type": "action", "action": action, "action_id": server_id})
            error = await client.wait_for(lambda m: m["type"] in ("error", "ack"))
            assert error["type"] == "error" and error["code"] == "invalid_message", error
            assert error["action_id"] == server_id
            refused += 1
            # The same id without the "~", and its fallback: simply Ann's own ids.
            suffix = "-fallback" if n % 3 == 0 else ""
            await client.send_action(action, f"bot-{bot_seat}-v{client.version + 1}{suffix}")
        assert refused > 3
        # Every seat bid in every auction: nobody's bid was taken for another's.
        rows = await db_rows(
            database,
            "SELECT a.seat, a.action_id, a.action FROM actions a JOIN games g ON g.id = a.game_id"
            " WHERE g.table_id = :t",
            t=table_id,
        )
        bids = Counter(seat for seat, _id, action in rows if _action_type(action) == "bid")
        assert bids[0] == bids[1] == bids[2] > 0, bids
        for seat, action_id, _action in rows:
            if seat == 0:
                assert not action_id.startswith("~"), action_id
            else:
                assert action_id.startswith("~bot-"), action_id
    await client.close()
    _clean_log(server)


def _action_type(action: Any) -> str:
    if isinstance(action, str):  # JSON comes back as text through raw SQL
        action = json.loads(action)
    return str(action["type"])


async def test_a_player_cannot_switch_off_another_seats_timer(
    database: Database, server_factory: ServerFactory
) -> None:
    """Ann bids with the id of Bob's time-out (`timeout-1-...`, then the server's `~timeout-1-...`,
    refused): Bob, who never answers, still bids nothing when his time is up, and the game goes
    on."""
    # A minute to bid, which the test moves the server's clock past (and a grace longer than
    # that: no bot stands in for Bob).
    server = server_factory(database, TEST_CLOCK="0")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        r = await http.post(
            "/api/tables", json={"seats": 3, "turn_seconds": 60, "grace_seconds": 3600}
        )
        assert r.status_code == 201, r.text
        table_id = r.json()["id"]
        ann = await join(http, table_id, "Ann")
        await join(http, table_id, "Bob")  # never connects, never bids
        await add_bots(http, ann, 1, "random")
        client = SeatClient(server.ws, table_id, ann.token, ann.seat)
        await client.connect()
        await start(http, ann)
        await _my_turn(client)
        view = client.view
        assert view is not None
        label = f"{view['turn']}-{view['auction']['number']}-{view['phase']}-{view['auction']['character']}"
        await client.send_json(
            {"type": "action", "action": bid(0), "action_id": f"~timeout-1-{label}"}
        )
        error = await client.wait_for(lambda m: m["type"] in ("error", "ack"))
        assert error["type"] == "error" and error["code"] == "invalid_message"
        version = client.version
        await client.send_action(bid(0), f"timeout-1-{label}")
        await client.wait_for(lambda m: m["type"] == "ack")
        # Bob's time runs out: his empty bid is played and the auction is resolved.
        await advance(http, 60)
        await client.wait_for(
            lambda m: (
                m["type"] == "state"
                and 1 not in m["view"]["auction"]["bids_submitted"]
                and m["version"] > (version or 0) + 2
            ),
            timeout=15,
        )
        rows = await db_rows(
            database,
            "SELECT a.action_id FROM actions a JOIN games g ON g.id = a.game_id"
            " WHERE g.table_id = :t AND a.seat = 1",
            t=table_id,
        )
        assert rows and all(r[0].startswith("~timeout-1-") for r in rows), rows
    await client.close()
    _clean_log(server)


# -- odd identifiers at the edge -----------------------------------------------------------

ODD_IDS = ["%00", "a%00b", "%FF", "x" * 33, "abc%0A", "..%2F..", "%E2%80%AE", "a b", "%20"]
ODD_SEATS = ["2147483648", "-2147483649", "99999999999", "-1", "6", "1e3", "0x1", "%00"]


async def test_odd_identifiers_get_4xx_never_500(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        auth = {"Authorization": f"Bearer {ann.token}"}
        calls: list[tuple[str, str, Any]] = []
        for odd in ODD_IDS:
            calls += [
                ("GET", f"/api/tables/{odd}", None),
                ("GET", f"/api/games/{odd}", None),
                ("POST", f"/api/tables/{odd}/join", {"name": "Zed"}),
                ("POST", f"/api/tables/{odd}/leave", None),
                ("POST", f"/api/tables/{odd}/bots", {"count": 1}),
                ("POST", f"/api/tables/{odd}/start", None),
                ("DELETE", f"/api/tables/{odd}/bots/1", None),
            ]
        calls += [("DELETE", f"/api/tables/{table_id}/bots/{s}", None) for s in ODD_SEATS]
        calls += [
            ("GET", "/api/tables?status=%00", None),
            ("POST", "/api/tables", {"seats": 2**31}),
            ("POST", "/api/tables", {"seats": 3, "turn_seconds": -(2**63)}),
            ("POST", "/api/tables", {"seats": 3, "public": 0.0}),
            ("POST", f"/api/tables/{table_id}/bots", {"count": 2**40}),
            ("POST", "/api/quickplay", {"name": "Zed", "seats": 99999999999}),
            ("POST", f"/api/tables/{table_id}/join", {"name": "Z\x00ed"}),
        ]
        for method, url, body in calls:
            r = await http.request(method, url, json=body, headers=auth)
            assert 400 <= r.status_code < 500, (method, url, r.status_code, r.text)
            assert r.json()["detail"]["code"], (method, url, r.text)
        # The malformed table id of the issue: refused before the database, as an unknown table.
        r = await http.get("/api/tables/%00")
        assert r.status_code == 422 and r.json()["detail"]["code"] == "invalid_request"
        r = await http.delete(f"/api/tables/{table_id}/bots/2147483648", headers=auth)
        assert r.status_code == 422 and "seat" in r.json()["detail"]["message"]
        # `"public": 0.0` is not a boolean.
        r = await http.post("/api/tables", json={"seats": 3, "public": 0.0})
        assert r.status_code == 422 and "public" in r.json()["detail"]["message"]
    _clean_log(server)


@pytest.mark.parametrize("path", ["%00", "a%00b", "x" * 40, "%FF%FE"])
async def test_odd_table_ids_on_a_socket_are_refused_cleanly(
    path: str, database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with websockets.connect(f"{server.ws}/ws/tables/{path}") as ws:
        first = await asyncio.wait_for(ws.recv(), 10)
        assert '"code":"not_found"' in str(first)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    _clean_log(server)


async def test_odd_since_and_action_ids_are_refused_and_the_game_goes_on(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "random")
        await start(http, ann)
    for since in ["99999999999", "-2147483649", "-5", "1e3", "%00", "", "2147483648"]:
        client = SeatClient(server.ws, table_id, f"{ann.token}&since={since}", ann.seat)
        await client.connect()
        assert await client.wait_closed() == 1008, since
        assert client.errors[-1]["code"] == "invalid_since"
    client = SeatClient(server.ws, table_id, ann.token, ann.seat)
    await client.connect(since=2**31 - 1)  # the largest: unknown, so a resync
    state = await client.wait_for(lambda m: m["type"] == "state")
    assert state["resync"] is True
    await _my_turn(client)
    # The bots' bids of this auction may still come: then the game waits for Ann alone.
    while any(p["seat"] != client.seat for p in client.prompts):
        await client.recv()
    settled = client.version
    for odd in ["a\x00b", "\x00", "tab\there", "line\nbreak", "\x7f", "\u202e", "~mine"]:
        await client.send_json({"type": "action", "action": bid(0), "action_id": odd})
        error = await client.wait_for(lambda m: m["type"] in ("error", "ack"))
        assert error["type"] == "error" and error["code"] == "invalid_message", (odd, error)
    assert client.version == settled  # nothing was applied
    # A legal bid with a plain id still works: nothing was spoiled (no `unavailable`).
    await client.send_action(bid(0), "plain-1")
    ack = await client.wait_for(lambda m: m["type"] in ("error", "ack"))
    assert ack["type"] == "ack", ack
    await client.close()
    _clean_log(server)


async def test_a_failing_database_answers_unavailable_never_500(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    """The database file turns to garbage under a running server: HTTP answers 503 `unavailable`
    (retry later) and sockets `unavailable` with 1013, with one log line each, no traceback.
    (Postgres stopping mid-game: tests/server/test_db_outage.py.)"""
    server = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        assert sqlite_db.path is not None
        sqlite_db.path.write_bytes(b"not a database " * 4096)
        for method, url, body in [
            ("GET", f"/api/tables/{table_id}", None),
            ("GET", "/api/tables", None),
            ("POST", f"/api/tables/{table_id}/join", {"name": "Ann"}),
        ]:
            r = await http.request(method, url, json=body)
            assert r.status_code == 503, (method, url, r.status_code, r.text)
            assert r.json()["detail"]["code"] == "unavailable"
            assert int(r.headers["Retry-After"]) >= 1
    client = SeatClient(server.ws, table_id, None, None)
    await client.connect()
    assert await client.wait_closed() == 1013
    assert client.errors[-1]["code"] == "unavailable"
    _clean_log(server)
    assert server.log().count("database unavailable") >= 4
