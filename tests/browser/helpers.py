"""Steps a person takes in the pages, shared by the browser tests."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable

from tests.browser.conftest import HAVE_PLAYWRIGHT, Server

if HAVE_PLAYWRIGHT:  # re-exported (`as`): the tests take Playwright's names from here
    from playwright.sync_api import Dialog
    from playwright.sync_api import Page as Page
    from playwright.sync_api import ViewportSize as ViewportSize
    from playwright.sync_api import expect as expect
else:  # collected all the same: the `browser` fixture then skips (or fails under CI) saying why
    Page = expect = None  # type: ignore[assignment,misc]


def dismissing(messages: list[str]) -> Callable[[Dialog], None]:
    """A dialog handler that notes the dialog's message, then dismisses it (answers "no")."""

    def dismiss(dialog: Dialog) -> None:
        messages.append(dialog.message)
        dialog.dismiss()

    return dismiss


def advance_clock(server: Server, seconds: float) -> None:
    """Move the clock of a server started with TEST_CLOCK (`@pytest.mark.server_env(TEST_CLOCK="0")`)
    forward; it answers once the timers this woke (time limits, grace) have run."""
    request = urllib.request.Request(
        server.url + "/test/clock",
        data=json.dumps({"seconds": seconds}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        assert json.loads(r.read())["settled"]


def create_table(page: Page, server: Server, name: str) -> tuple[str, str]:
    page.goto(server.url + "/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Create the table").click()
    expect(page.locator("#waiting-view")).to_be_visible()
    invite = page.input_value("#invite-link")
    watch = page.input_value("#watch-link")
    assert re.fullmatch(re.escape(server.url) + r"/t/[\w-]+", invite), invite
    return invite, watch


def join_by_invite(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.fill("#join-name", name)
    page.click("#join-button")
    expect(page.locator("#waiting-view")).to_be_visible()


def start_three_player_game(server: Server, alice: Page, bob: Page, carol: Page) -> None:
    invite, _ = create_table(alice, server, "Alice")
    join_by_invite(bob, invite, "Bob")
    join_by_invite(carol, invite, "Carol")
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob, carol):
        expect(page.locator("#game-view")).to_be_visible()


def start_with_bots(page: Page, server: Server, name: str, bots: int = 2) -> str:
    """Create a table in the lobby, fill it with bots, start it; returns the table id."""
    create_table(page, server, name)
    for seated in range(2, bots + 2):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#game-view")).to_be_visible()
    return page.url.split("/t/", 1)[1].split("?", 1)[0]
