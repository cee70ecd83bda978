"""Who may act: no token, a wrong token, another seat's or table's token and a spectator all fail
with a clear error and change nothing; a retried action_id has one effect."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx

from tests import deals
from tests.server.harness import (
    SeatClient,
    ServerProcess,
    bearer,
    bid,
    bot_strategy,
    create_table,
    db_rows,
    join,
    start,
)

# One test names its game's seed (a server with TEST_SEED accepts it; the others' games are dealt
# from TEST_SEED + n, which they do not depend on).
SHARED_SERVER_SETTINGS = {"TEST_SEED": "0"}


async def _version(server: ServerProcess, table_id: str) -> int:
    """The game's version as a fresh spectator sees it."""
    watcher = SeatClient(server.ws, table_id, None, None)
    await watcher.connect()
    await watcher.wait_for(lambda m: m["type"] == "state")
    await watcher.close()
    assert watcher.version is not None
    return watcher.version


async def _started_table(
    http: httpx.AsyncClient, names: tuple[str, ...] = ("Ann", "Bob", "Cat"), seed: int | None = None
) -> Any:
    table_id = await create_table(http, len(names))
    seats = [await join(http, table_id, n) for n in names]
    await start(http, seats[0], seed)
    return table_id, seats


async def test_http_lobby_calls_need_the_token_of_a_seat_at_that_table(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:
    table_id = await create_table(http, 3)
    ann = await join(http, table_id, "Ann")
    other_table = await create_table(http, 3)
    stranger = await join(http, other_table, "Stranger")

    cases = [
        ({}, 401, "missing_token"),
        ({"Authorization": "Bearer"}, 401, "missing_token"),
        ({"Authorization": "Basic abc"}, 401, "missing_token"),
        ({"Authorization": "Bearer not-a-token"}, 401, "invalid_token"),
        (bearer(stranger), 403, "not_seated"),
    ]
    for headers, status, code in cases:
        for path, body in (("start", None), ("bots", {"count": 1}), ("leave", None)):
            r = await http.post(f"/api/tables/{table_id}/{path}", json=body, headers=headers)
            assert (r.status_code, r.json()["detail"]["code"]) == (status, code), (path, headers)
    # Nothing changed: Ann alone, no bots, still open.
    table = (await http.get(f"/api/tables/{table_id}")).json()
    assert (table["status"], table["taken"]) == ("open", 1)

    # Starting needs every seat taken; a seated player may then start it, once.
    r = await http.post(f"/api/tables/{table_id}/start", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "seats_empty")
    r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 3}, headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "not_enough_seats")
    bob = await join(http, table_id, "Bob")
    r = await http.post(f"/api/tables/{table_id}/join", json={"name": "bob"})
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "name_taken")
    # Only the host (Ann, the first to sit) adds bots and starts.
    r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(ann))
    assert r.status_code == 200
    # A bot can be sent away before the start (not a person, not without a token), and added again.
    bot_seat = next(p["seat"] for p in r.json()["players"] if p["bot"])
    r = await http.delete(f"/api/tables/{table_id}/bots/{bot_seat}")
    assert (r.status_code, r.json()["detail"]["code"]) == (401, "missing_token")
    r = await http.delete(f"/api/tables/{table_id}/bots/{bob.seat}", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (404, "no_bot")
    r = await http.delete(f"/api/tables/{table_id}/bots/{bot_seat}", headers=bearer(ann))
    assert r.status_code == 200 and r.json()["taken"] == 2
    r = await http.post(
        f"/api/tables/{table_id}/bots", json={"count": 1, "kind": "random"}, headers=bearer(ann)
    )
    assert r.status_code == 200 and r.json()["taken"] == 3
    r = await http.post(f"/api/tables/{table_id}/join", json={"name": "Late"})
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "table_full")
    assert (
        await http.post(f"/api/tables/{table_id}/start", headers=bearer(ann))
    ).status_code == 200
    r = await http.post(f"/api/tables/{table_id}/start", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "already_started")
    r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "already_started")
    r = await http.delete(f"/api/tables/{table_id}/bots/{bot_seat}", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (409, "already_started")


async def test_leave_before_start_frees_the_seat_and_voids_the_token(
    http: httpx.AsyncClient,
) -> None:
    table_id = await create_table(http, 3)
    ann = await join(http, table_id, "Ann")
    bob = await join(http, table_id, "Bob")
    r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(ann))
    assert r.status_code == 200
    assert [p["name"] for p in r.json()["players"]] == ["Bob"]
    # The old token is void; the freed seat is the next one given.
    r = await http.post(f"/api/tables/{table_id}/start", headers=bearer(ann))
    assert (r.status_code, r.json()["detail"]["code"]) == (401, "invalid_token")
    cy = await join(http, table_id, "Cy")
    assert cy.seat == ann.seat and bob.seat == 1


