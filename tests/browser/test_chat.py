"""Table chat in the browser: two players talk, in the waiting room and during the game;
markup in a line shows as text; the spectators' chat reaches a player only once shown; the
server's notices ("Bob sat down at the table") are in the game log; a phone can chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import Page, create_table, dismissing, expect, join_by_invite

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def say(page: Page, text: str) -> None:
    # The chat box shows before the page's socket is let in; a line sent earlier is refused
    # ("not connected") and stays in the box.
    expect(page.locator("body")).to_have_attribute("data-socket", "open")
    page.locator("#chat-input").fill(text)
    page.locator("#chat-send").click()
    expect(page.locator("#chat-input")).to_have_value("")


def test_chat_between_two_browsers(server: Server, new_page: NewPage, artifacts: Path) -> None:
    alice = new_page("alice")
    bob = new_page("bob", viewport=PHONE, is_mobile=True)
    dialogs: list[str] = []
    for page in (alice, bob):
        page.on("dialog", dismissing(dialogs))
    invite, watch = create_table(alice, server, "Alice")
    join_by_invite(bob, invite, "Bob")
    bob.screenshot(path=str(artifacts / "chat-phone-waiting.png"), full_page=True)

    # The waiting room: both see the chat; Alice's line reaches Bob with her name.
    expect(alice.locator("#chat-area")).to_be_visible()
    say(alice, "Hello Bob!")
    line = bob.locator("#chat-players li[data-channel=players]").last
    expect(line.locator(".chat-text")).to_have_text("Hello Bob!")
    expect(line.locator(".chat-name")).to_have_text("Alice")

    # Markup is text: no dialog, no element made of it, the characters visible as typed.
    script = "<script>alert(1)</script>"
    bob.locator("#chat-input").scroll_into_view_if_needed()
    say(bob, script)
    say(bob, '<img src=x onerror="alert(2)">')
    for page in (alice, bob):
        expect(page.locator("#chat-players .chat-text", has_text=script)).to_have_count(1)
        expect(page.locator("#chat-players")).to_contain_text('<img src=x onerror="alert(2)">')
        assert page.locator("#chat-players script, #chat-players img").count() == 0
    assert dialogs == []

    # The box holds 300 characters at most.
    alice.locator("#chat-input").fill("x" * 400)
    assert len(alice.locator("#chat-input").input_value()) == 300

    # A spectator talks on the spectators' channel: the players see it in its own style,
    # until one turns it off; then it is gone from that page (and comes back when turned on).
    watcher = new_page("watcher")
    watcher.goto(watch)
    expect(watcher.locator("#chat-area")).to_be_visible()
    expect(watcher.locator("#chat-show-wrap")).to_be_hidden()
    say(watcher, "Go Alice!")
    spectators = "#chat-players li[data-channel=spectators]"
    expect(watcher.locator(f"{spectators} .chat-text")).to_have_text(["Go Alice!"])
    expect(watcher.locator(f"{spectators} .chat-name")).to_contain_text(["Spectator "])
    expect(watcher.locator("#chat-players li[data-channel=players] .chat-text")).to_have_count(3)
    for page in (alice, bob):
        expect(page.locator(f"{spectators} .chat-text")).to_have_text(["Go Alice!"])
        expect(page.locator(f"{spectators} .chat-tag")).to_have_text(["spectator"])
    alice.locator("#chat-show-spectators").uncheck()
    expect(alice.locator(spectators)).to_have_count(0)
    assert "Go Alice!" not in alice.inner_text("body")
    alice.locator("#chat-show-spectators").check()
    expect(alice.locator(f"{spectators} .chat-text")).to_have_text(["Go Alice!"])

    # The game: the chat moves beside the log, the lines stay, the talk goes on.
    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob):
        expect(page.locator("#game-view .side #chat-area")).to_be_visible()
        expect(page.locator("#chat-players li[data-channel=players] .chat-text")).to_have_count(3)
        # The lobby's notice is in the game log, with the name.
        expect(page.locator("#log li.notice[data-notice=joined]")).to_contain_text(
            ["Alice sat down at the table.", "Bob sat down at the table."]
        )
    # On the desktop the chat is in sight beside the table, without scrolling.
    assert alice.evaluate("() => window.scrollY") == 0
    form = alice.locator("#chat-form").bounding_box()
    height = alice.viewport_size["height"] if alice.viewport_size else 0
    assert form is not None and form["y"] + form["height"] <= height, (form, height)
    # On the phone the chat is below the table: its tab counts what Bob has not seen yet.
    bob.evaluate("() => window.scrollTo(0, 0)")
    expect(bob.locator("#chat-tab")).to_be_visible()
    say(alice, "Your move, Bob")
    expect(bob.locator("#chat-unread")).to_have_text("1")
    bob.locator("#chat-tab").click()
    expect(bob.locator("#chat-input")).to_be_focused()
    expect(bob.locator("#chat-unread")).to_have_text("")
    bob.locator("#chat-input").scroll_into_view_if_needed()
    say(bob, "Good luck")
    expect(alice.locator("#chat-players .chat-text").last).to_have_text("Good luck")
    # On the phone the box fits the screen's width.
    box = bob.locator("#chat-form").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    bob.screenshot(path=str(artifacts / "chat-phone.png"), full_page=True, animations="disabled")
    alice.screenshot(path=str(artifacts / "chat-desktop.png"), animations="disabled")

    # Reloaded, the page has the same lines (no doubles); in French the notices are French.
    alice.reload()
    expect(alice.locator("#chat-players li[data-channel=players] .chat-text")).to_have_count(5)
    # The "sat down" lines stay at the top of the log, before the game's first turn (a
    # reload once moved them to the bottom).
    expect(alice.locator("#log li").nth(0)).to_have_attribute("data-notice", "joined")
    expect(alice.locator("#log li").nth(1)).to_have_attribute("data-notice", "joined")
    alice.locator("[data-lang-button=fr]").click()
    expect(alice.locator("#chat-title")).to_have_text("Discussion de la table")
    expect(alice.locator("#log li.notice").first).to_contain_text("s’assied à la table")
    assert dialogs == []
