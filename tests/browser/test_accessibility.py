"""Accessibility: axe-core (axe-playwright-python) on the lobby, the waiting
room, the table with each kind of decision (a sealed bid, a Silver tie-break, a power), the game-over
view and the replay page, in English and in French, at desktop and phone widths. No serious or
critical violation is allowed; the lesser ones are printed with their counts. The game is dealt
from ACCESSIBILITY_SEED (tests/deals.py plays Kim's script offline): Kim meets a tie-break, then a
power decision."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections import Counter
from typing import Any

import pytest

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, State, seat_of, table_id_of
from tests.browser.helpers import Page, create_table, expect
from tests.browser.test_keyboard import NOTHING, Plans, _follower
from tests.browser.test_screens import ASKING, DEVICES, mine

try:
    from axe_playwright_python.sync_playwright import Axe

    AXE: Any = Axe()
except ImportError:  # pragma: no cover - the dev dependencies hold it
    AXE = None

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OPTIONS = {
    "runOnly": {
        "type": "tag",
        "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
    "resultTypes": ["violations"],
}


class Audit:
    def __init__(self) -> None:
        self.grave: list[str] = []
        self.lesser: Counter[str] = Counter()
        self.runs = 0

    def run(self, page: Page, state: str) -> None:
        """Every width and language of the page as it is now."""
        for device, size in DEVICES.items():
            page.set_viewport_size(size)
            for lang in ("en", "fr"):
                page.locator(f"[data-lang-button={lang}]").press("Enter")
                expect(page.locator("html")).to_have_attribute("lang", lang)
                results = AXE.run(page, options=OPTIONS)
                self.runs += 1
                for v in results.response["violations"]:
                    where = f"{state}/{device}/{lang}"
                    if v["impact"] in ("serious", "critical"):
                        targets = [n["target"] for n in v["nodes"]][:5]
                        self.grave.append(
                            f"{where}: {v['id']} ({v['impact']}) {v['help']} {targets}"
                        )
                    else:
                        self.lesser[f"{v['id']} ({v['impact']})"] += len(v["nodes"])
        page.set_viewport_size(DEVICES["desktop"])
        page.locator("[data-lang-button=en]").press("Enter")


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


def _play(server: Server, kim: Page, audit: Audit, seen: set[str]) -> None:
    """The game: Kim at the page, Tess and Rex joined over the API. Audits the waiting room, the
    sealed bid, Kim's first tie-break and her first power decision after it."""
    create_table(kim, server, "Kim")
    table_id = table_id_of(kim)
    tess = _post(server, f"/api/tables/{table_id}/join", {"name": "Tess"})
    audit.run(kim, "waiting-room")
    rex = _post(server, f"/api/tables/{table_id}/join", {"name": "Rex"})
    kim.get_by_role("button", name="Start the game").click()
    expect(kim.locator("#action-area")).to_have_attribute("data-state", "bid")
    audit.run(kim, "bid")

    # Kim's seat is played from the test (a second socket): one coin on the first card that asks
    # nothing, which Tess matches (a tie-break), then everything on cards that ask something.
    plans = Plans()
    errors: list[BaseException] = []

    def follow(token: str, role: str, seed: int) -> None:
        try:
            with SeatDriver(server, table_id, token) as driver:
                driver.play_until(lambda s: False, timeout=400, bid=_follower(plans, role, seed))
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=follow, args=(tess["token"], "tess", 1), daemon=True),
        threading.Thread(target=follow, args=(rex["token"], "rex", 2), daemon=True),
    ]
    for thread in threads:
        thread.start()
    tie = {"done": False}

    def kim_bids(prompt: dict[str, Any]) -> dict[str, Any]:
        top = prompt["max"]
        coins = top.get("fairy_gold", 0) + top.get("common_gold", 0)
        if not tie["done"] and prompt["character"] not in ASKING and coins:
            tie["done"] = True
            plans.add({"kind": "tie", "value": 1})
            fg = min(1, top.get("fairy_gold", 0))
            return {**NOTHING, "fairy_gold": fg, "common_gold": 1 - fg}
        if prompt["character"] in ASKING and coins:
            plans.add({"kind": "max"})
            return {
                **NOTHING,
                "fairy_gold": top.get("fairy_gold", 0),
                "common_gold": top.get("common_gold", 0),
            }
        plans.add({"kind": "free"})
        return dict(NOTHING)

    kim_seat = seat_of(kim, table_id)
    with SeatDriver(server, table_id, kim_seat["token"]) as driver:

        def at(kind: str) -> Any:
            return lambda s: kind not in seen and mine(s, kim_seat["seat"], kind)

        for kind in ("tiebreak", "choose"):
            state: State = driver.play_until(at(kind), timeout=300, bid=kim_bids)
            assert mine(state, kim_seat["seat"], kind), f"the seed dealt Kim no {kind}"
            expect(kim.locator("#action-area")).to_have_attribute(
                "data-state", kind, timeout=30_000
            )
            audit.run(kim, kind)
            seen.add(kind)
        driver.play_until(lambda s: False, timeout=300, bid=kim_bids)
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    expect(kim.locator("#end-view .end-box")).to_be_visible(timeout=60_000)


@pytest.mark.game_seed(deals.ACCESSIBILITY_SEED)
def test_axe_finds_no_serious_or_critical_violation(server: Server, new_page: NewPage) -> None:
    assert AXE is not None, "pip install axe-playwright-python (a dev dependency)"
    audit = Audit()
    kim = new_page("kim", viewport=DEVICES["desktop"])
    kim.goto(server.url + "/")
    audit.run(kim, "lobby")
    seen: set[str] = set()
    _play(server, kim, audit, seen)
    audit.run(kim, "game-over")
    kim.click("#replay-page-link")
    expect(kim.locator("#proof-status")).to_have_attribute("data-verified", "yes")
    audit.run(kim, "replay")
    assert seen == {"tiebreak", "choose"}, seen

    print(
        f"\naxe-core: {audit.runs} runs; lesser violations (nodes): "
        + (", ".join(f"{k}: {n}" for k, n in sorted(audit.lesser.items())) or "none")
    )
    assert audit.runs == 7 * 4
    assert not audit.grave, "\n".join(audit.grave)
