"""The site is an installable app: every page links a web app manifest with what browsers need to
offer "install" (name, icons of 192 and 512 pixels that load, a start URL, display standalone, a
theme), and registers a service worker whose scope is the whole site."""

from __future__ import annotations

import pytest

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import expect

pytestmark = pytest.mark.browser

# The manifest the page links, as the page fetches it, with the size of each icon once loaded.
MANIFEST = """async () => {
  const link = document.querySelector('link[rel=manifest]');
  const response = await fetch(link.href);
  const manifest = await response.json();
  const sizes = [];
  for (const icon of manifest.icons) {
    if (icon.type !== 'image/png') continue;
    const img = new Image();
    img.src = icon.src;
    await img.decode();
    sizes.push([icon.sizes, `${img.naturalWidth}x${img.naturalHeight}`]);
  }
  return { type: response.headers.get('content-type'), manifest, sizes };
}"""

# The service worker once active, and whether it controls the page after a reload.
WORKER = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return { scope: registration.scope, script: registration.active.scriptURL };
}"""


def test_every_page_links_the_manifest_and_the_service_worker_is_registered(
    server: Server, new_page: NewPage
) -> None:
    page = new_page("installer")
    for path in ("/", "/me", "/rules"):
        page.goto(server.url + path)
        expect(page.locator("link[rel=manifest]")).to_have_attribute(
            "href", "/manifest.webmanifest"
        )
    page.goto(server.url + "/")
    out = page.evaluate(MANIFEST)
    assert out["type"].startswith("application/manifest+json"), out["type"]
    manifest = out["manifest"]
    assert manifest["name"] == "Dragonstones Online" and manifest["short_name"]
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert manifest["theme_color"] and manifest["background_color"]
    # Each PNG icon is the size it says, and the two sizes browsers ask for are there.
    assert all(said == real for said, real in out["sizes"]), out["sizes"]
    assert {"192x192", "512x512"} <= {said for said, _ in out["sizes"]}

    worker = page.evaluate(WORKER)
    assert worker == {"scope": server.url + "/", "script": server.url + "/sw.js"}, worker
    page.reload()
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")
