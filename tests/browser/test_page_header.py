"""The header every page shares (static/js/page-header.js) on every page: one banner landmark and
one main, the language switch, and a skip link that the first Tab reaches, shown while focused,
which moves the focus into the page's main without changing the address (the players' page reads
its #fragment)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import HAVE_PLAYWRIGHT, ConsoleWatch, NewPage, Server

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import expect

pytestmark = [pytest.mark.browser]

PAGES = ("/", "/me", "/rules", "/replay/nothing-here", "/t/nothing-here")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_page_has_the_header_and_its_skip_link(
    server: Server, new_page: NewPage, console: ConsoleWatch, lang: str
) -> None:
    # Chromium logs every 404 answer as a console error: the unknown game and table answer so.
    console.tolerated.append("status of 404")
    page = new_page("reader", locale="fr-FR" if lang == "fr" else "en-GB")
    skip_text = {"en": "Skip to the content", "fr": "Aller au contenu"}[lang]
    for path in PAGES:
        page.goto(server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.get_by_role("banner")).to_have_count(1)
        expect(page.get_by_role("main")).to_have_count(1)
        switch = page.get_by_role("banner").locator(".lang-switch [data-lang-button]")
        expect(switch).to_have_count(2)
        expect(page.get_by_role("banner").locator(".brand")).to_have_count(1)
        skip = page.locator(".skip-link")
        expect(skip).to_have_text(skip_text)
        page.keyboard.press("Tab")
        expect(skip).to_be_focused()
        box = skip.bounding_box()
        assert box is not None and box["y"] >= 0 and box["height"] > 0, (path, box)
        url = page.url
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.tagName") == "MAIN", path
        assert page.url == url
