"""The replay page of a finished game: every version as a spectator saw it, and the proof of the
shuffle checked by the browser itself."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import engine
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of
from tests.browser.helpers import Page, expect, start_with_bots

pytestmark = pytest.mark.browser

COINS = ["fairy_gold", "common_gold", "silver", "amulets"]
COLOURS = ["red", "blue", "yellow"]


def shown_table(page: Page) -> dict[str, Any]:
    """What the page shows of the public view: scores, stones, Fairy Gold spent, the bank."""
    shown: dict[str, Any] = page.evaluate("""() => {
      const n = (el) => Number(el.textContent);
      const stones = (root) => Object.fromEntries([...root.querySelectorAll('.stone-group')]
        .map((g) => [g.dataset.colour, n(g.querySelector('.count'))]));
      const players = [...document.querySelectorAll('#seats .seat')].map((s) => ({
        seat: Number(s.dataset.seat),
        score: Number(s.querySelector('.score-die').dataset.score),
        stones: stones(s.querySelector('.seat-row')),
        fairy_gold_spent: n(s.querySelector('.spent .count')),
      }));
      const bankRoot = document.querySelector('#bank-area .bank-grid');
      const bank = Object.fromEntries([...bankRoot.querySelectorAll('[data-coin]')]
        .map((c) => [c.dataset.coin, n(c.querySelector('.count'))]));
      bank.stones = stones(bankRoot);
      return {players, bank, turn: document.querySelector('#turn-area h3').textContent};
    }""")
    return shown


def expected_table(view: dict[str, Any]) -> dict[str, Any]:
    return {
        "players": [
            {k: p[k] for k in ("seat", "score", "stones", "fairy_gold_spent")}
            for p in view["players"]
        ],
        "bank": {**{k: view["bank"][k] for k in COINS}, "stones": view["bank"]["stones"]},
        "turn": f"Turn {view['turn']}",
    }


def test_the_replay_steps_through_a_finished_game_and_checks_the_shuffle(
    server: Server, new_page: NewPage
) -> None:
    page = new_page("alice")
    table_id = start_with_bots(page, server, "Alice")
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_to_the_end()
    expect(page.locator("#end-view .end-box")).to_be_visible(timeout=30_000)
    page.click("#replay-page-link")
    expect(page.locator("#replay-view")).to_be_visible()
    game_id = page.url.rsplit("/", 1)[1]
    record = json.loads(page.request.get(f"{server.url}/api/games/{game_id}").text())

    # Version 0 is the game as it started: the engine's own public view from the seed.
    expect(page.locator("#main")).to_have_attribute("data-version", "0")
    start, _ = engine.start(record["seats"], int(record["seed"]))
    assert shown_table(page) == expected_table(engine.view(start, None))
    expect(page.locator("#log li").first).to_contain_text("Turn 1")
    expect(page.locator("#prev-step")).to_be_disabled()
    # Its cards explain themselves as at the table (tests/browser/test_card_help.py).
    special = page.locator("#turn-area .specials .card[data-card-help]").first
    special.focus()
    expect(page.locator("#card-popover")).to_be_visible()
    expect(special).to_have_attribute("aria-describedby", "card-popover")
    page.keyboard.press("Escape")
    expect(page.locator("#card-popover")).to_be_hidden()
    page.locator("#log .card-ref").first.hover()
    expect(page.locator("#card-popover")).to_be_visible()
    page.mouse.move(1, 1)

    # One step on: the first recorded action, and the log grows with its events only.
    page.click("#next-step")
    expect(page.locator("#main")).to_have_attribute("data-version", "1")
    expect(page.locator("#version-label")).to_have_text(f"Move 1 of {len(record['actions'])}")

    # The last version is the record's final public view; the winner is named.
    page.click("#last-step")
    expect(page.locator("#main")).to_have_attribute("data-version", str(record["version"]))
    assert shown_table(page) == expected_table(record["final_view"])
    winner = record["players"][record["winner"]]["name"]
    expect(page.locator("#turn-indicator")).to_have_text(f"{winner} wins!")
    expect(page.locator(f".seat[data-seat='{record['winner']}']")).to_have_class(
        re.compile(r"\bwinner\b")
    )

    # The slider goes anywhere; the keyboard too.
    page.locator("#version-slider").fill("10")
    expect(page.locator("#main")).to_have_attribute("data-version", "10")
    page.locator("#version-slider").press("Home")
    expect(page.locator("#main")).to_have_attribute("data-version", "0")

    # The shuffle: the browser hashes the revealed seed and finds the commitment of the start.
    expect(page.locator("#commitment")).to_have_value(record["seed_commitment"])
    expect(page.locator("#seed-input")).to_have_value(record["seed"])
    status = page.locator("#proof-status")
    expect(status).to_have_attribute("data-verified", "yes")
    expect(status).to_contain_text("Shuffle verified")
    tampered = str(int(record["seed"]) + 1)
    page.fill("#seed-input", tampered)
    expect(status).to_have_attribute("data-verified", "no")
    expect(status).to_contain_text("does not match")
    page.fill("#seed-input", record["seed"])
    expect(status).to_have_attribute("data-verified", "yes")

    # Nothing private reached the page: no coins behind a screen, no prompt's limits or options.
    replay = json.loads(page.request.get(f"{server.url}/api/games/{game_id}/replay").text())
    assert len(replay["versions"]) == record["version"] + 1
    assert replay["final_state_matches"] is True
    for version in replay["versions"]:
        assert version["view"]["me"] is None
        for prompt in version["prompts"]:
            assert set(prompt) <= {"seat", "kind", "character"}, prompt
        for event in version["events"]:
            assert "private_to" not in event
    assert page.locator("[data-private]").count() == 0


def test_a_game_not_over_has_no_replay(server: Server, new_page: NewPage, console: Any) -> None:
    console.tolerated.append("status of 409")
    page = new_page("alice")
    table_id = start_with_bots(page, server, "Alice")
    game_id = json.loads(page.request.get(f"{server.url}/api/tables/{table_id}").text())["game_id"]
    answer = page.request.get(f"{server.url}/api/games/{game_id}/replay")
    assert answer.status == 409 and answer.json()["detail"]["code"] == "not_over"
    page.goto(f"{server.url}/replay/{game_id}")
    expect(page.locator("#notfound-view")).to_be_visible()
