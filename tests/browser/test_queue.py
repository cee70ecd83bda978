"""Quick play through the matchmaking queue, in real browsers: two people press Quick play, see
"Looking for players…", and meet at the same table when a third player arrives; someone who
cancels is never seated; a page reload keeps the place in the queue."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import advance_clock, expect

pytestmark = pytest.mark.browser


def _queue_by_api(server: Server, name: str, size: int | str) -> dict[str, object]:
    body = json.dumps({"name": name, "size": size}).encode()
    request = urllib.request.Request(
        server.url + "/api/queue", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        return dict(json.loads(r.read()))


def _quick_play(page: object, server: Server, name: str, size: str = "any") -> None:
    page.goto(server.url + "/")  # type: ignore[attr-defined]
    page.get_by_label("Your name").fill(name)  # type: ignore[attr-defined]
    page.locator("#queue-size").select_option(size)  # type: ignore[attr-defined]
    page.get_by_role("button", name="Quick play").click()  # type: ignore[attr-defined]


def test_two_browsers_press_quick_play_and_meet_at_one_table(
    server: Server, new_page: NewPage, artifacts: Path
) -> None:
    alice, bob, carol = new_page("alice"), new_page("bob"), new_page("carol")
    _quick_play(alice, server, "Alice")
    expect(alice.locator("#queue-text")).to_have_text(
        "Looking for players… (1 waiting, for a table of 3 to 6)"
    )
    expect(alice.get_by_role("button", name="Cancel")).to_be_visible()
    expect(alice.get_by_role("button", name="Play with bots now")).to_be_hidden()
    expect(alice.locator("#queue-bots-hint")).to_contain_text("You may play with bots in")

    _quick_play(bob, server, "Bob")
    expect(bob.locator("#queue-text")).to_have_text(
        "Looking for players… (2 waiting, for a table of 3 to 6)"
    )
    expect(alice.locator("#queue-text")).to_have_text(
        "Looking for players… (2 waiting, for a table of 3 to 6)"
    )
    alice.locator("#queue-panel").screenshot(
        path=str(artifacts / "queue.png"), animations="disabled"
    )

    # Carol, who wants five players, changes her mind: she is never seated.
    _quick_play(carol, server, "Carol", "5")
    expect(carol.locator("#queue-text")).to_have_text("Looking for players… (3 of 5)")
    carol.get_by_role("button", name="Cancel").click()
    expect(carol.locator("#queue-note")).to_have_text("You left the queue.")
    expect(carol.get_by_role("button", name="Quick play")).to_be_visible()
    expect(alice.locator("#queue-text")).to_have_text(
        "Looking for players… (2 waiting, for a table of 3 to 6)"
    )

    # Bob reloads the page: still in the queue.
    bob.reload()
    expect(bob.locator("#queue-text")).to_have_text(
        "Looking for players… (2 waiting, for a table of 3 to 6)"
    )

    # A third player (a bot written by a player, over the API) makes the table, once both
    # pages' sockets are open again (a page shows the waiting text from its GET before its
    # socket opens, and a ticket whose socket closed is not matched until one comes back).
    for page in (alice, bob):
        expect(page.locator("#queue-status")).to_have_attribute("data-socket", "open")
    dan = _queue_by_api(server, "Dan", 3)
    assert dan["status"] == "matched" and dan["seat"] == 2, dan
    table = f"/t/{dan['table_id']}"
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(re.escape(table) + "$"))
        expect(page.locator("#game-view")).to_be_visible()
        for name in ("Alice", "Bob", "Dan"):
            expect(page.locator("#seats")).to_contain_text(name)
    expect(alice.locator(".seat.me")).to_contain_text("Alice")
    expect(bob.locator(".seat.me")).to_contain_text("Bob")
    # The table page acts for the seat with the stored token: Alice bids.
    alice.get_by_role("button", name="Bid nothing").click()
    expect(carol.locator("#queue-status")).to_be_hidden()
    expect(carol).to_have_url(server.url + "/")


def test_the_queue_speaks_french(server: Server, new_page: NewPage) -> None:
    page = new_page("eloise", locale="fr-FR")
    page.goto(server.url + "/")
    # The language button by its own mark ("FR" alone also matches "Refresh", shown or not yet).
    page.locator("[data-lang-button=fr]").click()
    page.get_by_label("Votre nom").fill("Éloïse")
    page.locator("#queue-size").select_option("4")
    page.get_by_role("button", name="Partie rapide").click()
    expect(page.locator("#queue-text")).to_have_text("Recherche de joueurs… (1 sur 4)")
    page.get_by_role("button", name="Annuler").click()
    expect(page.locator("#queue-note")).to_have_text("Vous avez quitté la file d’attente.")


# The shortest wait the page offers is 30 s: the server's clock is moved past it (TEST_CLOCK).
@pytest.mark.server_env(TEST_CLOCK="0")
def test_alone_after_the_wait_a_player_plays_with_bots(server: Server, new_page: NewPage) -> None:
    fiona = new_page("fiona")
    fiona.goto(server.url + "/")
    fiona.get_by_label("Your name").fill("Fiona")
    fiona.locator("#queue-size").select_option("3")
    fiona.locator("#queue-bots-after").select_option("30")
    fiona.get_by_role("button", name="Quick play").click()
    expect(fiona.locator("#queue-text")).to_have_text("Looking for players… (1 of 3)")
    bots = fiona.get_by_role("button", name="Play with bots now")
    expect(bots).to_be_hidden()
    advance_clock(server, 30)
    expect(bots).to_be_visible()
    expect(fiona.locator("#queue-bots-hint")).to_have_text(
        "Nobody else yet? Bots can take the empty seats."
    )
    bots.click()
    expect(fiona).to_have_url(re.compile(r"/t/[\w-]+$"))
    expect(fiona.locator("#game-view")).to_be_visible()
    expect(fiona.locator(".seat.me")).to_contain_text("Fiona")
    expect(fiona.locator("#seats")).to_contain_text("Bot 3")
