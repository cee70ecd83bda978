"""The self-hosting promise, end to end: build the image from the repository, bring the compose
file up under its own project name, play a whole game with bots over HTTP and WebSocket against
the container, restart the app container in the middle (a person's action in flight), and check
that the game goes on with nothing lost; then `dragonstones db current` inside the container, and
everything down with its volumes. Needs Docker and docker-compose (skips without, fails under
CI=true); `bash ../shared/tools/docker-standins.sh` provides them here."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from app.cli import check_record
from tests.conftest import require_service
from tests.deploy.docker import IMAGE, Compose, build_image, docker_missing, image_size
from tests.server.harness import (
    SeatClient,
    add_bots,
    bot_strategy,
    create_table,
    free_port,
    join,
    start,
    wait_game_over,
)

# A cold build on a loaded 2-core machine takes minutes; a cached one, seconds.
pytestmark = [pytest.mark.docker, pytest.mark.timeout(1200)]

# The person's actions acknowledged before the restart; the next one is in flight during it.
ACKED_BEFORE_RESTART = 3


async def reconnect(client: SeatClient, timeout: float = 90.0) -> None:
    """Connect again with the last version seen, as the browser does, once the app answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            await client.connect(since=client.version)
            return
        except (OSError, websockets.exceptions.InvalidHandshake):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def test_compose_serves_and_keeps_a_game_across_an_app_restart() -> None:
    missing = docker_missing()
    require_service(missing is None, missing or "")
    began = time.monotonic()
    build_image()
    built = time.monotonic()
    port = free_port()
    compose = Compose(
        f"dstest{secrets.token_hex(4)}",
        {
            "DRAGONSTONES_IMAGE": IMAGE,
            "POSTGRES_PASSWORD": secrets.token_hex(16),
            "BIND_ADDRESS": "127.0.0.1",
            "PORT": str(port),
            "PUBLIC_URL": "",
            # Bots answer almost at once; a little pause keeps the scripted person, who answers
            # at machine speed, under the socket's message rate (20/s), as a person would be.
            "BOT_DELAY_SECONDS": "0.05",
        },
    )
    try:
        compose("up", "-d", "--no-build")
        compose.wait_healthy("db", "app")
        up = time.monotonic()
        await play_across_a_restart(compose, port)
        played = time.monotonic()
        current = compose("exec", "-T", "app", "dragonstones", "db", "current")
        assert "(head)" in current, current
    except BaseException:
        print(compose.logs())
        raise
    finally:
        compose.down()
    print(
        f"deploy: image {image_size() / 1e6:.0f} MB; build {built - began:.0f} s, up and healthy "
        f"{up - built:.0f} s, game with a restart {played - up:.0f} s, "
        f"total {time.monotonic() - began:.0f} s"
    )


async def play_across_a_restart(compose: Compose, port: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as http:
        # The wheel in the image carries the client.
        page = await http.get("/")
        assert page.status_code == 200 and "<html" in page.text.lower(), page.text[:200]
        assert (await http.get("/static/js/lobby.js")).status_code == 200

        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2)
        await start(http, ann)

        client = SeatClient(
            f"ws://127.0.0.1:{port}", table_id, ann.token, ann.seat, bot_strategy("heuristic", 7)
        )
        restarts: list[dict[str, Any]] = []
        reconnections = 0

        async def restart_app() -> None:
            await asyncio.to_thread(compose, "restart", "app")

        def restart_with_action_in_flight(
            c: SeatClient, _prompt: dict[str, Any], _action: dict[str, Any]
        ) -> Awaitable[None] | None:
            if restarts or len(c.acks) < ACKED_BEFORE_RESTART:
                return None
            restarts.append({"version": c.version, "acked": dict(c.acks)})
            return restart_app()

        client.before_send = restart_with_action_in_flight
        await client.connect()
        while True:
            try:
                await client.play_until_over(timeout=180)
                break
            except ConnectionClosed as exc:
                assert restarts, f"the socket closed with no restart: {exc!r}"
                # SIGTERM reached the server, which closed the socket as a service restart.
                assert exc.rcvd is not None and exc.rcvd.code == 1012, exc
                since = client.version
                reconnections += 1
                await reconnect(client)
                state = await client.wait_for(lambda m: m["type"] == "state")
                # The versions go on from where the person was: nothing went back.
                assert state["events_from"] == since and state["version"] >= since, state
                # An action that got no answer is sent again with the same action_id.
                await client.resend_pending()
        await client.close()

        assert len(restarts) == 1, "the game ended before the restart point"
        assert reconnections == 1
        table = await wait_game_over(http, table_id, timeout=30)
        record = (await http.get(f"/api/games/{table['game_id']}")).json()

    # Every version once, up to the one the person saw last.
    assert [a["version"] for a in record["actions"]] == list(range(1, record["version"] + 1))
    assert client.version == record["version"]
    # Every action the person sent was acknowledged once, and stands in the public record at its
    # acknowledged version; the person's seat acted at no other version.
    assert set(client.acks) == set(client.sent)
    assert restarts[0]["acked"].items() <= client.acks.items()
    by_version = {a["version"]: a for a in record["actions"]}
    for action_id, version in client.acks.items():
        assert by_version[version]["seat"] == ann.seat
        assert by_version[version]["action"] == client.sent[action_id]
    assert {a["version"] for a in record["actions"] if a["seat"] == ann.seat} == set(
        client.acks.values()
    )
    # The record replays with the engine to the stored final state and winner.
    ok, summary = check_record(record)
    assert ok, summary
