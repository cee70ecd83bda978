"""The queue's untrusted input: sizes, waits, names, unknown tickets and wrong tokens are refused
with a typed code, and nothing changes; one address may hold only so many waiting entries."""

from __future__ import annotations

import json
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import Database, ServerProcess, db_rows
from tests.server.queue_helpers import QUEUE_SETTINGS, Queued


async def _socket_refusal(url: str) -> tuple[dict[str, Any], int | None]:
    async with websockets.connect(url, close_timeout=2) as ws:
        first = json.loads(await ws.recv())
        try:
            await ws.recv()
        except ConnectionClosed as exc:
            return first, exc.rcvd.code if exc.rcvd else None
    raise AssertionError("the socket stayed open")


async def test_bad_queue_input_is_refused_and_changes_nothing(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(
        database, **{**QUEUE_SETTINGS, "QUEUE_MAX_PER_ADDRESS": "2"}
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        for body in (
            {"name": "Ann", "size": 2},
            {"name": "Ann", "size": 7},
            {"name": "Ann", "size": "4"},
            {"name": "Ann", "size": True},
            {"name": "Ann", "size": 4.5},
            {"name": "Ann", "size": 1e300},
            {"name": "Ann", "size": None},
            {"name": "Ann", "size": "all"},
            {"name": "Ann", "bots_after": -1},
            {"name": "Ann", "bots_after": 99999999999},
            {"name": "Ann", "bots_after": "soon"},
            {"name": "Ann", "bots_after": "60"},
            {"name": "Ann", "bots_after": False},
            {"name": "Bot 2"},
            {"name": "   "},
            {"name": "A\u0000n"},
            {"name": "Ann", "seat": 1},
            {"size": 4},
        ):
            r = await http.post("/api/queue", json=body)
            assert r.status_code == 422, (body, r.text)
            # A name the server refuses has its own code.
            bad_name = body.get("name") in ("Bot 2", "   ", "A\u0000n")
            assert r.json()["detail"]["code"] == (
                "invalid_name" if bad_name else "invalid_request"
            ), body
        assert await db_rows(database, "SELECT id FROM queue_entries") == []

        ann = Queued(server.http, server.ws, "Ann")
        await ann.join(4)
        # Unknown tickets, bad ids, missing and wrong tokens.
        for method, path, headers, status, code in (
            ("GET", f"/api/queue/{'x' * 16}", ann.auth, 404, "ticket_not_found"),
            ("DELETE", "/api/queue/no-such-ticket", ann.auth, 404, "ticket_not_found"),
            ("POST", "/api/queue/no-such-ticket/bots", ann.auth, 404, "ticket_not_found"),
            ("GET", f"/api/queue/{'x' * 40}", ann.auth, 422, "invalid_request"),
            ("GET", "/api/queue/a%00b", ann.auth, 422, "invalid_request"),
            ("GET", f"/api/queue/{ann.ticket}", {}, 401, "missing_token"),
            ("DELETE", f"/api/queue/{ann.ticket}", {"Authorization": "Bearer nope"}, 401,
             "invalid_token"),
            ("POST", f"/api/queue/{ann.ticket}/bots", {"Authorization": "Bearer nope"}, 401,
             "invalid_token"),
        ):  # fmt: skip
            r = await http.request(method, path, headers=headers)
            assert (r.status_code, r.json()["detail"]["code"]) == (status, code), (method, path)
        # Another ticket's token is not Ann's.
        bea = Queued(server.http, server.ws, "Bea")
        await bea.join(5)
        r = await http.delete(f"/api/queue/{ann.ticket}", headers=bea.auth)
        assert (r.status_code, r.json()["detail"]["code"]) == (401, "invalid_token")
        assert (await ann.read())["status"] == "waiting"
        # The per-address limit (2 here): a third waiting entry is refused.
        r = await http.post("/api/queue", json={"name": "Cy"})
        assert (r.status_code, r.json()["detail"]["code"]) == (429, "too_many_tickets")
        rows = await db_rows(database, "SELECT name, status FROM queue_entries ORDER BY name")
        assert [(r.name, r.status) for r in rows] == [("Ann", "waiting"), ("Bea", "waiting")]
        # Once one has left, there is room again.
        assert (await bea.call("DELETE")).status_code == 200
        r = await http.post("/api/queue", json={"name": "Cy"})
        assert r.status_code == 201, r.text

    # The socket: unknown ticket, bad id, wrong or missing token.
    base = f"{server.ws}/ws/queue"
    for url, code, close in (
        (f"{base}?ticket={'x' * 16}&token={ann.token}", "ticket_not_found", 4404),
        (f"{base}?ticket=a%00b&token={ann.token}", "ticket_not_found", 4404),
        (f"{base}?token={ann.token}", "ticket_not_found", 4404),
        (f"{base}?ticket={ann.ticket}&token=nope", "invalid_token", 1008),
        (f"{base}?ticket={ann.ticket}", "missing_token", 1008),
    ):
        message, closed = await _socket_refusal(url)
        assert (message["type"], message["code"], closed) == ("error", code, close), url
    # Messages the queue socket does not take: an error each, the socket stays.
    await ann.connect()
    await ann.wait_for("queue")
    for frame, code in (
        ("not json", "malformed_json"),
        ('{"type": "action", "action": {}}', "unknown_type"),
        ('{"type": "bots", "size": 3}', "invalid_message"),
        ('["bots"]', "unknown_type"),
        ('{"type": "bots"}', "bots_not_yet"),
    ):
        await ann.ws.send(frame)
        assert (await ann.wait_for("error", code=code))["code"] == code
        ann.messages.clear()
    await ann.ws.send('{"type": "ping"}')
    await ann.wait_for("pong")
    assert (await ann.read())["status"] == "waiting"
    await ann.close()
