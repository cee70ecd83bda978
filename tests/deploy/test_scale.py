"""Several replicas behind one address, end to end: docker-compose.scale.yml brings up
Postgres, the migrations, three app replicas and nginx; two people and a spectator connect through
nginx and land on three different replicas (each handshake names its replica in
`X-Dragonstones-Replica`); the replica holding a person's socket is killed (SIGKILL) in the middle
of the game; every client whose socket it held reconnects through nginx to another replica, and
the game ends with every acknowledged action in the public record. Needs Docker and
docker-compose (skips without, fails under CI=true); `bash ../shared/tools/docker-standins.sh`
provides them here, nginx included. Its own project name, image tag and 127.0.0.1 port."""

from __future__ import annotations

import asyncio
import json
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
from tests.deploy.docker import IMAGE, Compose, build_image, docker_missing, run
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

pytestmark = [pytest.mark.docker, pytest.mark.timeout(1800)]

REPLICAS = 3
HEADER = "x-dragonstones-replica"
# The person's actions acknowledged before the kill.
ACKED_BEFORE_KILL = 4


def replica_of(client: SeatClient) -> str:
    return str(client.ws.response.headers[HEADER])


async def connect_through(client: SeatClient, avoid: set[str], timeout: float = 120.0) -> str:
    """Connect (again) through nginx, with the last version seen, until the socket lands on a
    replica not in `avoid`; its name."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            await client.connect(since=client.version)
            replica = replica_of(client)
            if replica not in avoid:
                return replica
        except (OSError, websockets.exceptions.InvalidHandshake):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"no replica outside {avoid} took the socket in {timeout} s")
        await asyncio.sleep(0.3)


def healthy_replicas(compose: Compose) -> dict[str, str]:
    """Container id -> health, for every replica of the app service."""
    ids = compose("ps", "-q", "app").split()
    out: dict[str, str] = {}
    for cid in ids:
        state = json.loads(run(["docker", "inspect", "--format", "{{json .State}}", cid]).stdout)
        out[cid] = str(state.get("Health", {}).get("Status", state.get("Status")))
    return out


async def test_replicas_behind_nginx_keep_a_game_when_one_is_killed() -> None:
    missing = docker_missing()
    require_service(missing is None, missing or "")
    project = f"dsscale{secrets.token_hex(4)}"
    image = f"{IMAGE}-{project}"  # nobody else's build can replace it meanwhile
    began = time.monotonic()
    build_image(image)
    port = free_port()
    compose = Compose(
        project,
        {
            "DRAGONSTONES_IMAGE": image,
            "POSTGRES_PASSWORD": secrets.token_hex(16),
            "SECRET_KEY": secrets.token_hex(32),
            "BIND_ADDRESS": "127.0.0.1",
            "PORT": str(port),
            "PUBLIC_URL": f"http://127.0.0.1:{port}",
            "BOT_DELAY_SECONDS": "0.05",
            "DB_POOL_SIZE": "5",
        },
        file="docker-compose.scale.yml",
    )
    try:
        compose("up", "-d", "--no-build", "--scale", f"app={REPLICAS}", timeout=900)
        deadline = time.monotonic() + 300
        while not (
            len(states := healthy_replicas(compose)) == REPLICAS
            and set(states.values()) == {"healthy"}
        ):
            assert time.monotonic() < deadline, f"replicas not healthy: {states}\n{compose.logs()}"
            await asyncio.sleep(2)
        up = time.monotonic()
        await play_across_a_killed_replica(compose, port)
        played = time.monotonic()
    except BaseException:
        print(compose.logs())
        raise
    finally:
        compose.down()
        run(["docker", "rmi", image], timeout=120)
    print(f"scale: {REPLICAS} replicas up {up - began:.0f} s, game with a kill {played - up:.0f} s")


async def play_across_a_killed_replica(compose: Compose, port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        # nginx reaches every replica in turn: their names, from the header.
        seen: set[str] = set()
        for _ in range(30):
            r = await http.get("/healthz")
            assert r.status_code == 200
            seen.add(r.headers[HEADER])
        assert len(seen) == REPLICAS, seen
        table_id = await create_table(http, 3)
        table = (await http.get(f"/api/tables/{table_id}")).json()
        assert table["invite_url"] == f"{base}/t/{table_id}"  # PUBLIC_URL reached the replicas
        ann = await join(http, table_id, "Ann")
        bob = await join(http, table_id, "Bob")
        await add_bots(http, ann, 1)
        await start(http, ann)

        ws_base = f"ws://127.0.0.1:{port}"
        people = [
            SeatClient(ws_base, table_id, s.token, s.seat, bot_strategy("heuristic", 7 + s.seat))
            for s in (ann, bob)
        ]
        watcher = SeatClient(ws_base, table_id, None, None)
        clients = [*people, watcher]
        # Each on a replica of its own (nginx picks in turn; connect again until it differs).
        taken: set[str] = set()
        for client in clients:
            taken.add(await connect_through(client, avoid=taken))
        assert len(taken) == 3

        killed: dict[str, Any] = {}
        reconnected: dict[int, str] = {}

        def kill_anns_replica(
            c: SeatClient, _prompt: dict[str, Any], _action: dict[str, Any]
        ) -> Awaitable[object] | None:
            if killed or len(c.acks) < ACKED_BEFORE_KILL:
                return None
            killed.update(replica=replica_of(c), version=c.version, acked=dict(c.acks))
            return asyncio.to_thread(run, ["docker", "kill", killed["replica"]], 60)

        people[0].before_send = kill_anns_replica

        async def play(client: SeatClient, index: int) -> None:
            while True:
                try:
                    await client.play_until_over(timeout=400)
                    return
                except ConnectionClosed:
                    assert killed, f"client {index}'s socket closed with no replica killed"
                    since = client.version
                    reconnected[index] = await connect_through(client, avoid={killed["replica"]})
                    state = await client.wait_for(lambda m: m["type"] == "state", timeout=60)
                    assert state["events_from"] == since and state["version"] >= since, state
                    await client.resend_pending()

        await asyncio.gather(*(play(c, i) for i, c in enumerate(clients)))
        for client in clients:
            await client.close()
        assert killed, "the game ended before the kill"
        assert 0 in reconnected, "Ann's socket did not move"
        # Every client that was on the killed replica is back, on another one.
        assert all(r != killed["replica"] for r in reconnected.values()), reconnected
        table = await wait_game_over(http, table_id, timeout=60)
        record = (await http.get(f"/api/games/{table['game_id']}")).json()

    assert [a["version"] for a in record["actions"]] == list(range(1, record["version"] + 1))
    by_version = {a["version"]: a for a in record["actions"]}
    for person in people:
        assert person.version == record["version"]
        # Every action the person sent was acknowledged, and stands in the record at its
        # acknowledged version; the seat acted at no other version.
        assert set(person.acks) == set(person.sent)
        for action_id, version in person.acks.items():
            assert by_version[version]["seat"] == person.seat
            assert by_version[version]["action"] == person.sent[action_id]
        assert {a["version"] for a in record["actions"] if a["seat"] == person.seat} == set(
            person.acks.values()
        )
    assert killed["acked"].items() <= people[0].acks.items()
    assert watcher.version == record["version"] and watcher.over
    ok, summary = check_record(record)
    assert ok, summary
