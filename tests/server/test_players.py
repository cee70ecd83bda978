"""Players who come back: a browser's player known again by its cookie (HttpOnly, SameSite=Lax,
only a hash stored), across a restart; one-time sign-in links (single use, expiring); the seat a
player took, given back on their other browser; signing out everywhere. On SQLite and Postgres."""

from __future__ import annotations

from typing import Any

import httpx

from app.core.security import hash_token
from tests.server.harness import (
    Database,
    Seat,
    SeatClient,
    ServerProcess,
    add_bots,
    create_table,
    db_execute,
    db_rows,
    join,
    start,
)


def cookie_of(http: httpx.AsyncClient) -> str:
    return str(http.cookies.get("ds_player"))


async def test_a_player_comes_back_and_signs_in_on_another_device(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    laptop = httpx.AsyncClient(base_url=server.http, timeout=30)
    phone = httpx.AsyncClient(base_url=server.http, timeout=30)
    stranger = httpx.AsyncClient(base_url=server.http, timeout=30)
    async with laptop, phone, stranger:
        # A first visit makes the player; the secret is only in the cookie, never in the body.
        r = await laptop.get("/api/me")
        assert r.status_code == 200, r.text
        me = r.json()
        assert me["name"] is None and me["notice"] is None
        header = r.headers["set-cookie"].lower()
        assert "httponly" in header and "samesite=lax" in header and "secure" not in header
        secret = cookie_of(laptop)
        assert len(secret) >= 40 and secret not in r.text
        # Only its hash is stored.
        stored = await db_rows(database, "SELECT hash FROM player_secrets")
        assert [row[0] for row in stored] == [hash_token(secret)]
        r = await laptop.patch("/api/me", json={"name": "  Ann  "})
        assert r.json()["name"] == "Ann"
        r = await laptop.patch("/api/me", json={"name": "Bot 2"})
        assert (r.status_code, r.json()["detail"]["code"]) == (422, "invalid_name")

        # Ann takes a seat and links it to herself; nobody else may link it.
        table_id = await create_table(laptop, 3, timed=False)
        seat = await join(laptop, table_id, "Ann")
        link = {"table_id": table_id, "token": seat.token}
        assert (await laptop.post("/api/me/seats", json=link)).status_code == 204
        await stranger.get("/api/me")
        r = await stranger.post("/api/me/seats", json=link)
        assert (r.status_code, r.json()["detail"]["code"]) == (401, "invalid_token")
        r = await stranger.post(f"/api/me/tables/{table_id}/seat")
        assert (r.status_code, r.text) == (204, "")

        # The server restarts: she is still herself.
        server.stop()
        server.start()
        r = await laptop.get("/api/me")
        assert (r.json()["id"], r.json()["name"]) == (me["id"], "Ann")

        # A one-time link signs her phone in.
        r = await laptop.post("/api/me/claims")
        assert r.status_code == 201, r.text
        claim = r.json()
        assert claim["path"] == f"/me/claim#{claim['code']}" and "<svg" in claim["qr_svg"]
        r = await phone.post("/api/claims", json={"code": claim["code"]})
        assert r.status_code == 200, r.text
        assert (r.json()["id"], r.json()["name"]) == (me["id"], "Ann")
        assert cookie_of(phone) != secret  # a secret of its own
        # Used once; a second browser is refused with a clear message.
        r = await stranger.post("/api/claims", json={"code": claim["code"]})
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "claim_used")
        assert "used already" in r.json()["detail"]["message"]
        # An expired link is refused too.
        late = (await laptop.post("/api/me/claims")).json()["code"]
        await db_execute(
            database,
            "UPDATE player_claims SET expires_at = created_at WHERE hash = :h",
            h=hash_token(late),
        )
        r = await stranger.post("/api/claims", json={"code": late})
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "claim_expired")
        r = await stranger.post("/api/claims", json={"code": "x" * 43})
        assert (r.status_code, r.json()["detail"]["code"]) == (404, "claim_unknown")
        r = await stranger.post("/api/claims", json={"code": "not a code"})
        assert r.status_code == 422

        # The phone gets her seat back, with a token of its own that plays the seat.
        r = await phone.post(f"/api/me/tables/{table_id}/seat")
        assert r.status_code == 200, r.text
        back = r.json()
        assert (back["table_id"], back["seat"]) == (table_id, seat.seat)
        assert back["token"] != seat.token
        page = SeatClient(server.ws, table_id, back["token"], back["seat"])
        await page.connect()
        hello = await page.wait_for(lambda m: m["type"] == "hello")
        assert (hello["seat"], hello["name"]) == (seat.seat, "Ann")
        await page.close()
        games = (await phone.get("/api/me/games")).json()
        assert [(g["table_id"], g["seat"]) for g in games["current"]] == [(table_id, seat.seat)]
        assert games["current"][0]["your_move"] is False  # not started
        # Her phone holds the host's seat now: it adds the bots and starts; the game waits for
        # her sealed bid (the bots bid at once), with no time limit at this table.
        await add_bots(phone, Seat(table_id, back["seat"], back["token"], "Ann"), 2, "random")
        await start(phone, Seat(table_id, back["seat"], back["token"], "Ann"))
        [now] = (await laptop.get("/api/me/games")).json()["current"]
        assert (now["status"], now["your_move"], now["turn"], now["deadline"]) == (
            "playing",
            True,
            1,
            None,
        )

        # Signing out everywhere: the phone's cookie names nobody now; the laptop stays, anew.
        r = await laptop.post("/api/me/signout-everywhere")
        assert r.json()["id"] == me["id"] and cookie_of(laptop) != secret
        r = await phone.get("/api/me")
        assert r.json()["id"] != me["id"] and r.json()["notice"] == "new_player"
        # A forged cookie is a new visitor too, never an error.
        forged = httpx.AsyncClient(base_url=server.http, cookies={"ds_player": "forged"})
        async with forged:
            r = await forged.get("/api/me")
            assert (r.status_code, r.json()["notice"]) == (200, "new_player")
        # Signing out here forgets this browser's secret.
        assert (await laptop.post("/api/me/signout")).status_code == 204
        assert (await laptop.get("/api/me/games")).json()["detail"]["code"] == "not_signed_in"


async def test_my_games_lists_first_the_tables_waiting_for_me(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as ann:
        await ann.get("/api/me")  # a first visit makes her player

        async def seated(timed: bool) -> Seat:
            seat = await join(ann, await create_table(ann, 3, timed=timed), "Ann")
            link = {"table_id": seat.table_id, "token": seat.token}
            assert (await ann.post("/api/me/seats", json=link)).status_code == 204
            return seat

        async def playing(timed: bool) -> Seat:
            # With two random bots, who bid at once: the game waits for Ann's bid.
            seat = await seated(timed)
            await add_bots(ann, seat, 2, "random")
            await start(ann, seat)
            return seat

        # A timed game, then an untimed one, both waiting for her; last, a table not started.
        timed, untimed, waiting = await playing(True), await playing(False), await seated(False)
        games = (await ann.get("/api/me/games")).json()
        order = [(g["table_id"], g["your_move"]) for g in games["current"]]
        # The one that times out first, then the untimed one, then the rest (the latest
        # change first would put the open table first).
        assert order == [
            (timed.table_id, True),
            (untimed.table_id, True),
            (waiting.table_id, False),
        ], order
        assert games["current"][0]["deadline"] is not None
        assert games["awaiting"] == 2
