"""Games that keep moving, at the default settings: a friend closes the page; within the
default grace period the others' log and his seat say so in words, a bot plays for him, and the
game goes on; he comes back through the same link and has his seat again; the game finishes.
Quick play seats a person at a public table that waits for players."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ROOT, ConsoleWatch, NewPage, Server
from tests.browser.driver import SeatDriver, State, seat_of, table_id_of
from tests.browser.helpers import advance_clock, create_table, expect, join_by_invite

# The server's defaults (app/core/config.py, app/table/standin.py), which this test does not change.
DEFAULT_GRACE = 30


def _random_bids(seed: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Sealed bids of chance (three seats that all bid nothing would never end the game)."""
    rng = random.Random(seed)

    def bid(prompt: dict[str, Any]) -> dict[str, Any]:
        top = prompt["max"]
        return {
            "type": "bid",
            "fairy_gold": rng.randint(0, top.get("fairy_gold", 0)),
            "common_gold": rng.randint(0, top.get("common_gold", 0)),
            "amulet": False,
            "black_magic": False,
        }

    return bid


def _drive(
    server: Server,
    table_id: str,
    token: str,
    done: Callable[[State], bool],
    errors: list[BaseException],
    seed: int | None = None,
) -> threading.Thread:
    def play() -> None:
        try:
            with SeatDriver(server, table_id, token) as driver:
                driver.play_until(
                    done, timeout=240, bid=None if seed is None else _random_bids(seed)
                )
        except BaseException as exc:  # reported by the test
            errors.append(exc)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    return thread


def _join(threads: list[threading.Thread], errors: list[BaseException]) -> None:
    for thread in threads:
        thread.join(timeout=260)
    assert not errors, errors


def _stand_ins(server: Server, table_id: str) -> list[bool]:
    with urllib.request.urlopen(f"{server.url}/api/tables/{table_id}", timeout=10) as r:
        return [p["stand_in"] for p in json.load(r)["players"]]


