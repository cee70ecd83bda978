"""Bugs found by a second round of play with real people, each shown in the browser: right-to-left
names isolated wherever they are shown; a table named after its host, not "Bot 1's table"; a
spectator's "Watch the new table" after a rematch; the two Dwarfs told apart; the "sat down"
lines and the removals in the log. (Enter after "+" reaches its maximum: tests/browser/
test_keyboard.py; the "sat down" lines after a reload: tests/browser/test_chat.py.)"""

from __future__ import annotations

import json
import re
import urllib.request

from tests.browser.conftest import ARTIFACTS, NewPage, Server
from tests.browser.driver import SeatDriver, seat_of, table_id_of
from tests.browser.helpers import create_table, expect, join_by_invite, start_with_bots

RTL = "مرحبا بالعالم"


def test_right_to_left_names_are_isolated_wherever_they_are_shown(
    server: Server, new_page: NewPage
) -> None:
    alice, salim = new_page("alice"), new_page("salim")
    invite, _ = create_table(alice, server, "Alice")
    join_by_invite(salim, invite, RTL)
    # The waiting room's seats, the lobby's list and the host's hint.
    expect(alice.locator("#waiting-seats bdi", has_text=RTL)).to_have_count(1)
    lobby = new_page("visitor")
    lobby.goto(server.url + "/")
    row = lobby.locator(f"#open-tables li[data-table-id='{table_id_of(alice)}']")
    expect(row.locator("bdi", has_text=RTL)).to_have_count(1)
    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, salim):
        expect(page.locator("#game-view")).to_be_visible()
    # The seats, the log's notices ("… sat down at the table.") and the turn indicator.
    expect(alice.locator("#seats .seat-name bdi")).to_have_text(["Alice", RTL, "Bot 3"])
    notice = alice.locator("#log li.notice[data-notice=joined]").nth(1)
    expect(notice.locator("bdi")).to_have_text(RTL)
    expect(notice).to_have_text(f"{RTL} sat down at the table.")
    # Alice bids: the indicator waits for the others, each name in its own <bdi>.
    alice.get_by_role("button", name="Bid nothing").click()
    expect(alice.locator("#turn-indicator bdi", has_text=RTL)).to_have_count(1)
    # Nowhere on the page is the name left bare in a text node beside other text.
    bare = alice.evaluate(
        """(name) => {
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          const out = [];
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (n.textContent.includes(name) && n.parentElement.tagName !== "BDI"
                && n.textContent.trim() !== name) out.push(n.textContent);
          }
          return out;
        }""",
        RTL,
    )
    assert bare == [], bare


def test_a_table_is_named_after_its_host_not_the_bot_in_the_first_seat(
    server: Server, new_page: NewPage
) -> None:
    alice, bob, visitor = new_page("alice"), new_page("bob"), new_page("visitor")
    invite, _ = create_table(alice, server, "Alice")
    table_id = table_id_of(alice)
    join_by_invite(bob, invite, "Bob")
    alice.once("dialog", lambda d: d.accept())
    alice.get_by_role("button", name="Leave the table").click()
    expect(bob.locator("#host-hint")).to_contain_text("You host this table")
    bob.get_by_role("button", name="Add a bot").click()  # the bot sits in seat 0: "Bot 1"
    expect(bob.locator("#waiting-seats li[data-seat='0']")).to_contain_text("Bot 1")
    visitor.goto(server.url + "/")
    row = visitor.locator(f"#open-tables li[data-table-id='{table_id}'] strong")
    expect(row).to_have_text("Bob’s table")
    # The invite link in a fresh browser says whose table it is, who sits there, and its limits.
    visitor.goto(invite)
    expect(visitor.locator("#join-title")).to_have_text("Take a seat — Bob’s table")
    info = visitor.locator("#join-table-info")
    expect(info).to_contain_text("Hosted by Bob · 2 of 3 seats taken")
    expect(info).to_contain_text("At the table: Bot 1 and Bob")
    expect(info).to_contain_text("Time to bid: 45 s")


def test_a_spectator_watches_the_table_of_the_rematch(server: Server, new_page: NewPage) -> None:
    alice, watcher = new_page("alice"), new_page("watcher")
    _invite, watch = create_table(alice, server, "Alice")
    for seated in (2, 3):
        alice.get_by_role("button", name="Add a bot").click()
        expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    alice.get_by_role("button", name="Start the game").click()
    expect(alice.locator("#game-view")).to_be_visible()
    watcher.goto(watch)
    expect(watcher.locator("#game-view")).to_be_visible()
    table_id = table_id_of(alice)
    with SeatDriver(server, table_id, seat_of(alice, table_id)["token"]) as driver:
        driver.play_to_the_end()
    expect(alice.locator("#end-view")).to_be_visible(timeout=60_000)
    alice.get_by_role("button", name="Play again with the same players").click()
    alice.wait_for_url(re.compile(r"/t/(?!" + re.escape(table_id) + r")[\w-]+$"))
    new = table_id_of(alice)
    link = watcher.locator("#rematch-watch")
    expect(link).to_have_attribute("href", f"/t/{new}?watch=1", timeout=30_000)
    link.press("Enter")
    watcher.wait_for_url(f"**/t/{new}?watch=1")
    # Not the join form of a full table: the waiting room as a spectator, then the game.
    expect(watcher.locator("#waiting-view")).to_be_visible()
    expect(watcher.locator("#waiting-spectator")).to_be_visible()
    expect(watcher.locator("#join-view")).to_be_hidden()
    alice.get_by_role("button", name="Start the game").click()
    expect(watcher.locator("#game-view")).to_be_visible()
    expect(watcher.locator(".spectator-note")).to_be_visible()


