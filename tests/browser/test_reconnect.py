"""Coming back: a reload in the middle of a bid, and a connection that drops while the server is
down. The player returns to the same seat and the same state; a banner shows while disconnected."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import ConsoleWatch, NewPage, Server
from tests.browser.helpers import create_table, expect, join_by_invite, start_three_player_game

pytestmark = pytest.mark.browser


def test_reload_in_the_middle_of_a_bid_keeps_the_seat_and_the_state(
    server: Server, new_page: NewPage
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    start_three_player_game(server, alice, bob, carol)

    # Alice bids 1 Fairy Gold on the Witch; Bob starts his bid (2 Fairy Gold), not sent yet.
    expect(alice.locator("#action-area")).to_have_attribute("data-state", "bid")
    alice.click("#action-area [data-more=fairy_gold]")
    alice.get_by_role("button", name="Submit bid").click()
    expect(alice.locator("#action-area [data-sent=bid]")).to_be_visible()
    expect(bob.locator(".seat[data-seat='0'] .seat-status")).to_have_attribute(
        "data-status", "done"
    )
    bob.click("#action-area [data-more=fairy_gold]")
    bob.click("#action-area [data-more=fairy_gold]")

    bob.reload()
    # Same seat, same game: still Bob's bid to make, Alice's bid still in (but not its content).
    expect(bob.locator("#game-view")).to_be_visible()
    expect(bob.locator(".seat.me")).to_have_attribute("data-seat", "1")
    expect(bob.locator(".seat.me .seat-name")).to_have_text("Bob")
    expect(bob.locator("#action-area")).to_have_attribute("data-state", "bid")
    expect(bob.locator(".seat[data-seat='0'] .seat-status")).to_have_attribute(
        "data-status", "done"
    )
    expect(bob.locator("#turn-indicator")).to_have_text("Your move!")

    # Alice reloads too: her own sealed bid is shown back to her, to her only.
    alice.reload()
    expect(alice.locator("#action-area [data-sent=bid]")).to_contain_text("1 Fairy Gold")
    assert "1 Fairy Gold" not in bob.inner_text("#main")

    bob.click("#action-area [data-more=fairy_gold]")
    bob.click("#action-area [data-more=fairy_gold]")
    bob.get_by_role("button", name="Submit bid").click()
    # Carol answers with the keyboard alone.
    carol.focus("#action-area [data-bid-nothing]")
    carol.keyboard.press("Enter")

    # Everyone sees the reveal: Bob won the Witch with 2 Fairy Gold.
    for page in (alice, bob, carol):
        expect(page.locator("#reveal-area .fist.win")).to_have_attribute("data-seat", "1")
        expect(page.locator("#reveal-area")).to_contain_text("2 Fairy Gold")
    expect(bob.locator("#my-coins [data-coin=black_magic] .count")).to_have_text("1")
    expect(bob.locator("#log")).to_contain_text("Bob wins the Witch.")

    # Who is connected is shown on the seats.
    expect(alice.locator(".seat[data-seat='2'] .presence")).to_have_class(re.compile(r"\bon\b"))
    carol.close()
    expect(alice.locator(".seat[data-seat='2'] .presence")).not_to_have_class(re.compile(r"\bon\b"))


def test_a_dropped_connection_shows_a_banner_and_the_game_resumes(
    server: Server, new_page: NewPage, console: ConsoleWatch
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    start_three_player_game(server, alice, bob, carol)
    expect(alice.locator("#conn-banner")).to_be_hidden()
    alice.click("#action-area [data-more=fairy_gold]")

    # The browser reports the refused reconnection attempts while the server is down.
    console.tolerated += ["WebSocket connection to", "ERR_CONNECTION_REFUSED"]
    server.stop()
    for page in (alice, bob):
        expect(page.locator("#conn-banner")).to_be_visible(timeout=10_000)
    # Alice submits while offline: the bid waits and is sent (once) when the socket is back.
    alice.get_by_role("button", name="Submit bid").click()
    expect(alice.locator("#action-area")).to_have_attribute("data-state", "pending")

    server.start()
    for page in (alice, bob, carol):
        expect(page.locator("#conn-banner")).to_be_hidden(timeout=15_000)
    expect(alice.locator("#action-area [data-sent=bid]")).to_contain_text("1 Fairy Gold")
    expect(alice.locator(".seat.me")).to_have_attribute("data-seat", "0")
    expect(bob.locator(".seat[data-seat='0'] .seat-status")).to_have_attribute(
        "data-status", "done"
    )
    console.tolerated.clear()

    bob.get_by_role("button", name="Bid nothing").click()
    carol.get_by_role("button", name="Bid nothing").click()
    for page in (alice, bob, carol):
        expect(page.locator("#reveal-area .fist.win")).to_have_attribute("data-seat", "0")


def test_the_pages_speak_french_with_the_french_card_names(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    alice, bob, claire = new_page("alice"), new_page("bob"), new_page("claire", locale="fr-FR")
    invite, _ = create_table(alice, server, "Alice")

    # A French browser gets French pages; the Magician is the "Enchanteur" of a French box.
    claire.goto(server.url + "/")
    expect(claire.locator("h1")).to_have_text("Dragonstones Online")
    expect(claire.get_by_role("button", name="Créer la table")).to_be_visible()
    expect(claire.locator("#hero-cards [data-character=magician] .card-name")).to_have_text(
        "Enchanteur"
    )
    expect(claire.locator("#hero-cards [data-character=witch] .card-name")).to_have_text("Sorcière")
    claire.goto(invite)
    claire.get_by_label("Votre nom").fill("Claire")
    claire.get_by_role("button", name="S’asseoir").click()
    expect(claire.locator("#waiting-view")).to_be_visible()
    join_by_invite(bob, invite, "Bob")
    alice.get_by_role("button", name="Start the game").click()

    expect(claire.locator("#auction-area .card-name")).to_have_text("Sorcière")
    expect(claire.locator("#turn-indicator")).to_have_text("À vous de jouer !")
    expect(claire.get_by_role("button", name="Miser", exact=True)).to_be_visible()
    claire.screenshot(path=str(artifacts / "french.png"), animations="disabled")
    # And back to English with one click, without a reload; the choice is remembered.
    claire.get_by_role("button", name="English").click()
    expect(claire.locator("#auction-area .card-name")).to_have_text("Witch")
    claire.reload()
    expect(claire.locator("#auction-area .card-name")).to_have_text("Witch")
    claire.get_by_role("button", name="Français").click()
    expect(alice.locator("#auction-area .card-name")).to_have_text("Witch")
    expect(claire.locator(".seat.me .tag")).to_have_text("vous")
