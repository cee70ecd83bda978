"""Timers and absent players in the browser: the lobby offers a time for power decisions; a power decision counts
down and, left alone, times out with a line in the log; an absent player's seat is handed to a bot
with one click, and the player, back on the page, takes it back."""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver
from tests.browser.helpers import expect

pytestmark = pytest.mark.browser


def _api_table(server: Server, **settings: Any) -> str:
    r = httpx.post(f"{server.url}/api/tables", json={"seats": 3, **settings}, timeout=10)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _api_join(server: Server, table_id: str, name: str) -> dict[str, Any]:
    r = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": name}, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _join_in_page(page: Any, server: Server, table_id: str, name: str) -> None:
    page.goto(f"{server.url}/t/{table_id}")
    page.fill("#join-name", name)
    page.click("#join-button")
    expect(page.locator("#waiting-view")).to_be_visible()


class Background:
    """Seats played over sockets in threads (bidding nothing, taking the first option)."""

    def __init__(self) -> None:
        self.drivers: list[SeatDriver] = []
        self.threads: list[threading.Thread] = []

    def play(self, server: Server, table_id: str, token: str) -> None:
        driver = SeatDriver(server, table_id, token)
        self.drivers.append(driver)

        def run() -> None:
            with contextlib.suppress(Exception):  # the socket is closed at the end of the test
                driver.play_to_the_end(timeout=300)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        for driver in self.drivers:
            with contextlib.suppress(Exception):
                driver.ws.close()
        for thread in self.threads:
            thread.join(timeout=10)


