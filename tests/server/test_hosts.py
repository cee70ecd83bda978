"""The host of a table: the first person to sit; only the host adds or removes bots,
removes a player, changes the settings and starts; when the host leaves, the next person hosts."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    bearer,
    create_table,
    join,
)


async def _table(http: httpx.AsyncClient, table_id: str) -> dict[str, Any]:
    return dict((await http.get(f"/api/tables/{table_id}")).json())


async def test_only_the_host_changes_the_table(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        assert (await _table(http, table_id))["host"] is None
        ann = await join(http, table_id, "Ann")
        bob = await join(http, table_id, "Bob")
        r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(ann))
        assert r.status_code == 200, r.text
        bot_seat = next(p["seat"] for p in r.json()["players"] if p["bot"])
        before = await _table(http, table_id)
        assert before["host"] == ann.seat

        refused = [
            ("POST", "bots", {"count": 1}),
            ("DELETE", f"bots/{bot_seat}", None),
            ("DELETE", f"seats/{ann.seat}", None),
            ("DELETE", f"seats/{bot_seat}", None),
            ("PATCH", "", {"public": False, "turn_seconds": 30}),
            ("POST", "start", None),
        ]
        for method, path, body in refused:
            url = f"/api/tables/{table_id}/{path}".rstrip("/")
            r = await http.request(method, url, json=body, headers=bearer(bob))
            assert (r.status_code, r.json()["detail"]["code"]) == (403, "not_host"), (method, path)
            # No token: 401, as before.
            r = await http.request(method, url, json=body)
            assert (r.status_code, r.json()["detail"]["code"]) == (401, "missing_token")
        after = await _table(http, table_id)
        for key in ("players", "taken", "public", "turn_seconds", "status", "host"):
            assert after[key] == before[key], key

        # The host may do each of them.
        r = await http.patch(
            f"/api/tables/{table_id}", json={"turn_seconds": 30}, headers=bearer(ann)
        )
        assert r.status_code == 200 and r.json()["turn_seconds"] == 30 and r.json()["public"]
        r = await http.patch(f"/api/tables/{table_id}", json={"public": False}, headers=bearer(ann))
        assert (r.json()["public"], r.json()["turn_seconds"]) == (False, 30)
        r = await http.patch(
            f"/api/tables/{table_id}", json={"turn_seconds": None}, headers=bearer(ann)
        )
        assert (r.json()["public"], r.json()["turn_seconds"]) == (False, None)
        for bad in ({"public": None}, {"turn_seconds": 0}, {"seats": 6}, {"public": "no"}):
            r = await http.patch(f"/api/tables/{table_id}", json=bad, headers=bearer(ann))
            assert r.status_code in (400, 422), bad
        r = await http.delete(f"/api/tables/{table_id}/bots/{bot_seat}", headers=bearer(ann))
        assert r.status_code == 200 and r.json()["taken"] == 2
        r = await http.delete(f"/api/tables/{table_id}/seats/{bot_seat}", headers=bearer(ann))
        assert (r.status_code, r.json()["detail"]["code"]) == (404, "no_seat")
        r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 2}, headers=bearer(ann))
        assert r.status_code == 200
        r = await http.post(f"/api/tables/{table_id}/start", headers=bearer(ann))
        assert r.status_code == 200 and r.json()["status"] == "playing"
        assert r.json()["host"] == ann.seat


async def test_host_leaves_next_person_hosts(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 4)
        ann = await join(http, table_id, "Ann")
        r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(ann))
        bob = await join(http, table_id, "Bob")
        cy = await join(http, table_id, "Cy")
        assert (await _table(http, table_id))["host"] == ann.seat
        # Bob's page shows the change at once.
        bob_page = SeatClient(server.ws, table_id, bob.token, bob.seat)
        await bob_page.connect()
        await bob_page.wait_for(lambda m: m["type"] == "table")
        r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(ann))
        assert r.status_code == 200 and r.json()["host"] == bob.seat  # not the bot
        await bob_page.wait_for(lambda m: m["type"] == "table" and m["table"]["host"] == bob.seat)
        r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(cy))
        assert (r.status_code, r.json()["detail"]["code"]) == (403, "not_host")
        r = await http.post(f"/api/tables/{table_id}/bots", json={"count": 1}, headers=bearer(bob))
        assert r.status_code == 200
        r = await http.delete(f"/api/tables/{table_id}/bots/{ann.seat}", headers=bearer(bob))
        assert r.status_code == 200
        # Ann comes back: she sits last, so Bob still hosts.
        ann2 = await join(http, table_id, "Ann")
        assert ann2.seat == 0 and (await _table(http, table_id))["host"] == bob.seat
        await bob_page.close()


async def test_host_removes_a_player(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        bob = await join(http, table_id, "Bob")
        bob_page = SeatClient(server.ws, table_id, bob.token, bob.seat)
        await bob_page.connect()
        await bob_page.wait_for(lambda m: m["type"] == "table")
        r = await http.delete(f"/api/tables/{table_id}/seats/{ann.seat}", headers=bearer(ann))
        assert (r.status_code, r.json()["detail"]["code"]) == (400, "invalid_request")
        r = await http.delete(f"/api/tables/{table_id}/seats/{bob.seat}", headers=bearer(ann))
        assert r.status_code == 200, r.text
        assert [p["name"] for p in r.json()["players"]] == ["Ann"]
        # Bob's socket is told why and closed; his token holds nothing any more.
        assert await bob_page.wait_closed() == 1000
        assert any(e["code"] == "removed" for e in bob_page.errors), bob_page.errors
        r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(bob))
        assert (r.status_code, r.json()["detail"]["code"]) == (401, "invalid_token")
        again = SeatClient(server.ws, table_id, bob.token, bob.seat)
        await again.connect()
        await again.wait_closed()
        assert any(e["code"] == "invalid_token" for e in again.errors)
        # The seat is free again.
        cy = await join(http, table_id, "Cy")
        assert cy.seat == bob.seat
