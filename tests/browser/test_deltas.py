"""The page takes `delta` frames: a whole game played in the browser against two bots, one delta
lost on its way to the page (the test stands between the page and the server); the page asks for
the whole state once, plays on, and ends showing what the game's record says."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import expect, start_with_bots
from tests.server.harness import replay_states

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOST = 5  # from the fifth delta on, the first that is safe to lose never reaches the page


def test_a_game_on_deltas_survives_a_lost_one(server: Server, new_page: NewPage) -> None:
    page = new_page("ann")
    to_page: list[dict[str, Any]] = []  # what the server sent, the lost delta included
    to_server: list[dict[str, Any]] = []
    lost: list[dict[str, Any]] = []
    bids = [0]  # the bids submitted in the auction under way, as the server told them

    def between(ws: Any) -> None:
        upstream = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            m = json.loads(message)
            to_page.append(m)
            for event in m.get("events", []):
                if event["type"] == "auction_started":
                    bids[0] = 0
                bids[0] += event["type"] == "bid_submitted"
            # A version with the first bid of an auction, and nothing else: others still have
            # to bid, so a version follows whatever the page knows (it could not answer a
            # prompt it never saw).
            first_bid = [e["type"] for e in m.get("events", [])] == ["bid_submitted"]
            seen = sum(x["type"] == "delta" for x in to_page)
            if m["type"] == "delta" and first_bid and bids[0] == 1 and not lost and seen >= LOST:
                lost.append(m)
                return
            ws.send(message)

        def up(message: str | bytes) -> None:
            to_server.append(json.loads(message))
            upstream.send(message)

        upstream.on_message(down)
        ws.on_message(up)

    page.route_web_socket("**/ws/tables/**", between)
    table_id = start_with_bots(page, server, "Ann")

    deadline = time.monotonic() + 240
    while not page.locator("#end-view").is_visible():
        assert time.monotonic() < deadline, "the game did not end in time"
        state = page.get_attribute("#action-area", "data-state") or ""
        if state == "bid":
            page.click("#action-area [data-bid-nothing]")
        elif state == "tiebreak":
            page.click("#action-area [data-submit-tiebreak]")
        elif state == "choose":
            page.click("#action-area [data-option-id] >> nth=0")
        else:
            page.wait_for_timeout(40)
            continue
        page.wait_for_function(
            "() => document.querySelector('#action-area').dataset.state !== 'pending'"
        )

    # Every socket of the page asked for deltas, and nearly every frame after the first was one.
    kinds = [m["type"] for m in to_page]
    assert kinds.count("delta") > 20 and kinds.count("state") <= 3, kinds
    # The lost one: the next did not follow, so the page asked once for the whole state, with
    # the version it held.
    assert len(lost) == 1
    syncs = [m for m in to_server if m["type"] == "sync"]
    assert syncs == [{"type": "sync", "since": lost[0]["base"]}]
    after = to_page[to_page.index(lost[0]) + 1 :]
    whole = next(m for m in after if m["type"] == "state")
    assert whole["events_from"] == lost[0]["base"] and not whole["resync"]

    # The page shows the end the record has: the winner and every seat's score.
    table = page.request.get(f"{server.url}/api/tables/{table_id}").json()
    record = page.request.get(f"{server.url}/api/games/{table['game_id']}").json()
    final = replay_states(record)[0][-1]
    winner = page.get_attribute("#end-view .winner-name", "data-winner")
    assert winner == str(record["winner"])
    for player in final.players:
        die = page.locator(f".seat[data-seat='{player.seat}'] .score-die")
        expect(die).to_have_attribute("data-score", str(player.score))