def test_the_two_dwarfs_are_told_apart(server: Server, new_page: NewPage) -> None:
    page = new_page("reader")
    page.goto(server.url + "/")
    said = page.evaluate(
        """async () => {
          const events = await import("/static/js/events.js");
          const prompts = await import("/static/js/prompt-text.js");
          const turn = events.eventSentence({type: "turn_started", turn: 1, specials: ["dwarf_4", "dwarf_5"],
            template: "Turn 1: this turn's special characters are the Dwarf and the Dwarf."}, (s) => `P${s}`);
          const prompt = {kind: "choose", character: "magician", step: "card"};
          const labels = ["dwarf_4", "dwarf_5"].map((c) => prompts.optionLabel(prompt, {id: c, card: c, label: "the Dwarf"}));
          return {turn, labels};
        }"""
    )
    assert (
        said["turn"]
        == "Turn 1: this turn’s special characters are the Dwarf (4) and the Dwarf (5)."
    )
    assert said["labels"] == ["the Dwarf (4)", "the Dwarf (5)"]


GLOW = """() => document.getAnimations()
    .filter(a => a.animationName === "pulse" && a.effect.pseudoElement === "::after"
                 && a.effect.target.id === "turn-indicator")
    .map(a => a.playState)"""


def test_your_move_glows_by_its_opacity_and_not_for_who_asks_for_less_motion(
    server: Server, new_page: NewPage
) -> None:
    moving = new_page("moving", motion=True)
    start_with_bots(moving, server, "Kim")
    expect(moving.locator("#action-area")).to_have_attribute("data-state", "bid")
    dealt = moving.locator("#auction-area .card.big")
    expect(dealt).to_have_css("animation-name", "deal")  # the card up for auction swoops in
    indicator = moving.locator("#turn-indicator")
    expect(indicator).to_have_class(re.compile(r"\bmine\b"))
    moving.wait_for_function(f"({GLOW})().includes('running')")
    # Only the glow's opacity changes: the compositor animates it, the page is not painted again.
    props = moving.evaluate("""() => [...new Set(document.getAnimations()
        .filter(a => a.animationName === "pulse")
        .flatMap(a => a.effect.getKeyframes().flatMap(k => Object.keys(k)))
        .filter(p => !["offset", "easing", "composite", "computedOffset"].includes(p)))]""")
    assert props == ["opacity"], props
    # Who asks for less motion sees the glow still, not pulsing, and the card dealt in place.
    moving.emulate_media(reduced_motion="reduce")
    moving.wait_for_function(f"({GLOW})().length === 0")
    expect(indicator).to_have_class(re.compile(r"\bmine\b"))
    expect(dealt).to_have_css("animation-name", "none")


def test_the_phone_top_bar_stays_on_one_line_with_long_names(
    server: Server, new_page: NewPage
) -> None:
    phone = new_page("phone", viewport={"width": 390, "height": 844}, is_mobile=True)
    create_table(phone, server, "Ann")
    table_id = table_id_of(phone)
    long_name = "Wolfgang Amadeus Mozart Salzburg"
    req = urllib.request.Request(
        f"{server.url}/api/tables/{table_id}/join",
        method="POST",
        data=json.dumps({"name": long_name}).encode(),
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(req, timeout=10).close()
    phone.get_by_role("button", name="Add a bot").click()
    expect(phone.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    phone.get_by_role("button", name="Start the game").click()
    phone.get_by_role("button", name="Bid nothing").click()
    # Wolfgang never answers: the bar waits for him, by his whole name, on one line.
    indicator = phone.locator("#turn-indicator")
    expect(indicator).to_contain_text(long_name)
    expect(indicator).to_have_attribute("title", re.compile(re.escape(long_name)))
    phone.screenshot(path=str(ARTIFACTS / "phone-topbar.png"))
    # One line: every part of the bar sits on the same row (it once grew to 2-3 lines).
    boxes = [
        phone.locator(sel).bounding_box()
        for sel in (".topbar .brand", "#turn-indicator", "#countdown", ".topbar .lang-switch")
    ]
    middles = [b["y"] + b["height"] / 2 for b in boxes if b is not None]
    assert len(middles) == 4 and max(middles) - min(middles) < 8, boxes
    bar = phone.locator("header.topbar").bounding_box()
    assert bar is not None and bar["height"] < 80, bar
    for button in phone.locator("[data-lang-button]").all():  # "EN", not "E" over "N"
        box = button.bounding_box()
        assert box is not None and box["width"] > box["height"] * 0.9, box
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
