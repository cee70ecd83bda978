"""Card help everywhere and the rules page: every kind of place a card appears (the card up for
auction, the turn's special cards, a player's held card (the Doppelganger's badge, in a game dealt
so that it comes), the options of a prompt, the log) shows that card's
power in a popover on hover, keyboard focus and tap, read by screen readers (role="tooltip",
aria-describedby) and closed with Escape; the rules page is built from the catalogue in both
languages; every card's name and power in the client is the catalogue's; axe finds no serious
violation on the rules page or on a table with a popover open."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from tests import deals
from tests.browser.conftest import HAVE_PLAYWRIGHT, NewPage, Server
from tests.browser.driver import SeatDriver, State, seat_of
from tests.browser.helpers import start_with_bots
from tests.browser.test_accessibility import AXE, OPTIONS

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Locator, Page, expect

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def _catalogue(server: Server) -> dict[str, Any]:
    with urllib.request.urlopen(server.url + "/api/cards", timeout=10) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _power(catalogue: dict[str, Any], card: str, lang: str = "en") -> str:
    entry = next(c for c in catalogue["cards"] if c["id"] == card)
    power: str = entry["text"][lang]["power"]
    return power


def _grave(page: Page) -> list[str]:
    results = AXE.run(page, options=OPTIONS)
    return [
        f"{v['id']} ({v['impact']}) {[n['target'] for n in v['nodes']][:5]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def _shows(page: Page, catalogue: dict[str, Any], trigger: Locator, lang: str = "en") -> None:
    """The popover is open on `trigger`, names it to assistive technology and says its power."""
    card = trigger.get_attribute("data-card-help") or ""
    popover = page.locator("#card-popover")
    expect(popover).to_be_visible()
    expect(popover).to_have_attribute("role", "tooltip")
    expect(popover).to_contain_text(_power(catalogue, card, lang))
    expect(trigger).to_have_attribute("aria-describedby", "card-popover")


def test_the_rules_page_and_the_client_speak_the_catalogue(
    server: Server, new_page: NewPage
) -> None:
    catalogue = _catalogue(server)
    page = new_page("reader", locale="fr-FR")
    page.goto(server.url + "/rules")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("h2#rules-scoring")).to_have_text("Comment les pierres rapportent")
    expect(page.locator(".rules-card")).to_have_count(len(catalogue["cards"]))
    expect(page.locator(".rules-card[data-card=magician]")).to_contain_text(
        _power(catalogue, "magician", "fr")
    )
    assert _grave(page) == []
    page.locator("[data-lang-button=en]").click()
    expect(page.locator("h2#rules-goal")).to_have_text("The goal")
    expect(page.locator(".scoring-list li")).to_have_count(len(catalogue["scoring"]))
    assert _grave(page) == []
    # The card on the rules page explains itself too, and Escape closes it.
    witch = page.locator(".rules-card[data-card=witch] .card")
    witch.focus()
    _shows(page, catalogue, witch)
    page.keyboard.press("Escape")
    expect(page.locator("#card-popover")).to_be_hidden()
    expect(witch).not_to_have_attribute("aria-describedby", "card-popover")

    # Every card's name and power as the page's modules give them is the catalogue's.
    said = page.evaluate(
        """async (ids) => {
          const i18n = await import("/static/js/i18n.js");
          const chars = await import("/static/js/characters.js");
          const out = {};
          for (const lang of ["en", "fr"]) {
            i18n.setLang(lang);
            out[lang] = Object.fromEntries(ids.map((id) => [id, [chars.charName(id), chars.charText(id)]]));
          }
          return out;
        }""",
        [c["id"] for c in catalogue["cards"]],
    )
    for lang in ("en", "fr"):
        for c in catalogue["cards"]:
            text = c["text"][lang]
            assert said[lang][c["id"]] == [text["name"], text["power"]], (lang, c["id"])


def _held_at_my_bid(seat: int) -> Callable[[State], bool]:
    """Someone holds the Doppelganger and `seat` is asked to bid: the game waits for that seat."""

    def held(state: State) -> bool:
        mine = any(
            p["seat"] == seat and p["kind"] == "bid" and "max" in p for p in state["prompts"]
        )
        return mine and any(p["has_doppelganger"] for p in state["view"]["players"])

    return held


@pytest.mark.game_seed(deals.CARD_HELP_SEED)  # the Doppelganger is held early (tests/deals.py)
def test_every_card_place_explains_its_card(server: Server, new_page: NewPage) -> None:
    catalogue = _catalogue(server)
    page = new_page("ann", viewport=PHONE, is_mobile=True)
    table_id = start_with_bots(page, server, "Ann")
    popover = page.locator("#card-popover")

    # The card up for auction: hover.
    up = page.locator("#auction-area .card[data-card-help]")
    up.hover()
    _shows(page, catalogue, up)
    page.mouse.move(1, 1)
    expect(popover).to_be_hidden()

    # The turn's special cards: keyboard focus, then Escape (which leaves the bid form alone).
    special = page.locator("#turn-area .specials .card[data-card-help]").first
    special.focus()
    _shows(page, catalogue, special)
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()

    # A card name in the log: tap; a second tap closes it.
    in_log = page.locator("#log .card-ref").first
    in_log.tap()
    _shows(page, catalogue, in_log)
    assert _grave(page) == []  # a table with a popover open
    in_log.tap()
    expect(popover).to_be_hidden()

    # A player's held card: the Doppelganger's badge in the seats panel, once someone keeps it
    # (Ann's seat plays the smallest move over a second socket until then). Hover, focus, tap.
    seat = seat_of(page, table_id)
    with SeatDriver(server, table_id, seat["token"]) as driver:
        driver.play_until(_held_at_my_bid(seat["seat"]))
        # The bots bid too, then the game waits for Ann: the page draws that state (and the
        # second socket stays open meanwhile: its leaving would draw the seats again, under the
        # pointer).
        page.evaluate("async () => { window.probeStore = await import('/static/js/store.js'); }")
        page.wait_for_function(
            """(seat) => {
              const v = window.probeStore.state.view;
              return v.awaiting.length === 1 && v.awaiting[0].seat === seat;
            }""",
            arg=seat["seat"],
        )
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        badge = page.locator("#seats .doppel-badge [data-card-help=doppelganger]")
        expect(badge).to_have_count(1)
        badge.scroll_into_view_if_needed()
        badge.hover()
        _shows(page, catalogue, badge)
        page.mouse.move(1, 1)
        expect(popover).to_be_hidden()
        badge.focus()
        _shows(page, catalogue, badge)
        page.keyboard.press("Escape")
        expect(popover).to_be_hidden()
        badge.tap()
        _shows(page, catalogue, badge)
        badge.tap()
        expect(popover).to_be_hidden()

    # A prompt's options naming cards (a Ghost's), drawn by the page's own renderer.
    page.evaluate(
        """async () => {
          const forms = await import("/static/js/forms.js");
          const prompt = {kind: "choose", seat: 0, character: "ghost", step: "card", question: "Which?",
            options: [{id: "witch", card: "witch", label: "the Witch"}, {id: "troll", card: "troll", label: "the Troll"}]};
          const panel = forms.choosePanel(prompt, () => {}, {players: null, nameOf: (s) => `P${s}`});
          panel.id = "probe";
          document.querySelector("#main, main").prepend(panel);
        }"""
    )
    option = page.locator("#probe .option-btn[data-card-help=troll]")
    expect(option).to_contain_text(_power(catalogue, "troll"))  # on a phone, without hovering
    option.focus()
    _shows(page, catalogue, option)
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    heading = page.locator("#probe h2 .card-ref")
    heading.tap()
    _shows(page, catalogue, heading)
