"""Your move while the page is hidden: the title blinks and the browser notifies.
The full browser, not the headless shell: the shell has no notifications (the
browser fixture reads FULL_CHROMIUM)."""

from __future__ import annotations

import re

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import expect, start_with_bots

FULL_CHROMIUM = True

COUNT_NOTIFICATIONS = """
  window.__notified = [];
  const Real = window.Notification;
  if (Real) {
    class Counted extends Real {
      constructor(title, options) { super(title, options); window.__notified.push(title); }
    }
    window.Notification = Counted;
  }
"""

HIDE = """(hidden) => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  Object.defineProperty(document, "visibilityState", {value: hidden ? "hidden" : "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_your_turn_blinks_the_title_and_notifies_while_the_page_is_hidden(
    server: Server, new_page: NewPage
) -> None:
    kim = new_page("kim")
    kim.add_init_script(COUNT_NOTIFICATIONS)
    kim.context.grant_permissions(["notifications"], origin=server.url)
    start_with_bots(kim, server, "Kim")
    area = kim.locator("#action-area")
    expect(area).to_have_attribute("data-state", "bid")
    # The sound is off until chosen, and the choice is remembered.
    sound = kim.locator("#alert-sound")
    expect(sound).not_to_be_checked()
    sound.check()
    kim.locator("#alert-notify").check()
    assert kim.evaluate("() => localStorage.getItem('dragonstones.sound')") == "1"
    kim.reload()
    expect(kim.locator("#alert-sound")).to_be_checked()
    expect(kim.locator("#alert-notify")).to_be_checked()
    expect(area).to_have_attribute("data-state", "bid")
    assert kim.evaluate("() => window.__notified") == []
    # Kim switches to another tab, then bids nothing (from the keyboard's point of view the page
    # is still hers); her next move comes while the page is hidden. Hidden first: the bots answer
    # at once, so her next move may arrive before a later switch.
    kim.evaluate(HIDE, True)
    kim.get_by_role("button", name="Bid nothing").click()
    expect(area).to_have_attribute(
        "data-state", re.compile("^(bid|tiebreak|choose)$"), timeout=30_000
    )
    titles = set()
    for _ in range(30):
        titles.add(kim.title())
        kim.wait_for_timeout(100)
    assert {"▶▶ Your move!", "▶ Your move — Dragonstones"} <= titles, titles
    assert kim.evaluate("() => window.__notified") == ["Your move!"]
    # Back on the page: the title stops blinking.
    kim.evaluate(HIDE, False)
    expect(kim).to_have_title("▶ Your move — Dragonstones")
    # and keeps it over more than a blink's period (every sample read, not only the last)
    seen = set()
    for _ in range(12):
        kim.wait_for_timeout(100)
        seen.add(kim.title())
    assert seen == {"▶ Your move — Dragonstones"}, seen
