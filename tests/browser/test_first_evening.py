"""What a first evening of play showed: each of these failed before its fix."""

from __future__ import annotations

import pytest

from tests import deals
from tests.browser.conftest import NewPage, Server
from tests.browser.driver import SeatDriver, seat_of, table_id_of
from tests.browser.helpers import Page, create_table, expect, start_three_player_game

pytestmark = pytest.mark.browser

LONG_NAME = "Wolfgang Amadeus Mozart Salzburg"  # 32 characters, the most the name field takes
PHONE = {"width": 390, "height": 844}

# Elements whose right edge passes the screen's, whatever the page's overflow settings.
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
    const r = el.getBoundingClientRect();
    if (r.width && r.right > width + 0.5) out.push(`${el.tagName}.${el.className} ${Math.round(r.right)}`);
  }
  return {scroll: document.documentElement.scrollWidth, width, out: out.slice(0, 12)};
}"""


def assert_fits(page: Page, where: str) -> None:
    found = page.evaluate(OVERFLOW_JS)
    assert found["scroll"] <= PHONE["width"] and not found["out"], f"{where}: {found}"


def test_a_language_button_on_the_join_form_keeps_the_form(
    server: Server, new_page: NewPage
) -> None:
    alice, bob = new_page("alice"), new_page("bob")
    invite, _ = create_table(alice, server, "Alice")
    bob.goto(invite)
    expect(bob.locator("#join-view")).to_be_visible()
    for lang, label in (("fr", "Français"), ("en", "English")):
        bob.get_by_role("button", name=label).click()
        expect(bob.locator("html")).to_have_attribute("lang", lang)
        expect(bob.locator("#join-form")).to_be_visible()
        expect(bob.locator("#waiting-view")).to_be_hidden()
    bob.fill("#join-name", "Bob")
    bob.get_by_role("button", name="Sit down").click()
    expect(bob.locator("#waiting-seats li:not(.empty)")).to_have_count(2)


def test_a_tie_break_in_progress_is_not_listed_as_no_winner(
    server: Server, new_page: NewPage
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    start_three_player_game(server, alice, bob, carol)
    for page in (alice, bob):
        page.click("#action-area [data-more=fairy_gold]")
        page.get_by_role("button", name="Submit bid").click()
    carol.get_by_role("button", name="Bid nothing").click()
    expect(carol.locator("#action-area")).to_contain_text("Tie-break between")
    played = carol.locator("#turn-area .played")
    expect(played).to_have_count(1)
    expect(played).to_contain_text("tie-break")
    expect(played).not_to_contain_text("no winner")
    # Once the tie-break is played and nobody wins, it says so.
    for page in (alice, bob):
        page.get_by_role("button", name="Bid nothing").click()
    expect(played).to_contain_text("no winner")


def test_a_long_name_fits_a_phone_screen(server: Server, new_page: NewPage) -> None:
    page = new_page("phone", viewport=PHONE, is_mobile=True)
    create_table(page, server, LONG_NAME)
    for seated in (2, 3):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    assert_fits(page, "waiting room")
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#action-area")).to_have_attribute("data-state", "bid")
    assert_fits(page, "table")
    table_id = table_id_of(page)
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_to_the_end()
    expect(page.locator("#end-view .end-box")).to_be_visible(timeout=30_000)
    assert_fits(page, "game over")
    # The points of every player are on the screen, beside the stones.
    for box in page.locator("#end-view .end-scores li").all():
        points = box.locator(".points").bounding_box()
        stones = box.locator(".stones").bounding_box()
        assert points and stones and points["x"] + points["width"] <= PHONE["width"]
        assert stones["height"] < 40, "the stones stack in a column"


@pytest.mark.game_seed(deals.PLURALS_SEED)  # the game is not over before one card is left
def test_plurals_go_through_one_rule_per_language(server: Server, new_page: NewPage) -> None:
    page = new_page("alice")
    create_table(page, server, "Alice")
    for seated in (2, 3):
        page.get_by_role("button", name="Add a bot").click()
        expect(page.locator("#waiting-seats li:not(.empty)")).to_have_count(seated)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#auction-area .pile-info")).to_have_text("9 cards left")
    table_id = table_id_of(page)
    with SeatDriver(server, table_id, seat_of(page, table_id)["token"]) as driver:
        driver.play_until(lambda s: s["view"]["pile_count"] == 1 and s["view"]["phase"] == "bid")
    expect(page.locator("#auction-area .pile-info")).to_have_text("1 card left")
    page.get_by_role("button", name="Français").click()
    expect(page.locator("#auction-area .pile-info")).to_have_text("1 carte restante")
