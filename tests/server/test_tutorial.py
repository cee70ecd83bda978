"""Learn to play deals every newcomer the same short game: the tutorial's fixed seed, in which a
newcomer who does what the hints say meets every kind of step (a sealed bid and its reveal, a
tie-break in Silver, a power to decide, stones scored) and wins, the easy bots playing it the
same way every time; the server deals it from POST /api/learn, with no TEST_SEED."""

from __future__ import annotations

from typing import Any

import httpx

import engine
from app.core import seeds
from app.lobby.tutorial import TUTORIAL_BOTS, TUTORIAL_SEATS, TUTORIAL_SEED
from tests.server.harness import SeatClient, ServerProcess, wait_game_over


def follow_the_hints(prompt: dict[str, Any]) -> dict[str, Any]:
    """What the hints tell a newcomer to do: one Fairy Gold a bid (while any is left), nothing
    in a tie-break, the first option of a power."""
    if prompt["kind"] == "bid":
        fairy = min(1, prompt["max"]["fairy_gold"])
        return {"type": "bid", "fairy_gold": fairy, "common_gold": 0, "amulet": False,
                "black_magic": False}  # fmt: skip
    if prompt["kind"] == "tiebreak":
        return {"type": "tiebreak", "silver": 0, "amulet": False}
    return {"type": "choose", "option": prompt["options"][0]["id"]}


def tutorial_game() -> tuple[list[str], set[str], list[tuple[int, dict[str, Any]]], int | None]:
    """The tutorial in the engine: the newcomer's prompts in order, the kinds of event, every
    action by seat, the winner."""
    bots = {
        seat: engine.bots.make_bot(TUTORIAL_BOTS, seeds.bot_seed(TUTORIAL_SEED, seat))
        for seat in range(1, TUTORIAL_SEATS)
    }
    state, events = engine.start(players=TUTORIAL_SEATS, seed=TUTORIAL_SEED)
    mine: list[str] = []
    actions: list[tuple[int, dict[str, Any]]] = []
    while state.winner is None:
        prompt = engine.prompts(state)[0]
        seat = prompt["seat"]
        if seat == 0:
            mine.append(prompt["kind"])
            action = follow_the_hints(prompt)
        else:
            action = dict(bots[seat].act(engine.view(state, seat), prompt))
        actions.append((seat, action))
        state, more = engine.apply(state, seat, action)
        events += more
    return mine, {str(e["type"]) for e in events}, actions, state.winner


def test_the_tutorial_deal_has_every_kind_of_step_and_is_short() -> None:
    mine, kinds, _, winner = tutorial_game()
    assert {"bid", "tiebreak", "choose"} <= set(mine)
    assert {"bids_revealed", "tiebreak_started", "score", "game_over"} <= kinds
    assert winner == 0  # the newcomer wins
    assert len(mine) <= 10  # a few minutes for a person


async def test_learn_deals_the_tutorial_and_its_bots_play_it_as_in_the_engine(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        r = await http.post("/api/learn", json={"name": "Newcomer"})
        assert r.status_code == 201, r.text
        seat = r.json()
        assert seat["seat"] == 0
        table = (await http.get(f"/api/tables/{seat['table_id']}")).json()
        assert table["status"] == "playing" and table["public"] is False, table
        assert table["turn_seconds"] is None and table["choose_seconds"] is None, table
        client = SeatClient(
            shared_server.ws,
            seat["table_id"],
            seat["token"],
            0,
            lambda _client, prompt: follow_the_hints(prompt),
        )
        await client.connect()
        try:
            await client.play_until_over(timeout=60)
        finally:
            await client.close()
        await wait_game_over(http, seat["table_id"])
        record = (await http.get(f"/api/games/{table['game_id']}")).json()
    assert record["seed"] == str(TUTORIAL_SEED)
    _, _, actions, winner = tutorial_game()
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for a in record["actions"]:
        by_seat.setdefault(a["seat"], []).append(a["action"])
    expected: dict[int, list[dict[str, Any]]] = {}
    for s, action in actions:
        expected.setdefault(s, []).append(action)
    assert by_seat == expected
    assert record["winner"] == winner
