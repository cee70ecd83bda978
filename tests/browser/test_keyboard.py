"""A whole game played with the keyboard only: no mouse or pointer event reaches the page.
Kim creates the table, starts it and answers every decision from the keys: a bid at the maximum
(Space on "+" until it stops, then Enter: the bug was that Enter no longer submitted once "+" had
disabled itself), a Silver tie-break, a power decision, and "nothing" (Escape, Enter) otherwise. Two
other seats are played from the test over their own sockets; one of them mirrors Kim's bid once, so
that the tie-break comes for sure. Every focused control shows a visible focus ring. The game is
dealt from KEYBOARD_SEED (tests/deals.py plays this script offline): Kim's maximum bid wins a card
whose power asks her something, in a game of 109 versions."""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of, table_id_of
from tests.browser.helpers import Page, expect
from tests.browser.test_screens import ASKING

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTHING = {"type": "bid", "fairy_gold": 0, "common_gold": 0, "amulet": False, "black_magic": False}

# Counts the events a mouse, a pen or a finger would make; the test asserts none came.
COUNT_POINTER = """() => {
  window.__pointer = 0;
  for (const type of ["pointerdown", "mousedown", "mouseup", "touchstart", "auxclick", "contextmenu"]) {
    document.addEventListener(type, () => { window.__pointer += 1; }, true);
  }
}"""

FOCUS_RING = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  return {tag: el.tagName, outline: s.outlineStyle, width: parseFloat(s.outlineWidth), shadow: s.boxShadow};
}"""


def _post(server: Server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _assert_ring(page: Page) -> None:
    ring = page.evaluate(FOCUS_RING)
    assert ring is not None, "the focus fell to the page"
    assert ring["outline"] != "none" and ring["width"] >= 2, ring


class Plans:
    """Kim's k-th sealed bid and what the other two seats do in the same auction, in order."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def add(self, plan: dict[str, Any]) -> None:
        with self.lock:
            self.items.append(plan)

    def wait(self, k: int, timeout: float = 120) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.items) > k:
                    return self.items[k]
            time.sleep(0.02)
        raise TimeoutError(f"no plan for bid {k}")


