"""Time limits anyone can adjust in the page: "+30 s" beside the countdown moves the clock of the
open decision for everyone, and disappears once the seat has used its requests; the clock warns 20 s
before the end once per decision, through the page's polite live region, whether or not more
time was given meanwhile."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import HAVE_PLAYWRIGHT, NewPage, Server

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import expect

pytestmark = [pytest.mark.browser]

# Every text the live region is given, in order (it is emptied before each).
LISTEN = """() => {
  window.__said = [];
  new MutationObserver(() => {
    const text = document.querySelector("#announcer").textContent;
    if (text) window.__said.push(text);
  }).observe(document.querySelector("#announcer"), {childList: true, characterData: true, subtree: true});
}"""


def test_more_time_and_one_warning(server: Server, new_page: NewPage) -> None:
    page = new_page("ann")
    page.goto(server.url + "/")
    page.get_by_label("Your name").fill("Ann")
    page.select_option("#timer", "15")  # under 20 s from the start: the warning comes at once
    page.get_by_role("button", name="Create the table").click()
    expect(page.locator("#waiting-view")).to_be_visible()
    for seated in (2, 3):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    page.evaluate(LISTEN)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#game-view")).to_be_visible()
    announcer = page.locator("#announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    page.wait_for_function("() => window.__said.some((s) => s.includes('20 s'))")
    countdown = page.locator("#countdown")
    expect(countdown).to_have_text(re.compile(r"0:(0\d|1[0-5])"))

    more = page.locator("#more-time")
    expect(more).to_be_visible()
    more.click()
    # The clock moved 30 s later; the log says who asked.
    expect(countdown).to_have_text(re.compile(r"0:(3\d|4[0-5])"))
    expect(page.locator("#log li[data-notice=time_added]")).to_contain_text("Ann")
    expect(more).to_have_attribute("aria-label", re.compile("2 times left"))
    # The same decision nearing its end again (as another "+30 s" ending would) is not
    # announced twice.
    page.evaluate(
        """async () => {
          const store = await import("/static/js/store.js");
          store.update({deadline: Date.now() + 5000});
          await new Promise((done) => setTimeout(done, 600));
        }"""
    )
    said = page.evaluate("() => window.__said.filter((s) => s.includes('20 s'))")
    assert len(said) == 1, said
    # Two more, then the button is gone and the server would refuse a fourth.
    more.click()
    expect(more).to_have_attribute("aria-label", re.compile("1 time left"))
    more.click()
    expect(more).to_be_hidden()
    expect(page.locator("#log li[data-notice=time_added]")).to_have_count(3)
