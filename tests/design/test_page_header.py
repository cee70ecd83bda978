"""The header every page shares is written once, in static/js/page-header.js: each page holds
only its placeholder (`<header class="topbar">`, with the page's own items at most) and loads
app-shell.js, which builds it, before its own module."""

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
    pages = sorted(STATIC.glob("*.html"))
    assert len(pages) >= 5
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert len(re.findall(r'<header class="topbar"[ >]', html)) == 1, page.name
        assert [s for s in SHARED if s in html] == [], page.name
        modules = re.findall(r'<script type="module" src="/static/js/([\w-]+)\.js"', html)
        assert modules and modules[0] == "app-shell", (page.name, modules)
        assert re.search(r'<main id="main"[ >]', html), f"{page.name}: the skip link's target"
    shell = (STATIC / "js" / "app-shell.js").read_text(encoding="utf-8")
    assert 'import "./page-header.js";' in shell
