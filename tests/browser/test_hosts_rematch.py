"""Hosts and "play again" in the browser: the host alone has the buttons and removes a
bot and a player; at the end, "Play again with the same players" takes two browsers to one new
table."""

from __future__ import annotations

import re
import threading

from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of, table_id_of
from tests.browser.helpers import Page, create_table, dismissing, expect, join_by_invite


def test_a_host_removes_a_bot_and_a_player(server: Server, new_page: NewPage) -> None:
    alice, bob = new_page("alice"), new_page("bob")
    invite, _ = create_table(alice, server, "Alice")
    join_by_invite(bob, invite, "Bob")
    # The lobby shows who is online at that table, and how recently it was active.
    lobby = new_page("lobby")
    lobby.goto(server.url + "/")
    expect(lobby.locator(".presence-age")).to_have_text("2 of 2 online · active just now")

    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)

    # Alice hosts: she has the buttons; Bob waits for her.
    expect(alice.locator("#host-hint")).to_contain_text("You host this table")
    expect(alice.locator("#waiting-seats li[data-seat='0'] .host-tag")).to_be_visible()
    expect(bob.locator("#host-hint")).to_have_text("Waiting for Alice to start the game.")
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    for hidden in ("#add-bot", "#start-game", "#table-settings"):
        expect(bob.locator(hidden)).to_be_hidden()
    expect(bob.locator(".remove-seat")).to_have_count(0)
    expect(alice.locator(".remove-seat")).to_have_count(2)

    # The bot leaves (its remove button), then Bob is removed: his page says so, his seat is free.
    alice.get_by_role("button", name="Remove Bot 3").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    # Removing a person is confirmed first; a bot goes without asking.
    asked: list[str] = []
    alice.once("dialog", dismissing(asked))
    alice.get_by_role("button", name="Remove Bob").click()
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(2)  # not removed
    assert asked == ["Remove Bob from the table?"]
    alice.once("dialog", lambda d: d.accept())
    alice.get_by_role("button", name="Remove Bob").click()
    expect(bob.locator("#notice-text")).to_have_text("The host removed you from this table.")
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(1)
    table_id = table_id_of(alice)
    assert (
        bob.evaluate(f"() => window.localStorage.getItem('dragonstones.seat.{table_id}')") is None
    )

    # The host's settings: a 30-second limit, seen by everyone at the table.
    alice.locator("#table-settings summary").click()
    alice.select_option("#settings-timer", "30")
    alice.get_by_role("button", name="Save the settings").click()
    expect(alice.locator("#timer-hint")).to_contain_text("30 s")


def test_play_again_takes_two_browsers_to_a_new_table(server: Server, new_page: NewPage) -> None:
    alice, bob = new_page("alice"), new_page("bob")
    invite, _ = create_table(alice, server, "Alice")
    join_by_invite(bob, invite, "Bob")
    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob):
        expect(page.locator("#game-view")).to_be_visible()
    old = table_id_of(alice)
    # Both seats played to the end from the test (a second socket per seat, like a second tab).
    _finish(server, old, alice, bob)
    for page in (alice, bob):
        expect(page.locator("#end-view")).to_be_visible()

    # Alice accepts: a new table, she hosts it, the bot kept its seat.
    alice.get_by_role("button", name="Play again with the same players").click()
    alice.wait_for_url(re.compile(r"/t/(?!" + re.escape(old) + r")[\w-]+$"))
    new = table_id_of(alice)
    expect(alice.locator("#waiting-view")).to_be_visible()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    # Bob, still on the old table, is shown who started it and joins with one click.
    link = bob.locator("#rematch-join")
    expect(link).to_have_text("Alice started a new table — join")
    link.click()
    bob.wait_for_url(f"**/t/{new}")
    expect(bob.locator("#waiting-view")).to_be_visible()
    for page in (alice, bob):
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    expect(bob.locator("#host-hint")).to_have_text("Waiting for Alice to start the game.")
    assert seat_of(bob, new)["name"] == "Bob"
    # The old table's page points to the new one for the players who went there.
    bob.goto(f"{server.url}/t/{old}")
    expect(bob.locator("#rematch-go")).to_have_attribute("href", f"/t/{new}")
    # And for someone who opens the old table's link afresh.
    visitor = new_page("visitor")
    visitor.goto(f"{server.url}/t/{old}")
    expect(visitor.locator("#started-rematch")).to_have_attribute("href", f"/t/{new}")
    alice.get_by_role("button", name="Start the game").click()
    expect(alice.locator("#game-view")).to_be_visible()


def _finish(server: Server, table_id: str, *pages: Page) -> None:
    """Play every person's seat of the table to the end, each in its own thread."""
    tokens = [seat_of(p, table_id)["token"] for p in pages]
    errors: list[BaseException] = []

    def play(token: str) -> None:
        try:
            with SeatDriver(server, table_id, token) as driver:
                driver.play_to_the_end()
        except BaseException as exc:  # reported by the test below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(t,)) for t in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=150)
    assert not errors, errors