# The grace is passed by moving the server's clock (TEST_CLOCK), not waited for.
@pytest.mark.server_env(TEST_CLOCK="0")
def test_a_friend_who_closes_the_page_is_named_replaced_by_a_bot_and_gets_the_seat_back(
    server: Server, new_page: NewPage, console: ConsoleWatch, artifacts: Path
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    invite, _ = create_table(alice, server, "Alice")
    # The defaults are said in the waiting room, and the host may turn them off (settings).
    hint = alice.locator("#timer-hint")
    expect(hint).to_contain_text("Time to bid: 45 s")
    expect(hint).to_contain_text("Time for a power decision: 1 min")
    expect(hint).to_contain_text("A player away for 30 s gets a bot in their place")
    alice.locator("#table-settings summary").click()
    expect(alice.locator("#settings-timer")).to_have_value("45")
    expect(alice.locator("#settings-timer option[value='']")).to_have_count(1)  # "No limit"
    alice.locator("#table-settings summary").click()
    join_by_invite(bob, invite, "Bob")
    join_by_invite(carol, invite, "Carol")
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.get_by_role("button", name="Start the game").click()
    for page in (alice, bob, carol):
        expect(page.locator("#game-view")).to_be_visible()
    table_id = table_id_of(alice)
    bob_seat = seat_of(bob, table_id)["seat"]

    # Alice and Carol play (from the test, as a second tab would) until turn 2; Bob closes his
    # page at once. His page's socket closing may be logged by the browser: not an error here.
    errors: list[BaseException] = []
    first = [
        _drive(
            server,
            table_id,
            seat_of(p, table_id)["token"],
            lambda s: s["view"]["turn"] >= 2,
            errors,
        )
        for p in (alice, carol)
    ]
    bob_context = bob.context
    bob.close()
    closed_at = time.monotonic()

    # Within seconds, and well within the grace: his seat and the log say it in words.
    away = alice.locator(f"#seats [data-away-seat='{bob_seat}']")
    expect(away).to_be_visible(timeout=DEFAULT_GRACE * 1000)
    expect(away).to_have_text(
        re.compile(r"^Bob left the table — a bot will play for them in 0:[0-2]\d$"),
        timeout=DEFAULT_GRACE * 1000,
    )
    notice = alice.locator("#log li.notice[data-notice=away]")
    expect(notice).to_have_text(
        re.compile(r"^Bob left the table — a bot will play for them in 0:[0-2]\d\.$")
    )
    expect(carol.locator("#log li.notice[data-notice=away]")).to_have_count(1)
    assert time.monotonic() - closed_at < DEFAULT_GRACE
    alice.screenshot(path=str(artifacts / "away.png"), animations="disabled")
    # The README's picture of a game in progress (taken here; copied into docs/ on demand).
    if os.environ.get("UPDATE_README_SCREENSHOT"):
        shutil.copy(artifacts / "away.png", ROOT / "docs" / "screenshot.png")

    # Five seconds before the grace ends (counted from before the server saw the page close),
    # nobody stands in for him yet; once it has passed, a bot plays for him: the log and the
    # seat say so. (Moved from the moment of the close, the clock stays well within the
    # 45 s to bid: the time limit never runs out for him.)
    early = DEFAULT_GRACE - 5 - (time.monotonic() - closed_at)
    if early > 0:  # (on a machine so busy that it took 25 s to get here, real time did it)
        advance_clock(server, early)
        assert _stand_ins(server, table_id) == [False, False, False]
    advance_clock(server, 6)
    stand_in = alice.locator("#log li.notice[data-notice=stand_in]")
    expect(stand_in).to_have_text("Bob stayed away: a bot plays for Bob until they come back.")
    expect(alice.locator(f"#seats [data-stand-in='{bob_seat}']")).to_have_text(
        "bot playing for Bob"
    )
    expect(away).to_have_count(0)
    # The game moves on: the bot bids for him, turn 2 comes (the clock never had to).
    _join(first, errors)
    expect(alice.locator("#log li[data-type=timed_out]")).to_have_count(0)

    # Bob comes back through the same link: the seat is his again.
    bob = bob_context.new_page()
    console.watch(bob, "bob, back")
    bob.goto(invite)
    expect(bob.locator("#game-view")).to_be_visible()
    expect(bob.locator("#standin-note[data-state=back]")).to_be_visible(timeout=20_000)
    expect(alice.locator("#log li.notice[data-notice=back]")).to_have_text(
        "Bob is back and plays again."
    )
    expect(alice.locator(f"#seats [data-stand-in='{bob_seat}']")).to_have_count(0)
    expect(bob.locator(".seat.me")).to_have_attribute("data-seat", str(bob_seat))

    # The three play it to the end.
    rest = [
        _drive(server, table_id, seat_of(p, table_id)["token"], lambda s: False, errors, seed)
        for seed, p in enumerate((alice, bob, carol))
    ]
    _join(rest, errors)
    for page in (alice, bob, carol):
        expect(page.locator("#end-view")).to_be_visible(timeout=60_000)
    expect(alice.locator("#log li[data-type=timed_out]")).to_have_count(0)


def test_quick_play_seats_a_person_at_a_public_table_waiting_for_a_third(
    server: Server, new_page: NewPage
) -> None:
    alice, bob, dora = new_page("alice"), new_page("bob"), new_page("dora")
    invite, _ = create_table(alice, server, "Alice")  # public: listed in the lobby
    join_by_invite(bob, invite, "Bob")
    expect(alice.locator("#waiting-seats li:not(.empty)")).to_have_count(2)
    table_id = table_id_of(alice)
    dora.goto(server.url + "/")
    dora.get_by_label("Your name").fill("Dora")
    dora.locator("#queue-size").select_option("3")
    dora.get_by_role("button", name="Quick play").click()
    dora.wait_for_url(f"**/t/{table_id}")
    expect(dora.locator("#waiting-view")).to_be_visible()
    for page in (alice, bob, dora):
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    expect(alice.locator("#waiting-seats")).to_contain_text("Dora")
    assert seat_of(dora, table_id)["seat"] == 2
    # She never waited in the queue: the lobby's queue panel was not shown.
    assert dora.evaluate("() => window.sessionStorage.getItem('dragonstones.queue')") is None
