"""A whole game played by three people in three browsers, watched by a fourth.

Everything goes through the pages: the test reads the DOM and clicks and types like a person; it
never calls the API. The players follow a simple script that ends the game quickly (Alice bids on
the characters that give stones or points, Bob on the ones that give coins, Carol mostly watches)
and that provokes a Silver tie-break on the first Witch. The game is dealt from FULL_GAME_SEED
(tests/deals.py plays this script offline): 57 versions, the first Witch's tie-break and one
more, seven power decisions.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.table.changes import apply
from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import Page, create_table, expect, join_by_invite

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCORING = {
    "magician",
    "wizard",
    "sorcerer",
    "enchantress",
    "sorcerers_apprentice",
    "quack_wizard",
    "necromancer",
}
STONES = {
    "red_dragon",
    "blue_dragon",
    "yellow_dragon",
    "thief",
    "ancient_dragon",
    "two_headed_dragon",
}
ALICE_ALSO = {"ghost", "imp", "goblin", "merchant", "doppelganger"}
BOB_WANTS = {
    "alchemist",
    "fairy",
    "gnome",
    "dwarf_4",
    "dwarf_5",
    "goldsmith",
    "brigand",
    "troll",
    "rainbow_dragon",
}
GOOD_COPIES = [
    "quack_wizard",
    "magician",
    "wizard",
    "sorcerer",
    "enchantress",
    "sorcerers_apprentice",
    "necromancer",
]
PRIVATE_WORDS = ["Behind your screen", "Derrière votre écran"]


@dataclass
class Player:
    name: str
    page: Page
    seat: int = -1
    merchant_buys: int = 0
    stats: dict[str, int] = field(default_factory=lambda: {"bid": 0, "tiebreak": 0, "choose": 0})


def state_of(page: Page) -> str:
    return page.get_attribute("#action-area", "data-state") or ""


def stepper_max(page: Page, kind: str) -> int:
    return int(page.get_attribute(f"#action-area [data-stepper={kind}]", "max") or 0)


def set_stepper(page: Page, kind: str, n: int) -> None:
    """Small amounts by clicking +, larger ones by typing, as a person would."""
    if n <= 3:
        for _ in range(n):
            page.click(f"#action-area [data-more={kind}]")
    else:
        page.fill(f"#action-area [data-stepper={kind}]", str(n))
    expect(page.locator(f"#action-area [data-stepper={kind}]")).to_have_value(str(n))


def assert_spectator_sees_no_coins(page: Page) -> None:
    """The public page has no field for coins behind a screen, nor any bid form."""
    assert page.locator("#me-area").is_hidden()
    assert page.locator("#me-area > *").count() == 0
    assert page.locator("[data-private]").count() == 0
    assert page.locator("#action-area [data-stepper], #action-area [data-option-id]").count() == 0
    text = page.inner_text("body")
    for word in PRIVATE_WORDS:
        assert word not in text


def bid_amount(
    p: Player, character: str, witch_tie_done: bool, fg: int, cg: int
) -> tuple[int, int]:
    """The script: how much Fairy Gold and Common Gold this player bids."""
    if character == "witch":
        if not witch_tie_done and p.name in ("Bob", "Carol"):
            return (1, 0) if fg else (0, 1)  # the same value: a tie-break between them
        return 0, 0
    wants = (p.name == "Alice" and character in SCORING | STONES | ALICE_ALSO) or (
        p.name == "Bob" and character in BOB_WANTS
    )
    if not wants:
        return 0, 0
    if fg:
        return 1, 0
    return (0, 1) if cg else (0, 0)


def choose_option(p: Player, character: str, step: str, ids: list[str]) -> str:
    if step == "option":
        return "pay" if "pay" in ids else ids[0]
    if step == "play_doppelganger":
        return "play" if "play" in ids else ids[0]
    if step == "use":
        return "use" if "use" in ids else ids[0]
    if step == "draw":
        return "stop" if "stop" in ids else ids[0]
    if step == "buy":
        buys = [i for i in ids if i != "done"]
        if buys and p.merchant_buys < 1:
            p.merchant_buys += 1
            return buys[0]
        p.merchant_buys = 0
        return "done" if "done" in ids else ids[0]
    if step == "card":
        for card in GOOD_COPIES:
            if card in ids:
                return card
    return ids[0]


@pytest.mark.game_seed(deals.FULL_GAME_SEED)
def test_three_friends_play_a_whole_game_in_the_browser(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    alice = Player("Alice", new_page("alice"))
    bob = Player("Bob", new_page("bob"))
    # Carol plays on a phone, in French.
    carol = Player(
        "Carol",
        new_page("carol", viewport={"width": 390, "height": 844}, is_mobile=True, locale="fr-FR"),
    )
    players = [alice, bob, carol]

    invite, watch = create_table(alice.page, server, "Alice")

    # Bob looks at the lobby first: the new table is listed there, with a Watch link.
    bob.page.goto(server.url + "/")
    expect(bob.page.locator("#open-tables .table-row")).to_have_count(1)
    expect(bob.page.locator("#open-tables")).to_contain_text("Alice")
    bob.page.get_by_label("Your name").fill("Bob")
    bob.page.screenshot(path=str(artifacts / "lobby.png"), animations="disabled")

    join_by_invite(bob.page, invite, "Bob")
    join_by_invite(carol.page, invite, "Carol")

    spectator = new_page("spectator", viewport={"width": 1280, "height": 860})
    # Everything the spectator's browser receives is kept, to check that no coin count arrives.
    frames: list[str] = []
    spectator.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, str) else payload.decode()
            ),
        ),
    )
    spectator.goto(watch)
    expect(spectator.locator("#waiting-view")).to_be_visible()
    expect(spectator.locator("#waiting-actions")).to_be_hidden()

    expect(alice.page.locator("#waiting-seats li:not(.empty)")).to_have_count(3)
    alice.page.get_by_role("button", name="Start the game").click()
    for p in players:
        expect(p.page.locator("#game-view")).to_be_visible()
        p.seat = int(p.page.get_attribute(".seat.me", "data-seat") or -1)
    assert [p.seat for p in players] == [0, 1, 2]
    expect(spectator.locator("#game-view")).to_be_visible()
    expect(spectator.locator(".seat.me")).to_have_count(0)

    shots: set[str] = set()
    witch_tie_done = False
    bob_cursed = False
    auctions: set[str] = set()
    deadline = time.monotonic() + 240
    checks = 0

    while True:
        assert time.monotonic() < deadline, (
            f"the game did not end in time ({len(auctions)} auctions)"
        )
        if alice.page.locator("#end-view").is_visible():
            break
        acted = False
        for p in players:
            page = p.page
            state = state_of(page)
            if state == "bid":
                form = page.locator("#action-area [data-prompt=bid]")
                character = form.get_attribute("data-character") or ""
                turn_auction = page.get_attribute("#auction-area", "data-key") or ""
                auctions.add(turn_auction)
                fg, cg = bid_amount(
                    p,
                    character,
                    witch_tie_done,
                    stepper_max(page, "fairy_gold"),
                    stepper_max(page, "common_gold"),
                )
                if fg == 0 and cg == 0 and not (p.name == "Bob" and not bob_cursed):
                    page.click("#action-area [data-bid-nothing]")
                else:
                    set_stepper(page, "fairy_gold", fg)
                    set_stepper(page, "common_gold", cg)
                    curse = page.locator("#action-area [data-toggle=black_magic]")
                    if p.name == "Bob" and not bob_cursed and curse.count() and character in STONES:
                        curse.check()  # Bob uses the Witch's coin on a stone card
                        bob_cursed = True
                    if "bid" not in shots and p is alice and character != "witch":
                        set_stepper(page, "common_gold", 0)
                        page.screenshot(path=str(artifacts / "bid.png"), animations="disabled")
                        shots.add("bid")
                    if "phone" not in shots and p is carol:
                        page.screenshot(path=str(artifacts / "phone.png"), animations="disabled")
                        page.screenshot(
                            path=str(artifacts / "phone-table.png"),
                            animations="disabled",
                            full_page=True,
                        )
                        shots.add("phone")
                    page.click("#action-area [data-submit-bid]")
                p.stats["bid"] += 1
                acted = True
            elif state == "tiebreak":
                form = page.locator("#action-area [data-prompt=tiebreak]")
                character = form.get_attribute("data-character") or ""
                silver = 2 if p.name in ("Bob", "Alice") else 1
                silver = min(silver, stepper_max(page, "silver"))
                if "tiebreak" not in shots:
                    # The other tied player and the onlookers see who is bidding, not how much.
                    if p is not alice:
                        expect(alice.page.locator("#action-area")).to_contain_text(
                            "Tie-break between"
                        )
                    page.screenshot(path=str(artifacts / "tiebreak.png"), animations="disabled")
                    shots.add("tiebreak")
                set_stepper(page, "silver", silver)
                page.click("#action-area [data-submit-tiebreak]")
                if character == "witch":
                    witch_tie_done = True
                p.stats["tiebreak"] += 1
                acted = True
            elif state == "choose":
                box = page.locator("#action-area [data-prompt=choose]")
                character = box.get_attribute("data-character") or ""
                step = box.get_attribute("data-step") or ""
                ids = page.eval_on_selector_all(
                    "#action-area [data-option-id]", "els => els.map(e => e.dataset.optionId)"
                )
                assert ids, "a choose prompt with no option"
                question = page.inner_text("#prompt-question")
                assert question.strip(), "a choose prompt without its question"
                if "power" not in shots:
                    page.screenshot(path=str(artifacts / "power.png"), animations="disabled")
                    shots.add("power")
                if f"{character}.{step}" not in shots:
                    # One picture of each kind of decision met, for people to look at.
                    (artifacts / "prompts").mkdir(exist_ok=True)
                    page.locator("#action-area").screenshot(
                        path=str(artifacts / "prompts" / f"{character}.{step}.png"),
                        animations="disabled",
                    )
                    shots.add(f"{character}.{step}")
                choice = choose_option(p, character, step, ids)
                page.click(f"#action-area [data-option-id='{choice}']")
                p.stats["choose"] += 1
                acted = True
            if state and state in ("bid", "tiebreak", "choose"):
                # The answer is taken: the panel leaves that prompt (sent, or the next one).
                page.wait_for_function(
                    "([s]) => document.querySelector('#action-area').dataset.state !== 'pending'",
                    arg=[state],
                )
        if checks % 5 == 0:
            assert_spectator_sees_no_coins(spectator)
            if "spectator" not in shots and len(auctions) >= 4:
                spectator.screenshot(path=str(artifacts / "spectator.png"), animations="disabled")
                shots.add("spectator")
        checks += 1
        if not acted:
            alice.page.wait_for_timeout(40)

    # The end of the game, on every page.
    for p in players:
        expect(p.page.locator("#end-view")).to_be_visible()
    expect(spectator.locator("#end-view")).to_be_visible()
    winner_text = alice.page.inner_text("#end-view .winner-name")
    winner_seat = int(alice.page.get_attribute("#end-view .winner-name", "data-winner") or -1)
    assert winner_seat in (0, 1, 2)
    score = int(
        spectator.get_attribute(f".seat[data-seat='{winner_seat}'] .score-die", "data-score") or 0
    )
    assert score >= 3
    assert players[winner_seat].name in winner_text or winner_text == "You win!"
    alice.page.screenshot(path=str(artifacts / "end.png"), animations="disabled")
    assert_spectator_sees_no_coins(spectator)

    # The replay record is one click away.
    with spectator.expect_popup() as popup_info:
        spectator.click("#replay-link")
    record_page = popup_info.value
    record_page.wait_for_load_state()
    record = json.loads(record_page.inner_text("body"))
    assert record["winner"] == winner_seat
    assert len(record["actions"]) > 0

    # The page takes deltas: each one applied to the state before gives the state it stands for.
    states: list[dict[str, Any]] = []
    for m in map(json.loads, frames):
        if m.get("type") == "state":
            states.append(m)
        elif m.get("type") == "delta":
            assert states and m["base"] == states[-1]["version"], "a delta out of turn"
            doc = apply(
                {"view": states[-1]["view"], "prompts": states[-1]["prompts"]}, m["changes"]
            )
            states.append({**m, **doc})
    assert len(states) > 20
    for m in states:
        assert m["view"]["me"] is None
        for prompt in m["prompts"]:
            assert set(prompt) <= {"seat", "kind", "character", "step"}, prompt

    total = {k: sum(p.stats[k] for p in players) for k in ("bid", "tiebreak", "choose")}
    assert total["tiebreak"] >= 2, total
    assert total["choose"] >= 3, total
    # The very game the seed deals: this script, played offline, gives the same.
    dealt, expected = deals.full_game(deals.FULL_GAME_SEED)
    assert (total, record["version"]) == (expected, len(dealt.steps))
    assert {"bid", "tiebreak", "power", "phone"} <= shots, shots
    assert len(auctions) >= 3
