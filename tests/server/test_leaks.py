"""Capture every frame sent to every seat and spectator during whole games and check that none
carries another seat's coins behind the screen, a sealed bid before its reveal, the seed before
the game ends, or a token; through live updates, fresh connections and reconnections alike."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

import engine
from app.core.security import hash_token
from engine.state import Bid, TieBid
from tests.server.harness import (
    SeatClient,
    ServerProcess,
    add_bots,
    apply_changes,
    bot_strategy,
    create_table,
    join,
    replay_states,
    start,
)


def twin(state: Any, viewer: int | None) -> Any:
    """The same game, except for everything hidden from `viewer`: other seats' coins and sealed
    bids. A frame that tells the two worlds apart leaks."""
    other = state.clone()
    for player in other.players:
        if player.seat == viewer:
            continue
        player.fairy_gold += 7
        player.common_gold += 3
        player.silver += 5
        player.amulets += 1
        player.black_magic += 1
    for seat, bid in list(other.sealed.items()):
        if seat != viewer:
            other.sealed[seat] = Bid(
                bid.fairy_gold + 2, bid.common_gold + 1, not bid.amulet, not bid.black_magic
            )
    for seat, tiebid in list(other.sealed_tiebreak.items()):
        if seat != viewer:
            other.sealed_tiebreak[seat] = TieBid(tiebid.silver + 3, not tiebid.amulet)
    return other


def walk(node: Any, path: str = "") -> Any:
    if isinstance(node, dict):
        for key, value in node.items():
            yield f"{path}.{key}", key, value
            yield from walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}[{i}]")


def delta_as_state(held: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The state a delta makes of the one held; and each of its changes carries exactly what that
    state has at its place (so it carries nothing the state's own checks do not see)."""
    doc = apply_changes({"view": held["view"], "prompts": held["prompts"]}, delta["changes"])
    paths = [json.dumps(change[1]) for change in delta["changes"]]
    assert len(paths) == len(set(paths)), "a delta changes one place twice"
    for change in delta["changes"]:
        node = doc
        for key in change[1]:
            node = node[key] if change[0] != "d" or key != change[1][-1] else node
        if change[0] == "s":
            assert change[2] == node
        elif change[0] == "a":
            assert node[len(node) - len(change[2]) :] == change[2]
        else:
            assert change[1][-1] not in node
    return {
        **delta,
        "type": "state",
        "view": doc["view"],
        "prompts": doc["prompts"],
        "events_from": delta["base"],
    }


def check_frames(
    client: SeatClient,
    record: dict[str, Any],
    states: list[Any],
    raw_events: list[Any],
    tokens: list[str],
) -> int:
    viewer = client.seat
    seed = record["seed"]
    final = record["version"]
    checked = 0
    held: dict[str, Any] | None = None  # the last state of this connection, deltas applied
    for text in client.frames:
        for token in tokens:
            assert token not in text, "a frame carries a seat token"
        message = json.loads(text)
        if message["type"] == "hello":
            held = None
        if message["type"] == "delta":
            assert held is not None and message["base"] == held["version"], "a delta out of turn"
            message = delta_as_state(held, message)
        elif message["type"] != "state":
            assert seed not in text
            continue
        held = message
        version = message["version"]
        state = states[version]
        if version < final:
            assert seed not in text, f"the seed leaked at version {version}"
            assert message["view"]["seed"] is None
        # Exactly what the engine lets this viewer know, and nothing more...
        assert message["view"] == engine.view(state, viewer)
        assert message["prompts"] == engine.prompts(state, seat=viewer)
        by_version: dict[int, list[dict[str, Any]]] = {}
        for event in message["events"]:
            assert "private_to" not in event
            by_version.setdefault(event["version"], []).append(
                {k: v for k, v in event.items() if k != "version"}
            )
        for v in range(message["events_from"] + 1, version + 1):
            assert by_version.pop(v, []) == engine.visible_events(raw_events[v], viewer)
        assert by_version == {}
        # ...which is the same in a world where the hidden things differ.
        other = twin(state, viewer)
        assert engine.view(other, viewer) == message["view"]
        assert engine.prompts(other, seat=viewer) == message["prompts"]
        # And by plain structure: coins only in "me", only this viewer's; others' prompts bare.
        for path, key, _value in walk(message["view"]):
            if key == "coins":
                assert path == ".me.coins"
        if viewer is None:
            assert message["view"]["me"] is None
        else:
            assert message["view"]["me"]["seat"] == viewer
        for prompt in message["prompts"]:
            if prompt["seat"] != viewer:
                assert set(prompt) <= {"seat", "kind", "character"}
        checked += 1
    return checked


