"""The header every page shares is written once, in static/js/page-header.js: each page of the
site (each that loads app-shell.js) holds only its placeholder (`<header class="topbar">`, with
the page's own items at most) and loads page-header.js as its first module, before its own; its
skip link's target is the page's <main id="main">."""

from __future__ import annotations

import re

from tests.server.harness import REPO

STATIC = REPO / "static"
# What the shared header holds: a page writing one of these writes its own header again.
SHARED = (
    'class="brand"',
    "data-lang-button",
    'class="rules-link"',
    'class="me-link"',
    'class="skip-link"',
)


def test_each_page_holds_the_placeholder_and_builds_the_header_first() -> None:
    pages = {
        page.name: page.read_text(encoding="utf-8")
        for page in sorted(STATIC.glob("*.html"))
        if "/static/js/app-shell.js" in page.read_text(encoding="utf-8")
    }
    assert {"index.html", "me.html", "rules.html", "replay.html", "table.html"} <= set(pages)
    for name, html in pages.items():
        assert len(re.findall(r'<header class="topbar"[ >]', html)) == 1, name
        assert [s for s in SHARED if s in html] == [], name
        modules = re.findall(r'<script type="module" src="/static/js/([\w-]+)\.js"', html)
        assert modules[:1] == ["page-header"], (name, modules)
        assert re.search(r'<main id="main"[ >]', html), f"{name}: the skip link's target"
