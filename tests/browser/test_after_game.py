"""After the game, on the replay page: every screen opened, the graph of the players' chances and
the labelled decisions, in English and in French; while the game is played the same data are
refused."""

from __future__ import annotations

import contextlib
import json

import pytest

import engine
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of
from tests.browser.helpers import start_with_bots

# Without Playwright the browser fixture skips with the reason.
with contextlib.suppress(ImportError):
    from playwright.sync_api import expect

pytestmark = pytest.mark.browser

COINS = ["fairy_gold", "common_gold", "silver", "amulets", "black_magic"]


@pytest.mark.game_seed(5)
# A small budget, at the server's priority: the analysis of the whole game takes seconds.
@pytest.mark.server_env(ANALYSIS_WORLDS="2", ANALYSIS_NICE="0")
def test_the_replay_opens_every_screen_and_shows_the_analysis(
    server: Server, new_page: NewPage
) -> None:
    page = new_page("alice")
    table_id = start_with_bots(page, server, "Alice")
    game_id = json.loads(page.request.get(f"{server.url}/api/tables/{table_id}").text())["game_id"]
    for path in ("screens", "analysis"):
        live = page.request.get(f"{server.url}/api/games/{game_id}/{path}")
        assert live.status == 409 and live.json()["detail"]["code"] == "not_over", path
    # Alice's moves are the smallest (no bid, the first option): decisions to label.
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_to_the_end()
    expect(page.locator("#end-view .end-box")).to_be_visible(timeout=30_000)
    page.click("#replay-page-link")
    expect(page.locator("#replay-view")).to_be_visible()
    record = json.loads(page.request.get(f"{server.url}/api/games/{game_id}").text())

    # Every screen, at the step shown: each player's coins as that player's own view had them.
    state, _ = engine.start(record["seats"], int(record["seed"]))
    first = record["actions"][0]
    state, _ = engine.apply(state, first["seat"], first["action"])
    page.click("#next-step")
    expect(page.locator("#main")).to_have_attribute("data-version", "1")
    rows = page.locator("#screens-table tbody tr")
    expect(rows).to_have_count(record["seats"])
    for seat in range(record["seats"]):
        coins = engine.view(state, seat)["me"]["coins"]
        row = page.locator(f"#screens-table tbody tr[data-seat='{seat}']")
        for coin in COINS:
            expect(row.locator(f"td[data-coin='{coin}']")).to_have_text(str(coins[coin]))
    # The first bid is sealed at version 1: its screen shows it.
    sealed = page.locator(f"#screens-table tbody tr[data-seat='{first['seat']}'] td.sealed")
    expect(sealed).to_contain_text("bid")

    # The analysis fills in, then the graph has one line per player and the labels are listed.
    area = page.locator("#analysis-area")
    expect(area).to_have_attribute("data-complete", "yes", timeout=120_000)
    analysis = json.loads(page.request.get(f"{server.url}/api/games/{game_id}/analysis").text())
    labelled = [
        d for d in analysis["decisions"] if d["label"] in ("inaccuracy", "mistake", "blunder")
    ]
    assert labelled, "the smallest moves make no labelled decision"
    expect(page.locator("svg.an-graph polyline")).to_have_count(record["seats"])
    expect(page.locator("#analysis-summary tbody tr")).to_have_count(record["seats"])
    items = page.locator("#analysis-labels li[data-label]")
    expect(items).to_have_count(len(labelled))
    d = labelled[0]
    words = {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}
    expect(items.first).to_contain_text(words[d["label"]])
    expect(items.first).to_contain_text(f"{d['chance'] * 100:.1f}%")
    expect(page.locator("#analysis-status")).to_contain_text(f"{analysis['total']} decisions")
    # A labelled decision takes the replay to the moment it was made.
    items.first.get_by_role("button").click()
    expect(page.locator("#main")).to_have_attribute("data-version", str(d["index"] + 1))

    # In French.
    page.get_by_role("button", name="Français").click()
    expect(page.locator("#screens-title")).to_have_text("Tous les paravents")
    expect(page.locator("#analysis-title")).to_have_text("Analyse")
    mots = {"inaccuracy": "Imprécision", "mistake": "Erreur", "blunder": "Gaffe"}
    expect(items.first).to_contain_text(mots[d["label"]])
    expect(page.locator("#analysis-status")).to_contain_text("décisions analysées")