@pytest.mark.parametrize("deltas", [False, True], ids=["states", "deltas"])
async def test_no_frame_leaks_coins_sealed_bids_seed_or_tokens(
    shared_server: ServerProcess, deltas: bool
) -> None:
    """With every socket on whole `state` frames, and with every socket on `delta` frames."""
    server = shared_server
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        tables = []
        # A table of people only (every secret is someone's), and one with bots.
        for seats, bots in ((3, 0), (4, 2)):
            table_id = await create_table(http, seats)
            humans = [await join(http, table_id, f"L{seats}{i}") for i in range(seats - bots)]
            if bots:
                await add_bots(http, humans[0], bots, "random")
            tables.append((table_id, humans))
        tokens = [h.token for _, humans in tables for h in humans]

        clients: list[SeatClient] = []
        for table_id, humans in tables:
            for h in humans:
                strategy = bot_strategy("random", 7 + h.seat)
                clients.append(
                    SeatClient(server.ws, table_id, h.token, h.seat, strategy, deltas=deltas)
                )
            # a spectator from the start
            clients.append(SeatClient(server.ws, table_id, None, None, deltas=deltas))
        for client in clients:
            await client.connect()
        for _, humans in tables:
            await start(http, humans[0])

        late: list[SeatClient] = []
        late_watching: list[asyncio.Task[Any]] = []

        async def watch(spectator: SeatClient) -> None:
            # A spectator reads all the time, as a page does: one left unread while the game
            # goes on would be a slow reader, which the server gives up on.
            await spectator.wait_for(
                lambda m: m["type"] == "state" and m["view"]["winner"] is not None, 90
            )

        async def play(client: SeatClient) -> None:
            if client.seat is None:
                await watch(client)
                return
            # Each person drops out for a while once, then comes back with the last version seen.
            while client.version is None or client.version < 25:
                await client.recv()
                await client.maybe_act()
            await client.close()
            await asyncio.sleep(0.05)
            await client.connect(since=client.version)
            await client.resend_pending()
            # A spectator who arrives late gets the whole log so far, filtered for the public.
            spectator = SeatClient(server.ws, client.table_id, None, None, deltas=deltas)
            await spectator.connect()
            late.append(spectator)
            late_watching.append(asyncio.create_task(watch(spectator)))
            await client.play_until_over(90)

        await asyncio.gather(*(play(c) for c in clients))
        await asyncio.gather(*late_watching)
        for client in clients + late:
            await client.drain(0.2)

        # The public record is not published before the end; it is once the game is over.
        checked = 0
        for table_id, _ in tables:
            table = (await http.get(f"/api/tables/{table_id}")).json()
            assert table["status"] == "over"
            record = (await http.get(f"/api/games/{table['game_id']}")).json()
            states, raw_events = replay_states(record)
            assert engine.dumps(states[-1]) == engine.dumps(
                engine.replay(
                    record["seats"],
                    int(record["seed"]),
                    [(a["seat"], a["action"]) for a in record["actions"]],
                )
            )
            for client in clients + late:
                if client.table_id == table_id:
                    checked += check_frames(client, record, states, raw_events, tokens)
        assert checked > 300
        if deltas:  # most frames were deltas, and none had to be asked for again
            assert sum(f.startswith('{"type":"delta"') for c in clients for f in c.frames) > 200
            assert sum(c.syncs for c in clients + late) == 0
        print(f"{checked} frames on {len(clients + late)} sockets checked, 0 leaks")
        # Nor does the server's own log carry a token (sockets bring them in the query string).
        log = server.log()
        assert "token=<hidden>" in log
        assert not [token for token in tokens if token in log]
        for client in clients + late:
            await client.close()


