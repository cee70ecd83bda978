"""Browser security headers: every page and static file carries a Content-Security-Policy without
'unsafe-inline' (frame-ancestors 'none'), X-Frame-Options DENY, nosniff and a strict Referrer-Policy,
and every page of the client runs under that policy without a single violation: the lobby, the
queue, a table (waiting, joining, playing, watching, its end) and the replay."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of
from tests.browser.helpers import Page, create_table, expect, join_by_invite

pytestmark = pytest.mark.browser

# Every violation of the page's policy, as the page itself sees it (a console error is also
# logged by Chromium, which the `console` fixture fails on).
LISTEN = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def _watched(page: Page) -> Page:
    page.add_init_script(LISTEN)
    responses: list[Any] = []
    page.on("response", lambda response: responses.append(response))
    page.responses = responses  # type: ignore[attr-defined]
    return page


def _no_violations(page: Page, where: str) -> None:
    assert page.evaluate("() => window.__violations") == [], where


def _check_headers(page: Page) -> int:
    """Every response of this server the page loaded so far carries the headers."""
    checked = 0
    for response in page.responses:  # type: ignore[attr-defined]
        if not response.url.startswith("http://127.0.0.1") or response.status >= 300:
            continue
        headers = response.headers
        policy = headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy, (response.url, headers)
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, policy
        assert headers.get("x-frame-options") == "DENY", response.url
        assert headers.get("x-content-type-options") == "nosniff", response.url
        assert headers.get("referrer-policy") == "no-referrer", response.url
        checked += 1
    return checked


def test_every_page_runs_under_the_policy_without_a_violation(
    server: Server, new_page: NewPage
) -> None:
    alice, bob, watcher, queued = (
        _watched(new_page(n)) for n in ("alice", "bob", "watcher", "queued")
    )
    invite, watch = create_table(alice, server, "Alice")  # the lobby, then the waiting room
    _no_violations(alice, "lobby and waiting room")
    join_by_invite(bob, invite, "Bob")  # the join form
    _no_violations(bob, "join")
    watcher.goto(watch)
    expect(watcher.locator("#waiting-view")).to_be_visible()
    alice.get_by_role("button", name="Add a bot").click()
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob):
        expect(page.locator("#game-view")).to_be_visible()
    expect(watcher.locator("#game-view")).to_be_visible()
    # The table while playing: coins, stones, the bid form, the log, the chat.
    expect(alice.locator("#action-area")).not_to_be_empty()
    expect(alice.locator("#bank-area .coin").first).to_be_attached()
    alice.locator("#chat-input").fill("hello")
    alice.locator("#chat-input").press("Enter")
    expect(bob.locator("#chat-players")).to_contain_text("hello")
    for page, where in ((alice, "table"), (bob, "table"), (watcher, "watching")):
        _no_violations(page, where)

    table_id = alice.url.split("/t/", 1)[1].split("?", 1)[0]
    tokens = [seat_of(page, table_id)["token"] for page in (alice, bob)]

    def play(token: str) -> None:
        with SeatDriver(server, table_id, token) as driver:
            driver.play_to_the_end()

    players = [threading.Thread(target=play, args=(t,), daemon=True) for t in tokens]
    for thread in players:
        thread.start()
    for thread in players:
        thread.join(timeout=150)
    expect(alice.locator("#end-view .end-box")).to_be_visible(timeout=30_000)
    _no_violations(alice, "game over")
    alice.click("#replay-page-link")
    expect(alice.locator("#replay-view")).to_be_visible()
    alice.click("#next-step")
    expect(alice.locator("#main")).to_have_attribute("data-version", "1")
    _no_violations(alice, "replay")

    queued.goto(server.url + "/")
    queued.get_by_label("Your name").fill("Quinn")
    queued.get_by_role("button", name="Quick play").click()
    expect(queued.locator("#queue-text")).to_contain_text("Looking for players")
    _no_violations(queued, "queue")

    # Pages, scripts, the stylesheet, the icon and the API answers all carry the headers.
    checked = sum(_check_headers(p) for p in (alice, bob, watcher, queued))
    kinds = {
        r.headers.get("content-type", "").split(";")[0]
        for p in (alice, bob, watcher, queued)
        for r in p.responses  # type: ignore[attr-defined]
    }
    assert {"text/html", "text/javascript", "text/css", "application/json"} <= kinds, kinds
    assert checked > 20