async def test_sockets_with_a_wrong_or_foreign_token_are_refused(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:
    table_id, _seats = await _started_table(http)
    _other_id, other_seats = await _started_table(http, ("Dee", "Eve", "Fox"))
    before = await _version(shared_server, table_id)
    for token, code in (("not-a-token", "invalid_token"), (other_seats[0].token, "not_seated")):
        client = SeatClient(shared_server.ws, table_id, token, None)
        await client.connect()
        assert await client.wait_closed() == 1008
        assert [m["code"] for m in client.messages if m["type"] == "error"] == [code]
        assert not any(m["type"] == "state" for m in client.messages)
    # An unknown table.
    client = SeatClient(shared_server.ws, "no-such-table", None, None)
    await client.connect()
    assert await client.wait_closed() == 4404
    assert client.errors[0]["code"] == "not_found"
    assert await _version(shared_server, table_id) == before


async def test_spectators_and_seats_out_of_turn_cannot_act(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:
    # Dealt from AUTH_SEED (tests/deals.py): a power decision comes in the first turn.
    table_id, seats = await _started_table(http, seed=deals.AUTH_SEED)
    ann, bob, cat = (SeatClient(shared_server.ws, table_id, s.token, s.seat) for s in seats)
    watcher = SeatClient(shared_server.ws, table_id, None, None)
    for client in (ann, bob, cat, watcher):
        await client.connect()
        await client.wait_for(lambda m: m["type"] == "state")

    # A spectator may not act.
    await watcher.send_action(bid(), "w-1")
    error = await watcher.wait_for(lambda m: m["type"] == "error")
    assert (error["code"], error["action_id"]) == ("spectator", "w-1")

    # No seat field may pick another seat: the seat is the token's.
    await ann.send_json({"type": "action", "action": bid(), "action_id": "a-x", "seat": 1})
    error = await ann.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "invalid_message"
    assert await _version(shared_server, table_id) == 0

    # Ann bids; bidding again, or sending an action of another phase, is refused.
    await ann.send_action(bid(1), "a-1")
    await ann.wait_for(lambda m: m["type"] == "ack")
    await ann.send_action(bid(2), "a-2")
    assert (await ann.wait_for(lambda m: m["type"] == "error"))["code"] == "already_submitted"
    await ann.send_action({"type": "choose", "option": "x"}, "a-3")
    assert (await ann.wait_for(lambda m: m["type"] == "error"))["code"] == "wrong_phase"
    await ann.send_action(
        {"type": "bid", "fairy_gold": 99, "common_gold": 0, "amulet": False, "black_magic": False},
        "b-0",
    )
    assert (await ann.wait_for(lambda m: m["type"] == "error"))["code"] == "already_submitted"
    await bob.send_action(
        {"type": "bid", "fairy_gold": 99, "common_gold": 0, "amulet": False, "black_magic": False},
        "b-1",
    )
    assert (await bob.wait_for(lambda m: m["type"] == "error"))["code"] == "unaffordable"
    assert await _version(shared_server, table_id) == 1

    # Play on until someone must choose; another seat's choice is refused.
    clients = {c.seat: c for c in (ann, bob, cat)}

    async def until_a_choice(client: SeatClient) -> None:
        client.strategy = bot_strategy("random", 40 + (client.seat or 0))
        while not any(p["kind"] == "choose" for p in client.prompts):
            await client.maybe_act()
            await client.recv()

    await asyncio.wait_for(asyncio.gather(*(until_a_choice(c) for c in clients.values())), 60)
    chooser = next(p for p in bob.prompts if p["kind"] == "choose")
    version = await _version(shared_server, table_id)
    intruder = clients[(chooser["seat"] + 1) % 3]
    asked = clients[chooser["seat"]].my_prompt()
    assert asked is not None
    await intruder.send_action({"type": "choose", "option": asked["options"][0]["id"]})
    assert (await intruder.wait_for(lambda m: m["type"] == "error"))["code"] == "not_your_turn"
    assert await _version(shared_server, table_id) == version
    for client in (ann, bob, cat, watcher):
        await client.close()


async def test_a_retried_action_id_has_one_effect(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:
    table_id, seats = await _started_table(http)
    ann = SeatClient(shared_server.ws, table_id, seats[0].token, seats[0].seat)
    tab2 = SeatClient(shared_server.ws, table_id, seats[0].token, seats[0].seat)
    bob = SeatClient(shared_server.ws, table_id, seats[1].token, seats[1].seat)
    for client in (ann, tab2, bob):
        await client.connect()
        await client.wait_for(lambda m: m["type"] == "state")

    await ann.send_action(bid(2), "same-id")
    first = await ann.wait_for(lambda m: m["type"] == "ack")
    assert first == {"type": "ack", "action_id": "same-id", "version": 1, "duplicate": False}
    # The same id again, even with another content, from this tab or the other: no new effect.
    await ann.send_action(bid(2), "same-id")
    assert await ann.wait_for(lambda m: m["type"] == "ack") == {**first, "duplicate": True}
    await tab2.send_action(bid(5), "same-id")
    assert await tab2.wait_for(lambda m: m["type"] == "ack") == {**first, "duplicate": True}
    # Another seat cannot reuse it.
    await bob.send_action(bid(1), "same-id")
    error = await bob.wait_for(lambda m: m["type"] == "error")
    assert error["code"] == "duplicate_action_id"
    assert await _version(shared_server, table_id) == 1
    # Ann's one bid is what her own view shows.
    await ann.drain(0.1)
    assert ann.view is not None and ann.view["me"]["bid"]["fairy_gold"] == 2
    for client in (ann, tab2, bob):
        await client.close()


async def test_tokens_are_stored_only_hashed(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:

    table_id = await create_table(http, 3)
    ann = await join(http, table_id, "Ann")
    rows = await db_rows(shared_server.db, "SELECT * FROM seats WHERE table_id = :t", t=table_id)
    assert len(rows) == 1
    assert ann.token not in [str(v) for v in rows[0]]
    assert rows[0].token_hash == hashlib.sha256(ann.token.encode()).hexdigest()