async def test_game_record_and_table_hide_secrets_while_playing(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        people = [await join(http, table_id, name) for name in ("Xa", "Yo", "Zu")]
        table = await start(http, people[0])
        record = await http.get(f"/api/games/{table['game_id']}")
        assert record.status_code == 409
        assert record.json()["detail"]["code"] == "not_over"
        # Nor any document of the end: the replay, every screen, the analysis.
        for document in ("replay", "screens", "analysis"):
            answer = await http.get(f"/api/games/{table['game_id']}/{document}")
            assert answer.status_code == 409, document
            assert answer.json()["detail"]["code"] == "not_over"
        for answer in (await http.get(f"/api/tables/{table_id}"), await http.get("/api/tables")):
            for person in people:
                assert person.token not in answer.text


async def test_no_frame_or_answer_carries_a_players_secret_or_sign_in_link(
    shared_server: ServerProcess,
) -> None:
    """A signed-in player (two browsers, a sign-in link used and one open, a seat taken back on
    the second browser) plays with another person and a bot, watched by a spectator: nothing the
    other person, the spectator or anyone asking receives carries her secrets, her links or her
    seat's tokens, nor their hashes; nor does the server's log."""
    server = shared_server
    laptop = httpx.AsyncClient(base_url=server.http, timeout=20)
    phone = httpx.AsyncClient(base_url=server.http, timeout=20)
    other = httpx.AsyncClient(base_url=server.http, timeout=20)
    async with laptop, phone, other:
        ann = (await laptop.get("/api/me")).json()
        await laptop.patch("/api/me", json={"name": "Ann"})
        used = (await laptop.post("/api/me/claims")).json()["code"]
        assert (await phone.post("/api/claims", json={"code": used})).status_code == 200
        still_open = (await laptop.post("/api/me/claims")).json()["code"]
        await other.get("/api/me")
        table_id = await create_table(other, 3)
        bob = await join(other, table_id, "Bob")
        mine = await join(laptop, table_id, "Ann")
        link = {"table_id": table_id, "token": mine.token}
        assert (await laptop.post("/api/me/seats", json=link)).status_code == 204
        back = (await phone.post(f"/api/me/tables/{table_id}/seat")).json()
        await add_bots(other, bob, 1, "random")
        secrets = [
            str(laptop.cookies.get("ds_player")),
            str(phone.cookies.get("ds_player")),
            used,
            still_open,
            mine.token,
            back["token"],
        ]
        secrets += [hash_token(s) for s in secrets]

        players = [
            SeatClient(server.ws, table_id, bob.token, bob.seat, bot_strategy("random", 1)),
            SeatClient(
                server.ws,
                table_id,
                back["token"],
                back["seat"],
                bot_strategy("random", 2),
                deltas=True,
            ),
        ]
        spectator = SeatClient(server.ws, table_id, None, None, deltas=True)
        for client in (*players, spectator):
            await client.connect()
        table = await start(other, bob)
        await asyncio.gather(
            *(p.play_until_over(90) for p in players),
            spectator.wait_for(
                lambda m: m["type"] == "state" and m["view"]["winner"] is not None, 90
            ),
        )
        game = table["game_id"]
        answers = [
            await other.get(path)
            for path in (
                f"/api/tables/{table_id}",
                "/api/tables?status=playing",
                f"/api/games/{game}",
                f"/api/games/{game}/replay",
                f"/api/players/{ann['id']}",
                "/api/me/games",
                "/api/me",
            )
        ]
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        assert "Ann" in answers[4].text  # her public page: her name, no secret
        seen = [*players[0].frames, *spectator.frames, *(a.text for a in answers), server.log()]
        for text in seen:
            for secret in secrets:
                assert secret not in text
        for client in (*players, spectator):
            await client.close()
