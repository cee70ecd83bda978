"""Screenshots for people to look at (tests/artifacts/screens/, not committed): the table, a
decision, the game over and the replay page, on a desktop (1280x800) and a phone (390x844), in
English and in French. One seat is shown in four browsers at once (four tabs on the same seat);
on the phones nothing may pass the screen's edge. The game is dealt from SCREENS_SEED
(tests/deals.py plays the host's script offline against the same bots): the host's bids from
turn 2 on win a power decision at version 47 of 90."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, State, seat_of
from tests.browser.helpers import Page, ViewportSize, expect, start_with_bots
from tests.browser.test_first_evening import assert_fits

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DEVICES: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}
# Cards whose power asks its winner something: winning one brings a choose prompt.
ASKING = {
    "magician",
    "wizard",
    "sorcerer",
    "enchantress",
    "thief",
    "ancient_dragon",
    "sorcerers_apprentice",
    "brigand",
    "troll",
    "rainbow_dragon",
    "merchant",
    "imp",
    "ghost",
}
YOUR_MOVE = {"en": "Your move!", "fr": "À vous de jouer\u202f!"}


def mine(state: State, seat: int, kind: str) -> bool:
    return any(
        p["seat"] == seat and p["kind"] == kind and ("max" in p or "options" in p)
        for p in state["prompts"]
    )


def everything_on_asking_cards(prompt: dict[str, Any]) -> dict[str, Any]:
    go = prompt["character"] in ASKING
    return {
        "type": "bid",
        "fairy_gold": prompt["max"]["fairy_gold"] if go else 0,
        "common_gold": prompt["max"]["common_gold"] if go else 0,
        "amulet": False,
        "black_magic": False,
    }


@pytest.mark.game_seed(deals.SCREENS_SEED)
def test_screenshots_of_the_table_a_decision_the_end_and_the_replay(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    out = artifacts / "screens"
    out.mkdir(exist_ok=True)
    host = new_page("desktop-en", viewport=DEVICES["desktop"])
    table_id = start_with_bots(host, server, "Wolfgang Amadeus Mozart Salzburg")
    seat = seat_of(host, table_id)
    pages: dict[tuple[str, str], Page] = {("desktop", "en"): host}
    for device, lang in (("desktop", "fr"), ("phone", "en"), ("phone", "fr")):
        page = new_page(
            f"{device}-{lang}",
            viewport=DEVICES[device],
            is_mobile=device == "phone",
            locale="fr-FR" if lang == "fr" else "en-GB",
        )
        # The same person on four devices: signed in as the host's player (as a one-time link
        # would), holding the host's seat.
        page.context.add_cookies(host.context.cookies())  # type: ignore[arg-type]
        page.goto(server.url + "/")
        page.evaluate(
            "([k, v]) => window.localStorage.setItem(k, v)",
            [f"dragonstones.seat.{table_id}", json.dumps(seat)],
        )
        page.goto(f"{server.url}/t/{table_id}")
        expect(page.locator("#game-view")).to_be_visible()
        pages[(device, lang)] = page

    def shoot(what: str, state: str | None = None, full_page: bool = False) -> None:
        for (device, lang), page in pages.items():
            if state:
                expect(page.locator("#action-area")).to_have_attribute(
                    "data-state", state, timeout=30_000
                )
                expect(page.locator("#turn-indicator")).to_have_text(YOUR_MOVE[lang])
            if device == "phone":
                assert_fits(page, f"{what} ({lang})")
            page.screenshot(
                path=str(out / f"{what}-{device}-{lang}.png"),
                animations="disabled",
                full_page=full_page and device == "desktop",
            )
            if full_page and device == "phone":
                # The whole scrolled page too (its sticky bar then shows where the screen ended).
                page.screenshot(
                    path=str(out / f"{what}-{device}-{lang}-full.png"),
                    full_page=True,
                    animations="disabled",
                )

    with SeatDriver(server, table_id, seat["token"]) as driver:
        # Turn 2, for a table with a history (a turn, not a version: the bots may already have
        # bid when the host's socket reads its prompt).
        driver.play_until(lambda s: s["view"]["turn"] >= 2 and mine(s, seat["seat"], "bid"))
        for page in pages.values():
            page.evaluate("() => window.scrollTo(0, 0)")
        shoot("table", "bid", full_page=True)
        state = driver.play_until(
            lambda s: mine(s, seat["seat"], "choose"), bid=everything_on_asking_cards
        )
        assert mine(state, seat["seat"], "choose"), "the seed dealt the host no decision"
        assert state["version"] == deals.screens(deals.SCREENS_SEED)[1]  # the game dealt
        for (device, _lang), page in pages.items():
            if device == "phone":
                page.locator("#action-area").scroll_into_view_if_needed()
        shoot("prompt", "choose")
        # A digit picks an option: the host answers with the key 1, as a keyboard player would.
        host.locator("body").focus()
        panel = host.locator("#action-area > :first-child").element_handle()
        host.keyboard.press("1")
        # The decision was taken: its panel left the page (a power of two steps, like the
        # Thief's whose stones and then which stone, asks again at once, so the state may stay
        # "choose").
        host.wait_for_function("el => !el.isConnected", arg=panel, timeout=30_000)
        driver.play_to_the_end(timeout=180)
    for page in pages.values():
        expect(page.locator("#end-view .end-box")).to_be_visible(timeout=60_000)
    shoot("gameover")
    for (_device, _lang), page in pages.items():
        page.click("#replay-page-link")
        expect(page.locator("#proof-status")).to_have_attribute("data-verified", "yes")
        page.locator("#version-slider").fill("20")
        expect(page.locator("#main")).to_have_attribute("data-version", "20")
        page.evaluate("() => window.scrollTo(0, 0)")
    shoot("replay", full_page=True)
