"""A prompt the page patched from `delta` frames stays the same prompt when a later frame sends it
whole: its panel is not drawn again (the focus stays where the person put it), and an answer
sent stays sent until it is applied (the panel does not come back to be answered twice).

A delta that changes a prompt's keys (a bid prompt becoming a tie-break, and back) leaves them in
another order in the page than the whole prompt has; the page once took the two for different
prompts. The game is dealt from KEYBOARD_SEED (tests/deals.py): on the first card Kim and Tess
tie with one coin each."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import table_id_of
from tests.browser.helpers import Page, expect

pytestmark = pytest.mark.browser

NOTHING = {"type": "bid", "fairy_gold": 0, "common_gold": 0, "amulet": False, "black_magic": False}


def _join(server: Server, table_id: str, name: str) -> str:
    req = urllib.request.Request(
        f"{server.url}/api/tables/{table_id}/join",
        data=json.dumps({"name": name}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return str(json.loads(r.read())["token"])


def _act(ws: ClientConnection, action: dict[str, Any], action_id: str) -> int:
    """Send one action of this seat; the version its ack names."""
    ws.send(json.dumps({"type": "action", "action": action, "action_id": action_id}))
    while True:
        msg = json.loads(ws.recv(timeout=20))
        if msg.get("action_id") == action_id:
            assert msg["type"] == "ack", msg
            return int(msg["version"])


def _panel(page: Page) -> Any:
    return page.locator("#action-area > :first-child").element_handle()


@pytest.mark.game_seed(deals.KEYBOARD_SEED)
def test_a_prompt_patched_by_deltas_is_the_same_prompt_sent_whole(
    server: Server, new_page: NewPage
) -> None:
    kim = new_page("kim")
    kim.goto(server.url + "/")
    kim.get_by_label("Your name").fill("Kim")
    kim.get_by_role("button", name="Create the table").click()
    expect(kim.locator("#waiting-view")).to_be_visible()
    table_id = table_id_of(kim)
    tokens = [_join(server, table_id, name) for name in ("Tess", "Rex")]
    kim.get_by_role("button", name="Start the game").click()
    area = kim.locator("#action-area")
    expect(area).to_have_attribute("data-state", "bid")
    base = f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}?token="
    with connect(base + tokens[0]) as tess, connect(base + tokens[1]) as rex:
        # The Witch: one coin from Kim and from Tess, none from Rex: a tie-break between the two.
        _act(tess, {**NOTHING, "fairy_gold": 1}, "t1")
        _act(rex, NOTHING, "r1")
        kim.locator("#action-area [data-more=common_gold]").click()
        kim.locator("#action-area [data-submit-bid]").click()
        expect(area).to_have_attribute("data-state", "tiebreak")
        expect(area).to_have_attribute("data-version", "3")
        panel = _panel(kim)
        kim.locator("#action-area [data-more=silver]").focus()

        # Tess answers first: Kim's page gets her tie-break prompt whole, unchanged.
        _act(tess, {"type": "tiebreak", "silver": 0, "amulet": False}, "t2")
        expect(area).to_have_attribute("data-version", "4")
        assert panel.evaluate("el => el.isConnected"), "the tie-break panel was drawn again"
        expect(kim.locator("#action-area [data-more=silver]")).to_be_focused()

        # One Silver wins it; the next card's bid prompt is patched from the tie-break's.
        kim.locator("#action-area [data-more=silver]").click()
        kim.locator("#action-area [data-submit-tiebreak]").click()
        expect(area).to_have_attribute("data-state", "bid")
        expect(area).to_have_attribute("data-version", "5")
        panel = _panel(kim)
        _act(tess, NOTHING, "t3")
        expect(area).to_have_attribute("data-version", "6")
        assert panel.evaluate("el => el.isConnected"), "the bid panel was drawn again"

        # Kim bids; the last bid (Rex's) reveals, and Kim's prompt never comes back meanwhile.
        kim.locator("#action-area [data-bid-nothing]").click()
        expect(area).to_have_attribute("data-state", "idle")
        expect(area).to_have_attribute("data-version", "7")
        _act(rex, NOTHING, "r3")
        expect(area).to_have_attribute("data-version", "8")
        expect(area).to_have_attribute("data-state", "bid")  # the next card
