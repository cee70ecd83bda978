"""The interface exists in English and in French: every UI string of static/js/strings-en.js has
its French one in strings-fr.js (and no French one is left without its English), with the same
placeholders, and every key a page or script names literally is in both."""

from __future__ import annotations

import re

from tests.server.harness import REPO

STATIC = REPO / "static"
ENTRY = re.compile(r'^\s+"([\w.]+)":\s*(.*)$', flags=re.MULTILINE)
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# French says "de Bob" / "d'Alice" where English says "Bob's": the same name, elided (ofName).
SAME_PLACEHOLDER = {"of_name": "name"}


def strings(lang: str) -> dict[str, set[str]]:
    """Each key with the placeholders its text (all of its plural forms) uses."""
    text = (STATIC / "js" / f"strings-{lang}.js").read_text(encoding="utf-8")
    out: dict[str, set[str]] = {}
    for key, value in ENTRY.findall(text):
        assert key not in out, f"{key} twice in strings-{lang}.js"
        out[key] = {SAME_PLACEHOLDER.get(p, p) for p in PLACEHOLDER.findall(value)}
    return out


def test_every_string_exists_in_both_languages_with_the_same_placeholders() -> None:
    en, fr = strings("en"), strings("fr")
    assert len(en) > 300, "the strings file changed shape: this test no longer reads it"
    assert sorted(set(en) - set(fr)) == [], "English strings without French"
    assert sorted(set(fr) - set(en)) == [], "French strings without English"
    differ = {key: (en[key], fr[key]) for key in en if en[key] != fr[key]}
    assert differ == {}


def test_every_key_named_by_a_page_or_a_script_exists() -> None:
    en, fr = strings("en"), strings("fr")
    named: set[str] = set()
    for page in STATIC.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        named |= set(re.findall(r'data-i18n="([\w.]+)"', html))
        named |= set(re.findall(r'data-i18n-attr="[\w-]+:([\w.]+)"', html))
    for script in (STATIC / "js").rglob("*.js"):
        named |= set(re.findall(r'\bt\("(\w+\.[\w.]+)"\s*[,)]', script.read_text(encoding="utf-8")))
    assert len(named) > 100
    assert sorted(named - set(en)) == []
    assert sorted(named - set(fr)) == []
