"""The card catalogue: every card's name, power and rules text in each language, with its glyph,
its colour and whether it turns stones into points, and the rules page's sections; one document
that the engine's sentences, the server's `/api/cards`, the client and the rules page all read.

A language is one data module (`catalogue_en.py`, `catalogue_fr.py`); adding one is adding a file
and its line in `LANGS`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from . import catalogue_en, catalogue_fr


@dataclass(frozen=True, slots=True)
class CardText:
    """A card in one language. `article` is the French article ("la", "l'"); empty in English."""

    name: str
    power: str
    rules: str
    article: str = ""


def _english() -> dict[str, CardText]:
    return {c: CardText(n, p, r) for c, (n, p, r) in catalogue_en.CARDS.items()}


def _french() -> dict[str, CardText]:
    return {c: CardText(n, p, r, a) for c, (n, a, p, r) in catalogue_fr.CARDS.items()}


# The language first: English is the fallback of the client for anything missing.
LANGS: dict[str, dict[str, CardText]] = {"en": _english(), "fr": _french()}
GUIDES: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "en": catalogue_en.GUIDE,
    "fr": catalogue_fr.GUIDE,
}

# Drawn as a glyph on the card (a font-independent symbol) and tinted by a colour.
GLYPHS: dict[str, str] = {
    "witch": "☾", "red_dragon": "♦", "blue_dragon": "♦", "yellow_dragon": "♦",
    "magician": "✦", "wizard": "✧", "sorcerer": "✺", "thief": "⚔", "alchemist": "⚗",
    "ancient_dragon": "♆", "sorcerers_apprentice": "✵", "brigand": "⚑", "quack_wizard": "☄",
    "doppelganger": "♊", "two_headed_dragon": "♋", "rainbow_dragon": "☈", "enchantress": "❦",
    "ghost": "☁", "fairy": "❀", "gnome": "♣", "goblin": "♠", "imp": "♤", "merchant": "⚖",
    "dwarf_4": "⚒", "dwarf_5": "⚒", "necromancer": "☠", "goldsmith": "♛", "troll": "♜",
}  # fmt: skip
COLOURS: dict[str, str] = {"red_dragon": "red", "blue_dragon": "blue", "yellow_dragon": "yellow"}
# The cards whose power turns stones (or a bid) into points: the rules page lists them.
SCORING: tuple[str, ...] = (
    "magician",
    "wizard",
    "sorcerer",
    "sorcerers_apprentice",
    "quack_wizard",
    "enchantress",
    "necromancer",
)


def text(card: str, lang: str = "en") -> CardText:
    """A card in a language (English when the language lacks it)."""
    return LANGS.get(lang, LANGS["en"]).get(card) or LANGS["en"][card]


def document(cards: dict[str, tuple[bool, int]]) -> dict[str, Any]:
    """The catalogue as one JSON-ready document, in the engine's card order; `cards` maps each id
    to (special, copies). `version` is a hash of the content, so a client can tell a new one."""
    body: dict[str, Any] = {
        "langs": list(LANGS),
        "scoring": list(SCORING),
        "cards": [
            {
                "id": card,
                "special": special,
                "copies": copies,
                "glyph": GLYPHS[card],
                "colour": COLOURS.get(card, ""),
                "text": {
                    lang: {
                        "name": t.name,
                        "power": t.power,
                        "rules": t.rules,
                        "article": t.article,
                    }
                    for lang, t in ((lang, text(card, lang)) for lang in LANGS)
                },
            }
            for card, (special, copies) in cards.items()
        ],
        "guide": {
            lang: [
                {"id": key, "title": title, "paragraphs": list(paras)}
                for key, title, paras in guide
            ]
            for lang, guide in GUIDES.items()
        },
    }
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return {"version": hashlib.sha256(canonical).hexdigest()[:16], **body}
