"""What players missed on a first evening: the coins in your fist, the last reveal kept
across turns, an invite to a game under way, the results reopened, your tables, the keys, French."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of
from tests.browser.helpers import (
    create_table,
    expect,
    join_by_invite,
    start_three_player_game,
    start_with_bots,
)

pytestmark = pytest.mark.browser


def test_your_fist_and_the_keys(server: Server, new_page: NewPage) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    start_three_player_game(server, alice, bob, carol)
    expect(alice.locator("#action-area")).to_have_attribute("data-state", "bid")
    # Keys: the + button, then Escape clears the form; Enter submits it.
    alice.click("#action-area [data-more=fairy_gold]")
    alice.click("#action-area [data-more=fairy_gold]")
    alice.keyboard.press("Escape")
    expect(alice.locator("#action-area [data-stepper=fairy_gold]")).to_have_value("0")
    alice.fill("#action-area [data-stepper=fairy_gold]", "3")
    alice.keyboard.press("Enter")
    expect(alice.locator("#action-area [data-sent=bid]")).to_be_visible()
    # Behind the screen until the reveal: what is in the fist, and what is left (8 - 3).
    expect(alice.locator("#me-area .in-fist")).to_have_text("In your fist: 3 Fairy Gold")
    expect(alice.locator("#my-coins [data-coin=fairy_gold] .count")).to_have_text("5")
    for page in (bob, carol):
        page.get_by_role("button", name="Bid nothing").click()
    expect(alice.locator("#me-area .in-fist")).to_have_count(0)
    expect(alice.locator("#my-coins [data-coin=fairy_gold] .count")).to_have_text("5")
    # The log separates each name from its bid.
    expect(alice.locator("#log")).to_contain_text(
        "Bids for the Witch: Alice: 3 Fairy Gold, Bob: nothing, Carol: nothing."
    )


def test_the_last_reveal_stays_into_the_next_turn(server: Server, new_page: NewPage) -> None:
    page = new_page("alice")
    table_id = start_with_bots(page, server, "Alice")
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_until(lambda s: s["view"]["turn"] == 2 and not s["view"]["turn_cards"])
    expect(page.locator("#turn-area h3").first).to_have_text("Turn 2")
    expect(page.locator("#reveal-area .reveal")).to_be_visible()
    expect(page.locator("#reveal-area h3")).to_contain_text("(Turn 1)")


def test_an_invite_to_a_game_under_way_offers_to_watch(server: Server, new_page: NewPage) -> None:
    alice, late = new_page("alice"), new_page("late")
    invite, _ = create_table(alice, server, "Alice")
    for seated in (2, 3):
        alice.get_by_role("button", name="Add a bot").click()
        expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    alice.get_by_role("button", name="Start the game").click()
    late.goto(invite)
    expect(late.locator("#started-view")).to_contain_text("This game has already started")
    expect(late.locator("#game-view")).to_be_hidden()
    late.get_by_role("link", name="Watch the game").click()
    expect(late.locator("#game-view")).to_be_visible()
    expect(late.locator(".spectator-note")).to_be_visible()


def test_the_results_come_back_and_your_tables_show_finished_games(
    server: Server, new_page: NewPage
) -> None:
    page = new_page("alice")
    table_id = start_with_bots(page, server, "Alice")
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_to_the_end()
    end = page.locator("#end-view")
    expect(end.locator(".end-box")).to_be_visible(timeout=30_000)
    # The card covers the page below the top bar: nothing under it takes the focus or a click
    # (axe once found the chat's Send button under the card), the top bar stays in use.
    under = "el => Boolean(el.closest('[inert]'))"
    assert page.locator("#chat-send").evaluate(under)
    assert page.locator("#log").evaluate(under)
    assert not page.locator("[data-lang-button=fr]").evaluate(under)
    top = page.locator(".topbar").bounding_box()
    card = end.bounding_box()
    assert top is not None and card is not None and card["y"] >= top["y"] + top["height"] - 1
    page.keyboard.press("Escape")
    expect(end).to_be_hidden()
    assert not page.locator("#chat-send").evaluate(under)
    page.get_by_role("button", name="Results").click()
    expect(end).to_be_visible()

    page.goto(server.url + "/")
    row = page.locator(f"#my-tables li[data-table-id='{table_id}']")
    expect(row).to_contain_text("Alice’s table")
    expect(row).to_contain_text("finished")
    expect(row.get_by_role("link", name="Replay")).to_have_attribute(
        "href", re.compile(r"^/replay/")
    )
    page.get_by_role("button", name="Clear finished games").click()
    expect(page.locator("#my-tables-panel")).to_be_hidden()
    page.reload()
    expect(page.locator("#my-tables-panel")).to_be_hidden()


def test_french_says_the_cards_with_their_articles(server: Server, new_page: NewPage) -> None:
    alice, bob, claire = new_page("alice"), new_page("bob"), new_page("claire", locale="fr-FR")
    invite, _ = create_table(alice, server, "Alice")
    join_by_invite(bob, invite, "Bob")
    claire.goto(invite)
    claire.get_by_label("Votre nom").fill("Élodie")
    claire.get_by_role("button", name="S’asseoir").click()
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob):
        page.get_by_role("button", name="Bid nothing").click()
    expect(claire.locator("#action-area h2")).to_have_text("Votre mise secrète pour la Sorcière")
    claire.get_by_role("button", name="Ne rien miser").click()
    expect(claire.locator("#log")).to_contain_text(
        "Mises pour la Sorcière\u00a0: Alice\u00a0: rien, Bob\u00a0: rien, Élodie\u00a0: rien."
    )
    expect(claire.locator("#log")).to_contain_text("Personne ne remporte la Sorcière.")
    claire.goto(server.url + "/")
    expect(claire.locator("#my-tables")).to_contain_text("Table d’Alice")