def _follower(plans: Plans, role: str, seed: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    rng = random.Random(seed)
    count = [0]

    def bid(prompt: dict[str, Any]) -> dict[str, Any]:
        plan = plans.wait(count[0])
        count[0] += 1
        top = prompt["max"]
        if plan["kind"] == "tie" and role == "tess":
            value = plan["value"]  # the same value as Kim: a tie between the two
            fg = min(value, top.get("fairy_gold", 0))
            return {**NOTHING, "fairy_gold": fg, "common_gold": value - fg}
        if plan["kind"] == "free" and role == "rex":  # chance bids: the game moves towards its end
            return {
                **NOTHING,
                "fairy_gold": rng.randint(0, top.get("fairy_gold", 0)),
                "common_gold": rng.randint(0, top.get("common_gold", 0)),
            }
        return dict(NOTHING)

    return bid


def _answered(page: Page, panel: Any) -> None:
    """The decision was taken: the panel it was made in has left the page."""
    assert panel is not None
    page.wait_for_function("el => !el.isConnected", arg=panel, timeout=30_000)


def _tab_to(page: Page, selector: str, most: int = 4) -> None:
    """Tab until the control is focused, as a keyboard user does: a disabled control (a "+" or
    "-" at its limit) takes no focus, so how many presses it takes depends on the coins held."""
    target = page.locator(selector)
    for _ in range(most):
        page.keyboard.press("Tab")
        if target.evaluate("el => el === document.activeElement"):
            return
    raise AssertionError(f"{most} presses of Tab never reached {selector}")


def _space_until_disabled(page: Page, selector: str) -> int:
    """Space on a stepper's "+" until it disables itself; returns how many presses."""
    presses = 0
    button = page.locator(selector)
    while button.is_enabled():
        page.keyboard.press("Space")
        presses += 1
        assert presses <= 40
    return presses


@pytest.mark.game_seed(deals.KEYBOARD_SEED)
def test_a_whole_game_with_the_keyboard_only(server: Server, new_page: NewPage) -> None:
    kim = new_page("kim")
    frames: list[str] = []  # what Kim's page sent and heard, in short (said when a check fails)

    def heard(sent: bool, payload: Any) -> None:
        try:
            m = json.loads(payload)
        except (TypeError, ValueError):
            return
        if m.get("type") in ("state", "delta"):
            frames.append(f"{m['type']}{m.get('version')}")
        elif m.get("type") in ("action", "ack", "error"):
            frames.append(
                f"{'>' if sent else '<'}{m['type']}:{m.get('version', '')}:"
                f"{str(m.get('action_id', ''))[-4:]}:{m.get('code', '')}"
            )

    def listen(ws: Any) -> None:
        ws.on("framesent", lambda p: heard(True, p))
        ws.on("framereceived", lambda p: heard(False, p))

    kim.on("websocket", listen)
    kim.goto(server.url + "/")
    kim.evaluate(COUNT_POINTER)
    kim.get_by_label("Your name").press_sequentially("Kim")
    kim.get_by_role("button", name="Create the table").press("Enter")
    expect(kim.locator("#waiting-view")).to_be_visible()
    kim.evaluate(COUNT_POINTER)
    table_id = table_id_of(kim)
    tess = _post(server, f"/api/tables/{table_id}/join", {"name": "Tess"})
    rex = _post(server, f"/api/tables/{table_id}/join", {"name": "Rex"})
    start = kim.get_by_role("button", name="Start the game")
    expect(start).to_be_enabled()
    start.press("Enter")
    expect(kim.locator("#game-view")).to_be_visible()

    plans = Plans()
    errors: list[BaseException] = []

    def drive(token: str, role: str, seed: int) -> None:
        try:
            with SeatDriver(server, table_id, token) as driver:
                driver.play_until(lambda s: False, timeout=400, bid=_follower(plans, role, seed))
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=drive, args=(tess["token"], "tess", 1), daemon=True),
        threading.Thread(target=drive, args=(rex["token"], "rex", 2), daemon=True),
    ]
    for thread in threads:
        thread.start()

    done = {"max": False, "tie": False, "tiebreak": False, "choose": 0}
    area = kim.locator("#action-area")
    k = 0
    trail: list[str] = []  # each prompt answered: "version:kind" (said when the count is off)
    deadline = time.monotonic() + 400
    while True:
        assert time.monotonic() < deadline, done
        assert not errors, errors
        if kim.locator("#end-view .end-box").is_visible():
            break
        state = area.get_attribute("data-state")
        version = area.get_attribute("data-version")
        if state in ("bid", "tiebreak", "choose"):
            error = kim.locator("#action-area .form-error")
            trail.append(
                f"{version}:{state}" + (f"!{error.text_content()}" if error.count() else "")
            )
        panel = (
            kim.locator("#action-area > :first-child").element_handle()
            if state in ("bid", "tiebreak", "choose")
            else None
        )
        if state == "bid":
            character = kim.get_attribute("#action-area [data-prompt=bid]", "data-character") or ""
            fairy_max = int(kim.get_attribute("#action-area [data-stepper=fairy_gold]", "max") or 0)
            common_max = int(
                kim.get_attribute("#action-area [data-stepper=common_gold]", "max") or 0
            )
            expect(kim.locator("#action-area [data-stepper=fairy_gold]")).to_be_focused()
            _assert_ring(kim)
            if not done["tie"] and character not in ASKING and (common_max or fairy_max):
                # One coin; Tess bids the same value and Rex nothing: a tie-break between the two.
                plans.add({"kind": "tie", "value": 1})
                kind = "common_gold" if common_max else "fairy_gold"
                # From the fairy field: its "+", then the common field and its "+" (a "-" at 0
                # and a "+" at a max of 0 are disabled and skipped).
                _tab_to(kim, f"#action-area [data-more={kind}]")
                expect(kim.locator(f"#action-area [data-more={kind}]")).to_be_focused()
                _assert_ring(kim)
                kim.keyboard.press("Space")
                kim.keyboard.press("Enter")
                done["tie"] = True
            elif character in ASKING and not done["choose"] and (fairy_max or common_max):
                # Everything of one coin on a card that asks its winner something (again until a
                # decision came: some powers ask nothing when there is nothing to take; with
                # this seed the first such bid brings one).
                plans.add({"kind": "max"})
                kind = "fairy_gold" if fairy_max else "common_gold"
                _tab_to(kim, f"#action-area [data-more={kind}]")
                expect(kim.locator(f"#action-area [data-more={kind}]")).to_be_focused()
                presses = _space_until_disabled(kim, f"#action-area [data-more={kind}]")
                top = fairy_max if kind == "fairy_gold" else common_max
                assert presses == top
                # "+" disabled itself: the focus is on the field, and Enter still submits.
                expect(kim.locator(f"#action-area [data-stepper={kind}]")).to_be_focused()
                _assert_ring(kim)
                expect(kim.locator(f"#action-area [data-stepper={kind}]")).to_have_value(str(top))
                kim.keyboard.press("Enter")
                if kind == "fairy_gold" and not done["max"]:
                    done["max"] = fairy_max
            else:
                plans.add({"kind": "free"})
                kim.keyboard.press("Escape")
                kim.keyboard.press("Enter")
            k += 1
            _answered(kim, panel)
        elif state == "tiebreak":
            expect(kim.locator("#action-area [data-stepper=silver]")).to_be_focused()
            if kim.locator("#action-area [data-more=silver]").is_enabled():
                _tab_to(kim, "#action-area [data-more=silver]", most=1)
                expect(kim.locator("#action-area [data-more=silver]")).to_be_focused()
                _assert_ring(kim)
                kim.keyboard.press("Space")
            kim.keyboard.press("Enter")
            done["tiebreak"] = True
            _answered(kim, panel)
        elif state == "choose":
            first = kim.locator("#action-area .option-btn").first
            expect(first).to_be_focused()
            _assert_ring(kim)
            key = "Enter" if done["choose"] % 2 == 0 else "1"  # the focused option, or its digit
            kim.keyboard.press(key)
            done["choose"] += 1
            _answered(kim, panel)
        else:
            kim.wait_for_timeout(100)

    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert done["max"] and done["tie"] and done["tiebreak"] and done["choose"] >= 1, done
    expected = deals.keyboard(deals.KEYBOARD_SEED)[1]
    assert done == expected, (
        f"{done} {expected} {' '.join(trail)} || {' '.join(frames)}"
    )  # the game the seed deals
    expect(kim.locator("#log li[data-type=timed_out]")).to_have_count(0)  # Kim answered everything
    assert kim.evaluate("() => window.__pointer") == 0
    expect(kim.locator("#log")).to_contain_text(f"Kim: {done['max']} Fairy Gold")
    assert seat_of(kim, table_id)["name"] == "Kim"
