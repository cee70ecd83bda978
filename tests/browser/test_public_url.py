"""With PUBLIC_URL set (a host behind a reverse proxy or a tunnel), the invite and watch links the
table page hands out use it, not the address the host's browser happens to use."""

from __future__ import annotations

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import create_table, expect

pytestmark = pytest.mark.browser

PUBLIC = "https://dragons.example.org"


@pytest.mark.server_env(PUBLIC_URL=PUBLIC + "/")  # a trailing slash is forgiven
def test_invite_links_use_public_url(server: Server, new_page: NewPage) -> None:
    alice = new_page("alice")
    alice.goto(server.url + "/")
    alice.get_by_label("Your name").fill("Alice")
    alice.get_by_role("button", name="Create the table").click()
    expect(alice.locator("#waiting-view")).to_be_visible()
    table_id = alice.url.rsplit("/t/", 1)[1].split("?")[0]
    expect(alice.locator("#invite-link")).to_have_value(f"{PUBLIC}/t/{table_id}")
    expect(alice.locator("#watch-link")).to_have_value(f"{PUBLIC}/t/{table_id}?watch=1")


def test_without_public_url_links_use_the_browsers_address(
    server: Server, new_page: NewPage
) -> None:
    alice = new_page("alice")
    invite, _watch = create_table(alice, server, "Alice")
    assert invite.startswith(server.url + "/t/")
