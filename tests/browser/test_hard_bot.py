"""The hard bot from the waiting room: the host picks "hard" beside "Add a bot", the seat
says so, and she plays a whole game against it in the page, to the end."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import create_table, expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WANTED = {
    "magician",
    "wizard",
    "sorcerer",
    "enchantress",
    "sorcerers_apprentice",
    "quack_wizard",
    "red_dragon",
    "blue_dragon",
    "yellow_dragon",
    "ancient_dragon",
    "necromancer",
}


# A small budget per decision, so that the game is quick (the default is 0.3 s).
@pytest.mark.server_env(HARD_BOT_SECONDS="0.02")
def test_the_host_adds_a_hard_bot_and_plays_a_game_against_it(
    server: Server, new_page: NewPage
) -> None:
    page = new_page("alice")
    create_table(page, server, "Alice")
    kinds = page.locator("#bot-kind option")
    expect(kinds).to_have_text(["easy", "normal", "hard"])
    expect(page.locator("#bot-kind")).to_have_value("heuristic")  # normal unless chosen
    page.select_option("#bot-kind", "hard")
    page.get_by_role("button", name="Add a bot").click()
    expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    expect(page.locator("#waiting-seats li").nth(1).locator(".bot-kind")).to_have_text("hard")
    page.select_option("#bot-kind", "heuristic")
    page.get_by_role("button", name="Add a bot").click()
    expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    expect(page.locator("#waiting-seats li").nth(2).locator(".bot-kind")).to_have_text("normal")
    expect(page.locator("#bot-kind")).to_be_disabled()  # the table is full
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#game-view")).to_be_visible()

    decisions = 0
    deadline = time.monotonic() + 300
    while not page.locator("#end-view").is_visible():
        assert time.monotonic() < deadline, f"the game did not end in time ({decisions} moves)"
        state = page.get_attribute("#action-area", "data-state") or ""
        if state == "bid":
            character = page.get_attribute("#action-area [data-prompt=bid]", "data-character") or ""
            most = int(page.get_attribute("#action-area [data-stepper=fairy_gold]", "max") or 0)
            if character in WANTED and most:
                page.click("#action-area [data-more=fairy_gold]")
                page.click("#action-area [data-submit-bid]")
            else:
                page.click("#action-area [data-bid-nothing]")
        elif state == "tiebreak":
            page.click("#action-area [data-submit-tiebreak]")
        elif state == "choose":
            ids = page.eval_on_selector_all(
                "#action-area [data-option-id]", "els => els.map(e => e.dataset.optionId)"
            )
            choice = "pay" if "pay" in ids else "use" if "use" in ids else ids[0]
            page.click(f"#action-area [data-option-id='{choice}']")
        else:
            page.wait_for_timeout(50)
            continue
        decisions += 1
        page.wait_for_function(
            "() => document.querySelector('#action-area').dataset.state !== 'pending'"
        )
    expect(page.locator("#end-view .winner-name")).to_be_visible()
    assert decisions > 5
    log = server.log_path.read_text()
    assert "failed to decide" not in log and "Traceback" not in log


def test_the_bot_levels_read_in_french(server: Server, new_page: NewPage) -> None:
    page = new_page("claire", locale="fr-FR")
    page.goto(server.url + "/")
    page.fill("#player-name", "Claire")
    page.click("#create-button")
    expect(page.locator("#waiting-view")).to_be_visible()
    expect(page.locator("#bot-kind option")).to_have_text(["facile", "normal", "difficile"])
    expect(page.locator("#bot-kind")).to_have_attribute("aria-label", "Niveau du robot")


def test_the_host_chooses_the_hard_bot_for_stand_ins(server: Server, new_page: NewPage) -> None:
    page = new_page("alice")
    create_table(page, server, "Alice")
    table_id = page.url.split("/t/", 1)[1].split("?", 1)[0]

    def stand_in_kind() -> object:
        with urllib.request.urlopen(f"{server.url}/api/tables/{table_id}") as r:
            return json.load(r)["stand_in_kind"]

    assert stand_in_kind() is None  # the normal bot unless the host chooses
    page.locator("#table-settings summary").click()
    expect(page.locator("#settings-stand-in")).to_have_value("heuristic")
    page.select_option("#settings-stand-in", "hard")
    page.get_by_role("button", name="Save the settings").click()
    expect(page.locator("#table-settings")).not_to_have_attribute("open", "")
    deadline = time.monotonic() + 10
    while stand_in_kind() != "hard":
        assert time.monotonic() < deadline, stand_in_kind()
        time.sleep(0.1)
