"""Web Push end to end: a real server, a real push service of the test's own on 127.0.0.1, and
browsers' subscriptions whose keys decrypt what arrives (`http_ece`). A player with no socket
open on the table gets one push per "your turn", naming the host's table; a player watching the
table gets none; a burst of turns within PUSH_EVERY_MINUTES makes one push; a push the service did
not take is tried again after the backoff; a hand-over to a stand-in is pushed too; a 410 removes
the subscription. The server's clock is moved, never waited for."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from app.table.push_send import make_keys
from tests import deals
from tests.ports import free_port
from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    advance,
    bearer,
    bot_strategy,
    db_rows,
    join,
    start,
    stop_tasks,
)
from tests.server.push_service import (
    Browser,
    Player,
    PushService,
    metric,
    read_forever,
    signed_in,
    until,
)
from tests.server.timed import move_clocks_while_waiting

EVERY = 10 * 60  # PUSH_EVERY_MINUTES=10, in seconds
RETRY = 30  # PUSH_RETRY_SECONDS


async def test_pushes_reach_a_player_away_from_the_table(
    database: Database, server_factory: Any
) -> None:
    async with PushService() as service:
        server: ServerProcess = server_factory(
            database,
            TEST_SEED=str(deals.FULL_GAME_SEED),
            TEST_CLOCK="0",
            PUSH_TEST_ENDPOINTS="true",
            PUSH_EVERY_MINUTES=str(EVERY // 60),
            PUSH_RETRY_SECONDS=str(RETRY),
        )
        await _play(server, service, database)


async def _play(server: ServerProcess, service: PushService, database: Database) -> None:
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as lobby:
        info = (await lobby.get("/api/push")).json()
        assert info["available"] and info["public_key"], info
        # No time limits: nothing moves the game but the players (and no stand-in on its own).
        r = await lobby.post(
            "/api/tables",
            json={"seats": 3, "turn_seconds": None, "choose_seconds": None, "grace_seconds": 60},
        )
        assert r.status_code == 201, r.text
        table_id = r.json()["id"]
    https: list[httpx.AsyncClient] = []
    try:
        await _at_the_table(server, service, database, table_id, info, https)
    finally:
        for http in https:
            await http.aclose()


async def _at_the_table(
    server: ServerProcess,
    service: PushService,
    database: Database,
    table_id: str,
    info: dict[str, Any],
    https: list[httpx.AsyncClient],
) -> None:
    browsers: dict[str, Browser] = {}
    seats = {}
    for name in ("Ann", "Bob", "Cid"):
        http, seats[name] = await signed_in(server, table_id, name)
        https.append(http)
        browsers[name] = service.browser(name)
        r = await http.post("/api/me/push", json=browsers[name].subscription())
        assert r.status_code == 204, r.text
    ann_http, _bob_http, cid_http = https
    # An endpoint that is not a push service is refused: a client does not choose where the
    # server posts.
    for endpoint in ("http://10.0.0.1/push", "https://internal.example/x", "ftp://127.0.0.1/x"):
        bad = {**browsers["Cid"].subscription(), "endpoint": endpoint}
        r = await cid_http.post("/api/me/push", json=bad)
        assert r.status_code == 400 and r.json()["detail"]["code"] == "invalid_request", (
            endpoint,
            r.text,
        )
    # Ann and Bob watch the table (a socket open); Cid has none.
    ann, bob = (
        Player(server.ws, table_id, seats[n].token, seats[n].seat, bot_strategy("heuristic", i))
        for i, n in enumerate(("Ann", "Bob"))
    )
    cid = Player(
        server.ws, table_id, seats["Cid"].token, seats["Cid"].seat, bot_strategy("heuristic", 2)
    )
    readers: list[asyncio.Task[None]] = []
    try:
        for client in (ann, bob):
            await client.connect()
            await client.arrived()  # shown at the table before the game starts
            readers.append(asyncio.create_task(read_forever(client)))
        await start(ann_http, seats["Ann"])

        async def metrics() -> str:
            return (await ann_http.get("/metrics")).text

        # 1. The game starts: everyone is asked to bid; only Cid, away, is pushed.
        await until(lambda: len(service.delivered("Cid")) == 1, "Cid's first push")
        push = browsers["Cid"].read(service.delivered("Cid")[0].body)
        assert push["kind"] == "your_turn" and push["table_id"] == table_id, push
        assert push["body"] == "Your turn at Ann's table" and push["host"] == "Ann", push
        assert push["url"] == f"/t/{table_id}"
        # Signed with the server's VAPID key.
        auth = service.delivered("Cid")[0].headers["Authorization"]
        assert auth.startswith("vapid ") and f"k={info['public_key']}" in auth, auth

        async def cid_takes_a_turn() -> None:
            """Cid comes, plays until the game waits for the others (paused), and leaves."""
            ann.paused = bob.paused = True
            cid.prompts, cid.version = [], None  # what its last visit saw is past
            await cid.connect()
            reader = asyncio.create_task(read_forever(cid))
            try:
                await until(
                    lambda: bool(cid.prompts) and cid.my_prompt() is None and cid.pending is None,
                    "Cid's turn played",
                )
            finally:
                await stop_tasks(reader)
                await cid.close()
            await until(
                lambda: (
                    ann.table is not None and not ann.table["players"][cid.seat or 0]["connected"]
                ),
                "Cid seen gone",
            )

        async def others_play_on() -> None:
            ann.paused = bob.paused = False
            await ann.maybe_act()
            await bob.maybe_act()
            await until(lambda: cid.seat in {p["seat"] for p in ann.prompts}, "Cid asked again")

        # 2. Cid's next turn, past the rate limit's window: one more push.
        await cid_takes_a_turn()
        await advance(ann_http, EVERY + 1)
        await others_play_on()
        await until(lambda: len(service.delivered("Cid")) == 2, "Cid's second push")
        assert browsers["Cid"].read(service.delivered("Cid")[1].body)["kind"] == "your_turn"

        # 3. Another turn within the window: no push (the rate limit holds).
        skipped = metric(await metrics(), 'dragonstones_push_skipped_total{why="rate_limited"}')
        await cid_takes_a_turn()
        await advance(ann_http, 60)
        await others_play_on()
        await _until_async(lambda: _rate_limited_more(metrics, skipped), "the rate limit counted")
        assert len(service.delivered("Cid")) == 2

        # 4. Past the window, the push service answers 503 once: tried again after the backoff.
        service.answers["Cid"] = [503]
        await cid_takes_a_turn()
        await advance(ann_http, EVERY + 1)
        await others_play_on()
        await until(lambda: len(service.requests["Cid"]) == 3, "the refused attempt")
        assert len(service.delivered("Cid")) == 2
        await advance(ann_http, RETRY + 1)
        await until(lambda: len(service.delivered("Cid")) == 3, "the retried push")
        text = await metrics()
        assert metric(text, 'dragonstones_push_failures_total{reason="http_503"}') == 1

        # 5. Ann hands the absent Cid's seat to a stand-in: Cid is told. (Ann and Bob wait, so
        # that the stand-in plays only Cid's open prompt.)
        ann.paused = bob.paused = True
        await advance(ann_http, EVERY + 1)
        r = await ann_http.post(
            f"/api/tables/{table_id}/seats/{cid.seat}/standin", headers=bearer(seats["Ann"])
        )
        assert r.status_code == 200, r.text
        await until(lambda: len(service.delivered("Cid")) == 4, "the stand-in's push")
        push = browsers["Cid"].read(service.delivered("Cid")[3].body)
        assert push["kind"] == "stand_in" and push["host"] == "Ann", push
        await until(lambda: cid.seat not in {p["seat"] for p in ann.prompts}, "the stand-in played")

        # Nobody watching the table was ever pushed.
        assert service.requests["Ann"] == [] and service.requests["Bob"] == []

        # 6. Cid takes the seat back (without opening the table), and the push service says
        # Cid's subscription is gone (410) at the next turn: it is removed.
        assert await _subscriptions(database, "Cid") == 1
        r = await cid_http.delete(
            f"/api/tables/{table_id}/seats/{cid.seat}/standin", headers=bearer(seats["Cid"])
        )
        assert r.status_code == 200, r.text
        service.answers["Cid"] = [410]
        await advance(ann_http, EVERY + 1)
        await others_play_on()
        await _until_async(lambda: _gone(metrics), "the 410 counted")
        assert len(service.requests["Cid"]) == 6 and len(service.delivered("Cid")) == 4
        assert await _subscriptions(database, "Cid") == 0
    finally:
        for task in readers:
            await stop_tasks(task)
        for client in (ann, bob, cid):
            await client.close()


async def _rate_limited_more(metrics: Callable[[], Any], before: float) -> bool:
    text = await metrics()
    return metric(text, 'dragonstones_push_skipped_total{why="rate_limited"}') > before


async def _gone(metrics: Callable[[], Any]) -> bool:
    return metric(await metrics(), 'dragonstones_push_failures_total{reason="gone"}') >= 1


async def _until_async(check: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    ends = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < ends, f"not reached within {timeout} s: {what}"
        await asyncio.sleep(0.05)


async def _subscriptions(database: Database, name: str) -> int:
    rows = await db_rows(
        database,
        "SELECT count(*) FROM push_subscriptions s JOIN seats t ON t.player_id = s.player_id "
        "WHERE t.name = :name",
        name=name,
    )
    return int(rows[0][0])


async def test_a_game_played_for_an_absent_player_ends_with_a_push_and_the_key_is_kept(
    database: Database, server_factory: Any
) -> None:
    """Cid starts a game against two bots and never opens the table: told it is their turn, then
    that a stand-in plays for them (after two time-outs), then that the game ended. Their other
    browser's push service cannot be reached (a server with no way out): counted, and the game
    plays on. The VAPID key pair made at the first start is the one after a restart."""
    async with PushService() as service:
        settings = {
            "TEST_SEED": str(deals.FULL_GAME_SEED),
            "TEST_CLOCK": "0",
            "PUSH_TEST_ENDPOINTS": "true",
            "PUSH_EVERY_MINUTES": "0",
            "PUSH_RETRIES": "0",
        }
        server: ServerProcess = server_factory(database, **settings)
        async with httpx.AsyncClient(base_url=server.http, timeout=20) as cid_http:
            key = (await cid_http.get("/api/push")).json()["public_key"]
            r = await cid_http.post("/api/tables", json={"seats": 3})  # the default limits
            assert r.status_code == 201, r.text
            table_id = r.json()["id"]
            assert (await cid_http.get("/api/me")).status_code == 200
            cid = await join(cid_http, table_id, "Cid")
            link = {"table_id": table_id, "token": cid.token}
            assert (await cid_http.post("/api/me/seats", json=link)).status_code == 204
            phone = service.browser("phone")
            # Nothing listens there: like a push service out of reach.
            laptop = Browser(f"http://127.0.0.1:{free_port()}/push/laptop")
            for browser in (phone, laptop):
                r = await cid_http.post("/api/me/push", json=browser.subscription())
                assert r.status_code == 204, r.text
            await add_bots(cid_http, cid, 2)
            watcher = SeatClient(server.ws, table_id, None, None)
            await watcher.connect()
            try:
                await start(cid_http, cid)
                watching = asyncio.create_task(watcher.play_until_over(180))
                moves = move_clocks_while_waiting(
                    watcher, lambda seat: seat == cid.seat, [cid_http], 61
                )
                await asyncio.gather(watching, moves)
            finally:
                await watcher.close()

            def kinds() -> list[str]:
                return [phone.read(r.body)["kind"] for r in service.delivered("phone")]

            await until(lambda: "ended" in kinds(), "the game's end pushed")
            assert kinds()[0] == "your_turn" and kinds().count("stand_in") == 1, kinds()
            assert kinds().count("ended") == 1
            ended = phone.read(service.delivered("phone")[-1].body)
            assert ended["body"] == "The game at Cid's table ended", ended
            text = (await cid_http.get("/metrics")).text
            assert metric(text, 'dragonstones_push_failures_total{reason="unreachable"}') >= 1
            assert metric(text, 'dragonstones_push_failures_total{reason="gave_up"}') >= 1
            assert metric(text, "dragonstones_push_sent_total") == len(kinds())

            # Signing out ends the alerts: everywhere, every browser's; here, this browser's.
            assert await _subscriptions(database, "Cid") == 2
            assert (await cid_http.post("/api/me/signout-everywhere")).status_code == 200
            assert await _subscriptions(database, "Cid") == 0
            for turn in range(2):  # turned on again; off (this browser's button); on again
                r = await cid_http.post("/api/me/push", json=phone.subscription())
                assert r.status_code == 204, r.text
                assert await _subscriptions(database, "Cid") == 1
                if turn == 0:
                    gone = {"endpoint": phone.endpoint}
                    r = await cid_http.request("DELETE", "/api/me/push", json=gone)
                    assert r.status_code == 204, r.text
                    assert await _subscriptions(database, "Cid") == 0
            assert (await cid_http.post("/api/me/signout")).status_code == 204
            assert await _subscriptions(database, "Cid") == 0
        server.stop()
        server.start()
        async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
            assert (await http.get("/api/push")).json()["public_key"] == key
        # A key pair of the operator's (PUSH_VAPID_PRIVATE_KEY) is the one used instead.
        own = make_keys()
        server.stop()
        server.settings["PUSH_VAPID_PRIVATE_KEY"] = own.private_key
        server.start()
        async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
            assert (await http.get("/api/push")).json()["public_key"] == own.public_key
