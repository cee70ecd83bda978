"""Delta frames (`?deltas=1`): a socket that asked for them gets, after its first `state`, only
what changed; a delta it misses is made good by asking for the whole state (`sync`); a socket
that did not ask gets whole `state` frames as before, at the same table."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import orjson

import engine
from app.table.changes import changes
from tests.server.harness import (
    SeatClient,
    ServerProcess,
    add_bots,
    answer_to,
    apply_changes,
    bot_strategy,
    check_action_log,
    check_gap_free,
    create_table,
    join,
    start,
)

SHARED_SERVER_SETTINGS = {"TEST_SEED": "1"}


def _kinds(client: SeatClient) -> list[str]:
    return [json.loads(f)["type"] for f in client.frames]


async def test_a_dropped_delta_is_made_good_by_the_whole_state(
    shared_server: ServerProcess,
) -> None:
    """Three people (one on deltas who loses one, one on deltas, one on whole states) play a
    game watched by a spectator on deltas: every socket's log is gap-free and every view
    the engine's, the dropped delta is asked for again once, the others never."""
    server = shared_server
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann, bob, cy = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cy")]
        table = await start(http, ann, seed=11)
        a = SeatClient(
            server.ws, table_id, ann.token, ann.seat, bot_strategy("random", 1), deltas=True
        )
        b = SeatClient(
            server.ws, table_id, bob.token, bob.seat, bot_strategy("random", 2), deltas=True
        )
        c = SeatClient(
            server.ws, table_id, cy.token, cy.seat, bot_strategy("random", 3), deltas=False
        )
        watcher = SeatClient(server.ws, table_id, None, None, deltas=True)
        people = [a, b, c]
        for client in (*people, watcher):
            await client.connect()
            await client.wait_for(lambda m: m["type"] == "state")

        # The bids are sealed and open at once: Bob and Cy bid before Ann reads on. The first
        # delta that reaches her is lost; the next does not follow the version she holds.
        held = a.version
        assert held is not None
        a.drop_deltas = 1
        for person in (b, c):
            prompt = person.my_prompt()
            assert prompt is not None and person.strategy is not None
            action_id = await person.send_action(person.strategy(person, prompt))
            await person.wait_for(answer_to(action_id))
        refused = await a.wait_for(lambda m: m["type"] == "delta_refused")
        assert a.drop_deltas == 0 and a.syncs == 1 and a.version == held
        assert refused["base"] == held + 1
        # She asked with the version she holds: the whole state, with every event since.
        whole = await a.wait_for(lambda m: m["type"] == "state")
        assert not whole.get("delta") and not whole["resync"]
        assert whole["events_from"] == held and whole["version"] >= refused["version"]

        await asyncio.gather(
            *(p.play_until_over(120) for p in people),
            watcher.wait_for(lambda m: m["type"] == "state" and m["view"]["winner"] is not None),
        )
        for client in (*people, watcher):
            await client.drain(0.2)

        states, raw_events = await check_action_log(server.db, table["game_id"], people)
        last = len(states) - 1
        for client in (*people, watcher):
            assert check_gap_free(client, states, raw_events) == last
            assert client.view == engine.view(states[last], client.seat)

        # Only Ann had to ask, once; Cy, who did not ask for deltas, got none.
        assert (a.syncs, b.syncs, watcher.syncs) == (1, 0, 0)
        assert "delta" not in _kinds(c)
        for client in (a, b, watcher):
            assert _kinds(client).count("delta") > 0
        # A delta costs a fraction of a state: the same versions, fewer bytes.
        b_bytes = sum(len(f) for f in b.frames if f.startswith('{"type":"delta"'))
        b_deltas = _kinds(b).count("delta")
        c_bytes = sum(len(f) for f in c.frames if f.startswith('{"type":"state"'))
        assert b_bytes / b_deltas < c_bytes / _kinds(c).count("state") / 2
        for client in (*people, watcher):
            await client.close()


