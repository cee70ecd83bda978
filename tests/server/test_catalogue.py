"""The card catalogue: one source for every card's name, power and rules text, in English and
French, served at `/api/cards` and the only place the client takes a card's words from."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest

import engine
from engine import catalogue
from tests.server.harness import REPO

# The rules text sits beside the project (../shared/rules), or where RULES_DIR says.
RULES_DIRS = [
    Path(os.environ.get("RULES_DIR", "/nonexistent")),
    REPO.parent / "shared" / "rules",
    REPO.parent.parent / "shared" / "rules",
]
# The coloured dragons share one heading in both rules texts.
HEADINGS = {"Dragon rouge": "rouge", "Dragon bleu": "bleu", "Dragon jaune": "jaune"}


def _rules_text() -> str:
    for folder in RULES_DIRS:
        if (folder / "RULINGS.md").is_file():
            return "\n".join(p.read_text("utf-8") for p in sorted(folder.glob("*.*")))
    pytest.skip("the rules text (../shared/rules) is not beside this checkout; set RULES_DIR")


def test_every_card_has_both_languages_and_its_names_are_the_rules() -> None:
    rules = _rules_text().casefold()
    assert set(catalogue.LANGS) == {"en", "fr"}
    for card in engine.CARDS:
        for lang in catalogue.LANGS:
            text = catalogue.LANGS[lang].get(card)
            assert text is not None, (card, lang)
            assert text.name and text.power and text.rules, (card, lang)
            # The name as the rules print it (a Dwarf's number is the project's, R21).
            name = re.sub(r" \(\d\)$", "", text.name)
            if name in HEADINGS:
                assert "dragons rouge, bleu et jaune" in rules and HEADINGS[name] in rules
            else:
                assert name.casefold() in rules, (card, lang, name)
        assert catalogue.LANGS["fr"][card].article in ("le", "la", "l’"), card
    # No card the engine does not know, in any language.
    for lang in catalogue.LANGS:
        assert set(catalogue.LANGS[lang]) == set(engine.CARDS), lang
    # R4: the English powers are the right ones, in both languages.
    assert "4" in catalogue.text("magician", "fr").power
    assert "chaque couleur" in catalogue.text("wizard", "fr").power


def test_the_engine_names_cards_from_the_catalogue() -> None:
    for card in engine.CARDS.values():
        assert card.name_en == catalogue.text(card.id, "en").name
        assert card.name_fr == catalogue.text(card.id, "fr").name
        assert card.text_en == catalogue.text(card.id, "en").power


def _without_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    source = re.sub(r"<!--.*?-->", "", source, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", source)


def test_no_card_name_or_power_is_written_in_the_client() -> None:
    """Every card's words in the page come from the catalogue: none is written in static/."""
    files = [p for p in (REPO / "static").rglob("*") if p.suffix in (".js", ".html", ".md")]
    assert files
    found = []
    for path in files:
        source = _without_comments(path.read_text("utf-8"))
        for lang, cards in catalogue.LANGS.items():
            for card, text in cards.items():
                if text.power in source or text.rules in source:
                    found.append((path.name, card, lang, "power"))
                # A name as a word; "Fairy Gold" is a coin, "fées" is not "Fée".
                if re.search(rf"\b{re.escape(text.name)}\b(?! Gold)", source):
                    found.append((path.name, card, lang, text.name))
    assert found == []


async def test_the_catalogue_is_served_with_its_version(http: httpx.AsyncClient) -> None:
    r = await http.get("/api/cards")
    assert r.status_code == 200
    body = r.json()
    assert [c["id"] for c in body["cards"]] == list(engine.CARDS)
    assert body["langs"] == ["en", "fr"]
    witch = body["cards"][0]
    assert witch["text"]["fr"]["name"] == "Sorcière" and witch["glyph"]
    assert sum(c["copies"] for c in body["cards"] if c["special"]) == 25
    assert {s["title"] for s in body["guide"]["fr"]} >= {"Le but", "Les cartes"}
    assert set(body["scoring"]) <= set(engine.CARDS)
    # Revalidated by the page: the same version answers 304.
    etag = r.headers["etag"]
    assert body["version"] in etag and r.headers["cache-control"] == "no-cache"
    again = await http.get("/api/cards", headers={"If-None-Match": etag})
    assert again.status_code == 304
    fr = (await http.get("/api/cards", params={"lang": "fr"})).json()
    assert fr["langs"] == ["fr"] and set(fr["cards"][3]["text"]) == {"fr"}
    assert list(fr["guide"]) == ["fr"]
    bad = await http.get("/api/cards", params={"lang": "xx"})
    assert bad.status_code == 422
