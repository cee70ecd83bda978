"""The lobby's other ways to a game: the list of open tables, private tables, bots in the waiting
room."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import HAVE_PLAYWRIGHT, ConsoleWatch, NewPage, Server
from tests.browser.helpers import (
    advance_clock,
    create_table,
    dismissing,
    expect,
    join_by_invite,
)

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Page, Route

pytestmark = pytest.mark.browser


def test_joining_an_open_table_from_the_list_and_a_bot_takes_the_last_seat(
    server: Server, new_page: NewPage
) -> None:
    # (Quick play waits in the matchmaking queue now: tests/browser/test_queue.py.)
    alice, bob = new_page("alice"), new_page("bob")
    create_table(alice, server, "Alice")

    bob.goto(server.url + "/")
    bob.get_by_label("Your name").fill("Bob")
    bob.locator("#open-tables").get_by_role("button", name="Join").click()
    expect(bob.locator("#waiting-view")).to_be_visible()
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    expect(alice.get_by_role("button", name="Start the game")).to_be_disabled()

    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    expect(alice.locator("#waiting-seats li[data-seat='2'] .tag")).to_have_text("bot")
    alice.get_by_role("button", name="Start the game").click()

    for page in (alice, bob):
        expect(page.locator("#game-view")).to_be_visible()
        page.get_by_role("button", name="Bid nothing").click()
    # The bot bids by itself; the reveal shows three fists.
    for page in (alice, bob):
        expect(page.locator("#reveal-area .fist")).to_have_count(3)
    expect(bob.locator("#log")).to_contain_text("Bids for the Witch")

    # The name is remembered on this device.
    bob.goto(server.url + "/")
    expect(bob.get_by_label("Your name")).to_have_value("Bob")


def test_a_private_table_is_not_listed_but_its_invite_link_works(
    server: Server, new_page: NewPage
) -> None:
    alice, bob = new_page("alice"), new_page("bob")
    alice.goto(server.url + "/")
    alice.get_by_label("Your name").fill("Alice")
    alice.get_by_label("List this table in the lobby").uncheck()
    alice.get_by_role("button", name="Create the table").click()
    expect(alice.locator("#waiting-view")).to_be_visible()
    invite = alice.input_value("#invite-link")

    bob.goto(server.url + "/")
    expect(bob.locator("#open-tables .empty")).to_be_visible()
    bob.goto(invite)
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Sit down").click()
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(2)

    # Bob changes his mind before the start: the page asks first; his seat is free again.
    asked: list[str] = []
    bob.once("dialog", dismissing(asked))
    bob.get_by_role("button", name="Leave the table").click()
    expect(bob.locator("#waiting-view")).to_be_visible()  # he said no: still seated
    assert asked == ["Leave this table? Your seat goes to whoever comes next."]
    bob.once("dialog", lambda d: d.accept())
    bob.get_by_role("button", name="Leave the table").click()
    expect(bob.locator("#create-form")).to_be_visible()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(1)
    bob.goto(invite)
    expect(bob.locator("#join-view")).to_be_visible()


def test_an_unknown_table_says_so(server: Server, new_page: NewPage, console: ConsoleWatch) -> None:
    # Chromium logs every 404 answer as a console error: here it is the expected answer.
    console.tolerated.append("status of 404")
    page = new_page("visitor")
    page.goto(server.url + "/t/no-such-table")
    expect(page.locator("#notfound-view")).to_be_visible()


# The server's clock is moved past the time limit, not waited for.
@pytest.mark.server_env(TEST_CLOCK="0")
def test_a_time_limit_counts_down_and_a_silent_player_bids_nothing(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    alice.goto(server.url + "/")
    alice.get_by_label("Your name").fill("Alice")
    alice.get_by_label("Time to bid").select_option("15")
    alice.get_by_role("button", name="Create the table").click()
    expect(alice.locator("#timer-hint")).to_contain_text("15 s")
    invite = alice.input_value("#invite-link")
    join_by_invite(bob, invite, "Bob")
    join_by_invite(carol, invite, "Carol")
    alice.get_by_role("button", name="Start the game").click()

    for page in (alice, bob):
        expect(page.locator("#game-view")).to_be_visible()
        page.get_by_role("button", name="Bid nothing").click()
    # Carol lets the clock run: everyone sees it; when it runs out she has bid nothing.
    expect(carol.locator("#countdown")).to_be_visible()
    expect(alice.locator("#countdown")).to_have_text(re.compile(r"^0:[01]\d$"))
    carol.screenshot(path=str(artifacts / "timer.png"), animations="disabled")
    advance_clock(server, 15)
    expect(carol.locator("#reveal-area .fist")).to_have_count(3)
    expect(carol.locator("#reveal-area .fist[data-seat='2']")).to_contain_text("nothing")
    # The next auction has its own clock.
    expect(carol.locator("#action-area")).to_have_attribute("data-state", "bid")
    expect(carol.locator("#countdown")).to_be_visible()


def test_a_public_game_being_played_is_listed_to_watch(server: Server, new_page: NewPage) -> None:
    dora, visitor = new_page("dora"), new_page("visitor")
    invite, _watch = create_table(dora, server, "Dora")
    table_id = invite.rsplit("/", 1)[1]
    for seated in (2, 3):
        dora.get_by_role("button", name="Add a bot").click()
        expect(dora.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    dora.get_by_role("button", name="Start the game").click()
    expect(dora.locator("#game-view")).to_be_visible()

    visitor.goto(server.url + "/")
    row = visitor.locator(f"#watch-tables li[data-table-id='{table_id}']")
    expect(row).to_contain_text("Dora")
    expect(row).to_contain_text("Turn 1")
    expect(visitor.locator(f"#open-tables li[data-table-id='{table_id}']")).to_have_count(0)
    row.get_by_role("link", name="Watch").click()
    expect(visitor).to_have_url(re.compile(re.escape(f"/t/{table_id}?watch=1") + "$"))
    expect(visitor.locator("#game-view")).to_be_visible()
    expect(visitor.locator(".spectator-note")).to_be_visible()
    expect(visitor.locator(".seat.me")).to_have_count(0)
    # The spectator's log starts with who sat down (before the game, not after it),
    # then the game's opening, sent by the server.
    expect(visitor.locator("#log li").first).to_have_attribute("data-notice", "joined")
    expect(visitor.locator("#log li:not(.notice)").first).to_contain_text("Turn 1: this turn")
    expect(visitor.locator("#log li:not(.notice)").nth(1)).to_contain_text("Witch")


def _open_without_catalogue(page: Page, url: str) -> tuple[list[Route], list[str]]:
    """Open `url` with the card catalogue (GET /api/cards) held back: the page's modules wait
    for it before they listen. The routes held, and the page's navigations. The page's context
    blocks service workers: when the pages' worker (static/sw.js) claims the page before its
    modules ask for the catalogue, the fetch goes through the worker, and CI once waited 30 s
    for a request the page never reported. Without a worker the page's own fetch is the one
    seen and held."""
    held: list[Route] = []
    navigations: list[str] = []
    page.route("**/api/cards", lambda route: held.append(route))
    page.on("request", lambda r: navigations.append(r.url) if r.is_navigation_request() else None)
    with page.expect_request("**/api/cards"):
        page.goto(url)
    return held, navigations


def _release(page: Page, held: list[Route]) -> None:
    for route in held:
        route.continue_()
    page.unroute("**/api/cards")


def test_the_lobby_and_join_buttons_wait_for_their_handlers(
    server: Server, new_page: NewPage
) -> None:
    """Until the pages' modules listen (they wait for the card catalogue) the create, quick-play
    and join buttons are disabled: neither a click nor Enter submits a form natively, which
    reloaded the page and lost the name typed."""
    alice = new_page("alice", service_workers="block")
    held, navigations = _open_without_catalogue(alice, server.url + "/")
    name, create = alice.get_by_label("Your name"), alice.locator("#create-button")
    expect(create).to_be_disabled()
    expect(alice.locator("#quick-play")).to_be_disabled()
    name.fill("Alice")
    create.click(force=True)  # past Playwright's own wait for an enabled button
    name.press("Enter")
    _release(alice, held)
    expect(create).to_be_enabled()
    expect(alice.locator("#quick-play")).to_be_enabled()
    expect(name).to_have_value("Alice")
    # A native submit would have loaded the page again (with the name in its address).
    assert navigations == [server.url + "/"] and alice.url == server.url + "/", navigations
    create.click()
    expect(alice.locator("#waiting-view")).to_be_visible()

    # The join form of an invite shows once the page's modules run, its button enabled then.
    bob = new_page("bob", service_workers="block")
    held, navigations = _open_without_catalogue(bob, alice.input_value("#invite-link"))
    expect(bob.locator("#join-button")).to_be_disabled()
    expect(bob.locator("#join-view")).to_be_hidden()
    _release(bob, held)
    expect(bob.locator("#join-button")).to_be_enabled()
    bob.fill("#join-name", "Bob")
    bob.click("#join-button")
    expect(bob.locator("#waiting-view")).to_be_visible()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    assert len(navigations) == 1, navigations
