"""Learn to play: from the home page, a newcomer starts the tutorial's game (its fixed deal,
app/lobby/tutorial.py, against two easy bots) and finishes it by doing only what the hints say,
in English and in French, meeting every kind of step; axe finds no serious violation on the
guided table."""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import HAVE_PLAYWRIGHT, NewPage, Server
from tests.browser.test_accessibility import AXE, OPTIONS

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

WORDS = {
    "en": {"start": "Learn to play", "more": "One more Fairy Gold", "submit": "Submit bid",
           "nothing": "Bid nothing"},
    "fr": {"start": "Apprendre à jouer", "more": "Une pièce de plus : Or des fées",
           "submit": "Miser", "nothing": "Ne rien miser"},
}  # fmt: skip


def _follow_the_hints(page: Page, lang: str) -> str:
    """Do what each hint says until the game is over; returns the hints met, in order (with what
    happened meanwhile, a reveal or a point, before the hint it came with)."""
    words = WORDS[lang]
    hint = page.locator("#learn-hint")
    met: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        expect(hint).to_be_visible()
        key = hint.get_attribute("data-hint") or ""
        step = hint.get_attribute("data-step") or ""
        news = hint.get_attribute("data-news") or ""
        if news:
            expect(hint.locator(".learn-news")).not_to_be_empty()
            met.append(news)
        if not met or met[-1] != key:
            met.append(key)
        if key in ("won", "over"):
            return " ".join(met)
        form = page.locator(".bid-form")
        if key == "bid":
            more = form.get_by_role("button", name=words["more"])
            if more.is_enabled():
                more.click()
            form.get_by_role("button", name=words["submit"], exact=True).click()
        elif key == "tiebreak":
            form.get_by_role("button", name=words["nothing"]).click()
        elif key == "choose":
            page.locator(".choose .option-btn").first.click()
        # The next step: another hint, or the same for the next decision.
        try:
            page.wait_for_function(
                "([k, s]) => { const d = document.querySelector('#learn-hint').dataset;"
                " return d.hint !== k || d.step !== s; }",
                arg=[key, step],
            )
        except Exception as exc:
            raise AssertionError(f"stuck at {key} {step}; met {met}") from exc
    raise AssertionError(f"the guided game did not end; hints met: {met}")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_newcomer_learns_by_following_the_hints(
    server: Server, new_page: NewPage, lang: str
) -> None:
    page = new_page("newcomer", locale="fr-FR" if lang == "fr" else "en-GB")
    page.goto(server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    page.get_by_role("button", name=WORDS[lang]["start"]).click()
    expect(page.locator("#game-view")).to_be_visible()
    hint = page.locator("#learn-hint")
    expect(hint).to_have_attribute("data-hint", "bid")
    expect(hint).to_have_attribute("role", "status")
    grave = [
        v["id"] for v in AXE.run(page, options=OPTIONS).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]  # fmt: skip
    assert grave == []
    met = _follow_the_hints(page, lang)
    # The tutorial's deal: every kind of step, and the newcomer wins in a few decisions.
    steps = {"bid", "reveal", "tiebreak", "choose", "score", "won"}
    assert steps <= set(met.split()) <= steps | {"sent", "wait"}, met  # sent, wait: brief
    assert met.endswith("won") and len(met.split()) <= 20, met
