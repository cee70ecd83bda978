"""The interface exists in English and in French: every UI string of static/js/strings/*-en.js
has its French one in the French file of the same part (*-fr.js; and no French one is left
without its English), with the same placeholders; a key is in one part only; and every key a page
or script names literally is in both."""

from __future__ import annotations

import re

from tests.server.harness import REPO

STATIC = REPO / "static"
ENTRY = re.compile(r'^\s+"([\w.]+)":\s*(.*)$', flags=re.MULTILINE)
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# French says "de Bob" / "d'Alice" where English says "Bob's": the same name, elided (ofName).
SAME_PLACEHOLDER = {"of_name": "name"}


STRINGS = STATIC / "js" / "strings"


def parts(lang: str) -> list[str]:
    """The parts of the client's strings in that language (core, lobby, table...)."""
    return sorted(p.name.removesuffix(f"-{lang}.js") for p in STRINGS.glob(f"*-{lang}.js"))


def strings(lang: str, part: str | None = None) -> dict[str, set[str]]:
    """Each key with the placeholders its text (all of its plural forms) uses: of one part, or
    of every part of the language."""
    out: dict[str, set[str]] = {}
    for name in [part] if part else parts(lang):
        text = (STRINGS / f"{name}-{lang}.js").read_text(encoding="utf-8")
        for key, value in ENTRY.findall(text):
            assert key not in out, f"{key} twice in the {lang} strings ({name}-{lang}.js)"
            out[key] = {SAME_PLACEHOLDER.get(p, p) for p in PLACEHOLDER.findall(value)}
    return out


def test_each_part_has_its_french_beside_its_english() -> None:
    assert parts("en") == parts("fr")
    assert len(parts("en")) > 3, "the strings changed shape: this test no longer reads them"
    for part in parts("en"):
        assert sorted(strings("en", part)) == sorted(strings("fr", part)), part
    # i18n.js merges every part of each language.
    i18n = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    imported = set(re.findall(r'from "\./strings/([\w-]+)\.js"', i18n))
    assert imported == {f"{part}-{lang}" for part in parts("en") for lang in ("en", "fr")}


def test_every_string_exists_in_both_languages_with_the_same_placeholders() -> None:
    en, fr = strings("en"), strings("fr")
    assert len(en) > 300, "the strings changed shape: this test no longer reads them"
    assert sorted(set(en) - set(fr)) == [], "English strings without French"
    assert sorted(set(fr) - set(en)) == [], "French strings without English"
    differ = {key: (en[key], fr[key]) for key in en if en[key] != fr[key]}
    assert differ == {}


def test_every_key_named_by_a_page_or_a_script_exists() -> None:
    en, fr = strings("en"), strings("fr")
    named: set[str] = set()
    # The pages' markup, and the markup a script writes (the shared header, page-header.js).
    sources = [p.read_text(encoding="utf-8") for p in STATIC.glob("*.html")]
    scripts = [p.read_text(encoding="utf-8") for p in (STATIC / "js").rglob("*.js")]
    for markup in sources + scripts:
        named |= set(re.findall(r'data-i18n="(\w+\.[\w.]+)"', markup))
        for attrs in re.findall(r'data-i18n-attr="([\w.:,-]+)"', markup):
            named |= {key for pair in attrs.split(",") if "." in (key := pair.split(":")[-1])}
    for script in scripts:
        named |= set(re.findall(r'\bt\("(\w+\.[\w.]+)"\s*[,)]', script))
    assert len(named) > 100
    assert sorted(named - set(en)) == []
    assert sorted(named - set(fr)) == []