async def test_sync_asks_for_the_whole_state_and_is_checked(
    shared_server: ServerProcess,
) -> None:
    """`sync` answers the whole state with the events after `since` (from the start without it),
    on a socket with or without deltas; a bad `since` is an `invalid_message`."""
    server = shared_server
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "random")
        await start(http, ann, seed=5)
        for deltas in (True, False):
            a = SeatClient(server.ws, table_id, ann.token, ann.seat, deltas=deltas)
            await a.connect()
            first = await a.wait_for(lambda m: m["type"] == "state")
            await a.send_json({"type": "sync", "since": 0})
            again = await a.wait_for(lambda m: m["type"] == "state")
            assert (again["version"], again["events_from"]) == (first["version"], 0)
            assert again["view"] == first["view"] and not again["resync"]
            await a.send_json({"type": "sync"})
            whole = await a.wait_for(lambda m: m["type"] == "state")
            assert whole["events_from"] == -1 and whole["events"][0]["version"] == 0
            for bad in ("3", -2, 1.5, True):
                await a.send_json({"type": "sync", "since": bad})
                error = await a.wait_for(lambda m: m["type"] == "error")
                assert error["code"] == "invalid_message", error
            await a.close()


def test_changes_applied_give_the_next_view_and_prompts_exactly() -> None:
    """Over whole random games of 3 to 6 seats, for every seat and a spectator, the changes
    from each version's view and prompts to the next, applied as the protocol says (the
    harness's own reading, not the server's), give exactly the next ones; and they weigh a
    fraction of them."""
    rng = random.Random(5)
    sizes = [0, 0]  # the changes, the documents
    for game in range(4):
        players = 3 + game
        state, _ = engine.start(players=players, seed=game)
        viewers: list[int | None] = [None, *range(players)]
        held = {v: _doc(state, v) for v in viewers}
        while not engine.is_over(state):
            seat = engine.prompts(state)[0]["seat"]
            state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
            for v in viewers:
                doc = _doc(state, v)
                found = changes(held[v], doc)
                assert apply_changes(held[v], found) == doc
                sizes[0] += len(json.dumps(found))
                sizes[1] += len(json.dumps(doc))
                held[v] = doc
    assert sizes[0] < sizes[1] / 4, sizes
    assert changes({"a": [1, 2], "b": {"c": 1}}, {"a": [1, 2], "b": {"c": 1}}) == []
    assert changes({"a": [1, 2], "b": 1}, {"a": [1, 3, 4], "c": None}) == [
        ["s", ["a", 1], 3],
        ["a", ["a"], [4]],
        ["s", ["c"], None],
        ["d", ["b"]],
    ]
    assert changes({"a": [1, 2]}, {"a": [2]}) == [["s", ["a"], [2]]]


def _doc(state: engine.State, viewer: int | None) -> dict[str, Any]:
    return {"view": engine.view(state, viewer), "prompts": engine.prompts(state, seat=viewer)}


def test_the_frames_are_their_messages_field_for_field() -> None:
    """The room writes `state` and `delta` frames as plain dicts (app.table.live_game): their
    keys are StateOut's and DeltaOut's fields in order, and the models read them back to the
    same data; each seat's view is engine.view's, and a delta leads from one to the next."""
    from app.core.messages import DeltaOut, StateOut
    from app.table.live_game import LiveGame, delta_frame, state_frame

    rng = random.Random(3)
    state, opening = engine.start(players=4, seed=3)
    game = LiveGame("g", "t", 4, state, 0, False, [opening], {}, turn_seconds=45)
    held = {seat: json.loads(state_frame(game, seat, None, 100, keep=True)) for seat in range(4)}
    for version in range(1, 30):
        seat = engine.prompts(game.state)[0]["seat"]
        action = rng.choice(engine.legal_actions(game.state, seat))
        game.state, events = engine.apply(game.state, seat, action)
        game.version, game.over = version, engine.is_over(game.state)
        game.events.append(events)
        for viewer in range(4):
            raw = state_frame(game, viewer, version - 1, 100)
            # The view's JSON is spliced from the public part, encoded once per version, and
            # the seat's own "me" (app.table.live_game): the very text of engine.view's.
            assert f'"view":{orjson.dumps(engine.view(game.state, viewer)).decode()},' in raw
            frame = json.loads(raw)
            assert list(frame) == list(StateOut.model_fields)
            assert StateOut.model_validate(frame).model_dump(mode="json") == frame
            assert frame["view"] == engine.view(game.state, viewer)
            delta = delta_frame(game, viewer)
            assert delta is not None
            parsed = json.loads(delta)
            assert list(parsed) == list(DeltaOut.model_fields)
            assert DeltaOut.model_validate(parsed).model_dump(mode="json") == parsed
            doc = {"view": held[viewer]["view"], "prompts": held[viewer]["prompts"]}
            assert apply_changes(doc, parsed["changes"]) == {
                "view": frame["view"],
                "prompts": frame["prompts"],
            }
            held[viewer] = frame
        if game.over:
            break
