"""A player who comes back: she closes her browser, the server restarts, and she is still
herself (her name, her game); a one-time link signs her phone in, which opens the game she is
seated at and plays her seat. Every players' page (hers, the claim page, her public page, a
league's page and its invite link) is written in English and in French, switched on the page
itself, passes axe and fits the phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import ConsoleWatch, NewPage, Server
from tests.browser.test_accessibility import AXE, OPTIONS
from tests.browser.test_screens import DEVICES

pytestmark = pytest.mark.browser

# Text of the other language left on a page shown in this one: the parts (between placeholders)
# of every string of the other language that this one does not share, in the page's visible text.
STRINGS = """async () => {
  window.bothLanguages = (await import("/static/js/i18n.js")).STRINGS;
}"""
LEFT_OVER = """(lang) => {
  const { en, fr } = window.bothLanguages;
  const [shown, other] = lang === "fr" ? [fr, en] : [en, fr];
  const spaced = (t) => t.replace(/[\\u00a0\\u202f]/g, " ");
  const text = spaced(document.body.innerText);
  const parts = (v) => (typeof v === "string" ? [v] : Object.values(v)).flatMap((s) => spaced(s).split(/\\{\\w+\\}/));
  const left = [];
  for (const [key, value] of Object.entries(other)) {
    const same = parts(shown[key] ?? "").join("\\n");
    for (const part of parts(value)) {
      const p = part.trim();
      if (p.length >= 8 && !same.includes(p) && text.includes(p)) left.push(`${key}: ${p}`);
    }
  }
  return left;
}"""


def open_untimed_table_with_bots(page: Page, server: Server, name: str) -> str:
    page.goto(server.url + "/")
    page.get_by_label("Your name").fill(name)
    # No time limit: nothing moves her seat on while she is away.
    page.select_option("#timer", "")
    page.select_option("#choose-timer", "")
    page.get_by_role("button", name="Create the table").click()
    expect(page.locator("#waiting-view")).to_be_visible()
    for seated in (2, 3):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#game-view")).to_be_visible()
    return page.url.split("/t/", 1)[1].split("?", 1)[0]


def test_a_player_comes_back_and_plays_her_seat_on_her_phone(
    server: Server, new_page: NewPage, console: ConsoleWatch
) -> None:
    laptop = new_page("laptop")
    table_id = open_untimed_table_with_bots(laptop, server, "Alice")
    expect(laptop.locator("#action-area")).to_have_attribute("data-state", "bid")

    # She closes the browser; the server restarts; she opens it again (same cookies, same storage).
    kept: Any = laptop.context.storage_state()
    laptop.context.close()
    server.stop()
    server.start()
    browser = laptop.context.browser
    assert browser is not None
    again = browser.new_context(storage_state=kept, viewport={"width": 1280, "height": 800})
    laptop = again.new_page()
    laptop.goto(server.url + "/")
    # The game waits for her bid: the lobby's link counts it.
    badge = laptop.locator(".me-link [data-awaiting-badge]")
    expect(badge).to_be_visible()
    expect(badge).to_contain_text("1 game waits for you")
    laptop.get_by_role("link", name="My games").click()
    expect(laptop.locator("#me-name")).to_have_value("Alice")
    expect(laptop.locator(f"#current-games a[href='/t/{table_id}']")).to_be_visible()
    # Listed first, marked as waiting for her, counted by the page's badge and title.
    expect(laptop.locator("#current-games li").first).to_have_class("awaiting")
    expect(laptop.locator("#games-title [data-awaiting-badge]")).to_be_visible()
    expect(laptop).to_have_title(re.compile(r"^\(1\) "))

    # A one-time link for her phone.
    laptop.get_by_role("button", name="Use on another device").click()
    expect(laptop.locator("#claim-link")).to_have_value(re.compile(r"/me/claim#[\w-]{40,}$"))
    link = laptop.input_value("#claim-link")
    expect(laptop.locator("#claim-qr")).to_have_attribute("src", re.compile(r"^data:image/svg"))

    phone = new_page("phone", viewport=DEVICES["phone"], is_mobile=True)
    phone.goto(link)
    expect(phone.locator("#claim-result")).to_contain_text("Alice")
    assert "#" not in phone.url  # the spent code left the address bar
    # Used once: opening it again is refused, saying why (the browser logs the 410).
    console.tolerated.append("status of 410")
    phone.goto(link)
    expect(phone.locator("#claim-result")).to_contain_text("used already")

    # The phone opens the table: her seat, her turn to bid, and she bids.
    phone.goto(f"{server.url}/t/{table_id}")
    expect(phone.locator("#game-view")).to_be_visible()
    expect(phone.locator(".seat.me")).to_have_attribute("data-seat", "0")
    expect(phone.locator("#action-area")).to_have_attribute("data-state", "bid")
    phone.click("#action-area [data-more=fairy_gold]")
    phone.get_by_role("button", name="Submit bid").click()
    # Her bid counted (the bots had bid already: the auction was settled, her Fairy Gold spent),
    # and her laptop, opened again, shows the same game.
    spent = re.compile(r"\D1\s*Fairy Gold spent")
    expect(phone.locator(".seat[data-seat='0']")).to_contain_text(spent)
    laptop.goto(f"{server.url}/t/{table_id}")
    expect(laptop.locator(".seat.me")).to_have_attribute("data-seat", "0")
    expect(laptop.locator(".seat[data-seat='0']")).to_contain_text(spent)

    # Every players' page on the phone, in English and in French: her page, the claim page, her
    # public page, a league's page and its invite link opened by a friend who has no name yet.
    phone.goto(server.url + "/me")
    expect(phone.locator("#me-name")).to_have_value("Alice")
    public = server.url + str(phone.get_attribute("#me-public", "href"))
    phone.fill("#league-name", "Tuesday club")
    phone.get_by_role("button", name="Create a league").click()
    expect(phone.locator("#league-body")).to_be_visible()
    league = phone.url
    invite = phone.input_value("#league-invite")
    friend = new_page("friend", viewport=DEVICES["phone"], is_mobile=True)
    console.tolerated.append("status of 4")  # the refused claim and league links
    opens = ("Use on another device", "#claim-qr")
    audit_phone_page(phone, server.url + "/me", "#current-games a", opens=opens)
    pages: list[tuple[Page, str, str]] = [
        (phone, link, "#claim-result:not(:empty)"),
        (phone, public, "#player-rating:not(:empty)"),
        (phone, league, "#league-body:not([hidden])"),
        (friend, invite, "#league-message:not(:empty)"),
    ]
    for page, url, ready in pages:
        audit_phone_page(page, url, ready)
    again.close()


def audit_phone_page(
    page: Page, url: str, ready: str, *, opens: tuple[str, str] = ("", "")
) -> None:
    """The page in the language it opens in, then in the other one chosen on the page itself:
    written in it (nothing left of the other), no serious or critical axe violation, and
    nothing wider than the phone's screen."""
    page.goto(url)
    button, shown = opens
    if button:  # what the page shows once asked (a one-time link and its QR code)
        page.get_by_role("button", name=button).click()
        expect(page.locator(shown)).to_be_visible()
    expect(page.locator(ready).first).to_be_visible()
    page.evaluate(STRINGS)
    first = str(page.get_attribute("html", "lang"))
    for lang in (first, "en" if first == "fr" else "fr"):
        page.locator(f"[data-lang-button={lang}]").click()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator(ready).first).to_be_visible()
        where = (url.split("#", 1)[0], lang)
        try:  # the page is drawn again in its new language (some of it fetched again)
            page.wait_for_function(f"lang => ({LEFT_OVER})(lang).length === 0", arg=lang)
        except PlaywrightTimeout:
            assert not page.evaluate(LEFT_OVER, lang), where
        if AXE is not None:
            violations = AXE.run(page, options=OPTIONS).response["violations"]
            grave = [
                (v["id"], [n["target"] for n in v["nodes"]][:3])
                for v in violations
                if v["impact"] in ("serious", "critical")
            ]
            assert not grave, (where, grave)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= DEVICES["phone"]["width"], (where, width)
