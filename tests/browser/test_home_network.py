"""A game on a friend's network over plain http (a host name that is not this machine's, no TLS):
the page is not a secure context there, so WebCrypto and the Clipboard API are absent. The proof
of the shuffle still hashes (the SHA-256 the page ships), Copy still copies, and the invite link
is not called local. Chromium maps the name dragons.home to the test server."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, HAVE_PLAYWRIGHT, NewPage, Server
from tests.conftest import require_service

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Browser, expect, sync_playwright

pytestmark = [pytest.mark.browser]

HOST = "dragons.home"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """This module's Chromium resolves HOST to 127.0.0.1: a home network's name, over http."""
    require_service(HAVE_PLAYWRIGHT, "the Python package playwright is not installed")
    require_service(
        Path(CHROMIUM).exists() and shutil.which(CHROMIUM) is not None, f"{CHROMIUM} is missing"
    )
    args = [*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args, timeout=180_000)
        try:
            yield b
        finally:
            b.close()


def test_the_proof_and_copy_work_over_plain_http(server: Server, new_page: NewPage) -> None:
    page = new_page("friend")
    site = f"http://{HOST}:{server.port}"
    page.goto(site + "/")
    assert page.evaluate("() => [window.isSecureContext, Boolean(window.crypto.subtle)]") == [
        False,
        False,
    ]
    seed = "9731298036725061512"
    digest = page.evaluate(
        """async (seed) => {
          const { sha256Hex } = await import("/static/js/sha256.js");
          return sha256Hex(new TextEncoder().encode(`dragonstones:${seed}`));
        }""",
        seed,
    )
    assert digest == hashlib.sha256(f"dragonstones:{seed}".encode()).hexdigest()

    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Create the table").click()
    expect(page.locator("#waiting-view")).to_be_visible()
    assert page.input_value("#invite-link").startswith(site + "/t/")
    expect(page.locator("#local-only-note")).to_be_hidden()
    page.locator("#copy-invite").click()
    expect(page.locator("#copy-invite")).to_have_text("Copied!")