@pytest.mark.game_seed(deals.ABSENT_SEED)
def test_a_power_decision_counts_down_and_times_out_with_a_line_in_the_log(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    alice = new_page("alice")
    # The lobby offers a time for power decisions beside the time to bid.
    alice.goto(server.url + "/")
    alice.get_by_label("Your name").fill("Alice")
    alice.get_by_label("Time for powers").select_option("30")
    alice.get_by_role("button", name="Create the table").click()
    expect(alice.locator("#timer-hint")).to_contain_text("Time for a power decision: 30 s")
    # The host changes it in the table's settings.
    alice.locator("#table-settings summary").click()
    expect(alice.locator("#settings-choose-timer")).to_have_value("30")
    alice.locator("#settings-choose-timer").select_option("60")
    alice.click("#settings-save")
    expect(alice.locator("#timer-hint")).to_contain_text("Time for a power decision: 1 min")

    # The table of the test: 4 s for a power decision (short, for the test), set over the API;
    # bids untimed (45 s is the default: said explicitly here).
    table_id = _api_table(server, turn_seconds=None, choose_seconds=4)
    _join_in_page(alice, server, table_id, "Alice")
    others = Background()
    tokens = [_api_join(server, table_id, name)["token"] for name in ("Bob", "Carol")]
    # Alice sat first: she hosts the table and starts it.
    alice.get_by_role("button", name="Start the game").click()
    try:
        for token in tokens:
            others.play(server, table_id, token)
        expect(alice.locator("#game-view")).to_be_visible()
        # Bob and Carol bid nothing: Alice wins every card with one coin (Fairy Gold while she has
        # some). The table's game is its server's first, dealt from ABSENT_SEED (tests/deals.py):
        # the Witch, then the Magician, whose power asks Alice a decision.
        area = alice.locator("#action-area")
        for _ in range(2):
            expect(area).to_have_attribute("data-state", "bid", timeout=20_000)
            expect(alice.locator("#countdown")).to_be_hidden()  # bids are not timed here
            reveals = alice.locator("#log li[data-type=bids_revealed]")
            before = reveals.count()
            alice.locator("#action-area [data-more=fairy_gold]").click()
            alice.get_by_role("button", name="Submit bid").click()
            expect(reveals).to_have_count(before + 1)
        expect(area).to_have_attribute("data-state", "choose", timeout=20_000)
        expect(alice.locator("#action-area [data-prompt=choose]")).to_have_attribute(
            "data-character", "magician"
        )
        countdown = alice.locator("#countdown")
        expect(countdown).to_be_visible()
        expect(countdown).to_have_text(re.compile(r"^0:0[0-4]$"))
        alice.screenshot(path=str(artifacts / "choose-countdown.png"), animations="disabled")
        # Alice lets it run out: the default choice is made, and the log says so.
        expect(alice.locator("#log li[data-type=timed_out]").first).to_have_text(
            "Time ran out for Alice: the default choice is made.", timeout=10_000
        )
        # In French too.
        alice.click("[data-lang-button=fr]")
        expect(alice.locator("#log li[data-type=timed_out]").first).to_have_text(
            "Temps écoulé pour Alice\u00a0: le choix par défaut est fait."
        )
    finally:
        others.stop()


def test_an_absent_players_seat_is_handed_to_a_bot_and_taken_back(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    # Untimed (said explicitly: tables are timed by default): here a seated person hands the seat
    # over; a timed table's server does it by itself (tests/browser/test_games_keep_moving.py).
    table_id = _api_table(server, grace_seconds=1, turn_seconds=None, choose_seconds=None)
    alice, bob = new_page("alice"), new_page("bob")
    _join_in_page(alice, server, table_id, "Alice")
    _join_in_page(bob, server, table_id, "Bob")
    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    expect(bob.locator("#game-view")).to_be_visible()
    bob_seat = bob.locator(".seat.me").get_attribute("data-seat")
    # While Bob is here, nobody is offered his seat.
    expect(alice.locator(f".seat[data-seat='{bob_seat}']")).to_be_visible()
    expect(alice.locator("[data-hand-to-bot]")).to_have_count(0)

    # Bob closes his page. After the grace period, Alice can hand his seat to a bot.
    bob_context = bob.context
    bob.close()
    seat = alice.locator(f".seat[data-seat='{bob_seat}']")
    button = seat.get_by_role("button", name="Hand to a bot")
    expect(button).to_be_visible(timeout=10_000)
    alice.screenshot(path=str(artifacts / "hand-to-bot.png"), animations="disabled")
    button.click()
    expect(seat.locator(".seat-standin")).to_have_text("bot playing for Bob")
    expect(alice.locator("#log li[data-notice=stand_in]")).to_have_text(
        "Alice handed Bob’s seat to a bot: a bot plays for Bob until they come back."
    )
    # The bot plays for Bob: Alice's bids are enough to move the game on.
    alice.get_by_role("button", name="Bid nothing").click()
    expect(alice.locator("#log")).to_contain_text("Bids for")

    # Bob comes back on the same device: the seat is his again, and both pages say so.
    bob = bob_context.new_page()
    bob.goto(f"{server.url}/t/{table_id}")
    expect(bob.locator("#standin-note")).to_have_text(
        "Welcome back: your seat is yours again. You play from your next decision."
    )
    expect(alice.locator("#log li[data-notice=back]")).to_have_text("Bob is back and plays again.")
    expect(seat.locator(".seat-standin")).to_have_count(0)
    # His next prompt is his to answer (his bot may have bid in this auction already).
    expect(alice.locator("#action-area")).to_have_attribute("data-state", "bid")
    alice.get_by_role("button", name="Bid nothing").click()
    bob_area = bob.locator("#action-area")
    expect(bob_area).to_have_attribute(
        "data-state", re.compile("^(bid|tiebreak|choose)$"), timeout=20_000
    )
    if bob_area.get_attribute("data-state") == "choose":
        bob.locator("#action-area .option-btn").first.click()
    else:
        bob.get_by_role("button", name="Bid nothing").click()
    expect(bob_area).to_have_attribute("data-state", re.compile("^(pending|idle|bid|choose)$"))
    expect(bob.locator("#action-area .form-error")).to_have_count(0)
