"""What a newcomer tripped on, each fixed and checked here in one game on a phone (390x844,
touch): the bid panel shows the card and its power (the card is off screen above it); the turn's
banner is whole, on two lines if need be; no
keyboard hints on a touch screen; the waiting room says a 127.0.0.1 link works on this machine
only and how to fix it; a spectator of a full table is offered no invite link and may take a name; a bot shows its
level and an icon the page ships, not an emoji; the log names a seat chosen as the only option;
the French "your turn" notification reads right; and the shuffle's proof hashes without
WebCrypto (plain http on a home network), the same as WebCrypto."""

from __future__ import annotations

import pytest

from tests.browser.conftest import HAVE_PLAYWRIGHT, NewPage, Server
from tests.browser.helpers import create_table

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import expect

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}

SENTENCES = """async () => {
  const i18n = await import("/static/js/i18n.js");
  const events = await import("/static/js/events.js");
  const names = ["Ana", "Bo", "Cy", "Dee"];
  const only = {type: "auto_choice", seat: 0, character: "thief", step: "victim", option: "seat3",
    template: "{seat}: Player 4 (the only option)."};
  const out = {};
  for (const lang of ["en", "fr"]) {
    i18n.setLang(lang);
    out[lang] = {only: events.eventSentence(only, (s) => names[s]),
                 notify: i18n.t("turn.notify_body", {table: "Table d’Hana"})};
  }
  i18n.setLang("en");
  return out;
}"""

# Whole: neither the banner nor its link clips its text (an ellipsis is a clipped text).
WHOLE = """(el) => [el, ...el.querySelectorAll("*")].every(
  (e) => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1)"""

# The page's SHA-256 against WebCrypto's, then the proof's hash with WebCrypto taken away.
HASHES = """async () => {
  const { sha256, sha256Hex } = await import("/static/js/sha256.js");
  const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  const texts = ["", "abc", "a".repeat(55), "b".repeat(56), "c".repeat(64), "d".repeat(119),
                 "dragonstones:9731298036725061512", "é ✓ 龍"];
  const pairs = [];
  for (const text of texts) {
    const bytes = new TextEncoder().encode(text);
    const web = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
    pairs.push([hex(sha256(bytes)), web]);
  }
  Object.defineProperty(window.crypto, "subtle", { value: undefined, configurable: true });
  const without = await sha256Hex(new TextEncoder().encode("abc"));
  return { pairs, without };
}"""


def test_what_a_newcomer_tripped_on(server: Server, new_page: NewPage) -> None:
    page = new_page("ann", viewport=PHONE, is_mobile=True)
    create_table(page, server, "Ann")
    # The default command serves 127.0.0.1: the link reaches nobody else, and the page says so.
    note = page.locator("#local-only-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("--host 0.0.0.0")
    expect(note).to_contain_text("PUBLIC_URL")
    page.locator("#bot-kind").select_option("hard")
    for seated in (2, 3):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    # A spectator of the full table: the spectator link, no invite.
    table_url = page.url
    watcher = new_page("watcher")
    watcher.goto(table_url + "?watch=1")
    expect(watcher.locator("#waiting-spectator")).to_be_visible()
    expect(watcher.locator("#invite-link")).to_be_hidden()
    expect(watcher.locator("#watch-link")).to_be_visible()
    # A spectator takes a name, marked as a spectator's; a player's name is refused.
    named = watcher.locator("#spectator-name-form")
    named.locator("input").fill("ANN")
    named.get_by_role("button", name="Use this name").click()
    expect(watcher.locator("#chat-error")).to_contain_text("looks like it")
    named.locator("input").fill("Zoé")
    named.get_by_role("button", name="Use this name").click()
    expect(watcher.locator("#spectator-label")).to_have_text("You are Zoé (spectator).")

    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#game-view")).to_be_visible()
    # Bots show their level and an icon the page ships.
    bot = page.locator(".seat .bot-tag").first
    expect(bot).to_contain_text("hard")
    expect(bot.locator(".bot-icon")).to_have_count(1)
    assert "🤖" not in page.locator("body").inner_text()
    # The bid panel says what the card does; a touch screen gets no keyboard hints; the
    # banner is whole.
    form = page.locator(".bid-form")
    expect(form.locator(".bid-card-power")).to_have_text(
        "Take a Black Magic coin: bid it later this turn to curse a card."
    )
    expect(form.locator(".hint.keys")).to_be_hidden()
    # The card up for auction is far above the panel on a phone: the panel shows it, in sight
    # with the button that sends the bid.
    card = form.locator(f".card[data-character={form.get_attribute('data-character')}]")
    expect(card).to_be_in_viewport()
    expect(form.locator("[data-submit-bid]")).to_be_in_viewport()
    banner = page.locator("#turn-indicator")
    expect(banner).to_be_visible()
    assert banner.evaluate(WHOLE), banner.inner_text()
    page.locator("[data-lang-button=fr]").click()
    expect(banner).to_contain_text("À vous de jouer")
    assert banner.evaluate(WHOLE), banner.inner_text()
    page.locator("[data-lang-button=en]").click()

    said = page.evaluate(SENTENCES)
    assert said["en"]["only"] == "Ana picks Dee as the victim of the Thief (the only option)."
    assert "Player" not in said["fr"]["only"] and "Dee" in said["fr"]["only"]
    assert "à Table" not in said["fr"]["notify"]

    hashes = page.evaluate(HASHES)
    for mine, webcrypto in hashes["pairs"]:
        assert mine == webcrypto
    # Quick play for any size promises no "1 of 3" (it may seat you at 4).
    page.goto(server.url + "/")
    page.locator("#queue-size").select_option("any")
    page.get_by_role("button", name="Quick play").click()
    expect(page.locator("#queue-text")).to_contain_text("3 to 6")
    expect(page.locator("#queue-text")).not_to_contain_text("(1 of 3)")
    page.get_by_role("button", name="Cancel").click()
    assert hashes["without"] == ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
