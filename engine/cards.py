"""The characters of the base game, as data: which there are and how many of each; their names
and powers come from the catalogue (`catalogue.py`), each power is implemented once, in `powers.py`."""

from __future__ import annotations

from dataclasses import dataclass

from . import catalogue


@dataclass(frozen=True, slots=True)
class Card:
    """One kind of character card."""

    id: str
    special: bool
    copies: int
    name_en: str
    name_fr: str
    text_en: str


# Which cards there are and how many of each (R3); their names and powers are the catalogue's.
_DECK: tuple[tuple[str, bool, int], ...] = (
    ("witch", False, 1),
    ("red_dragon", False, 1),
    ("blue_dragon", False, 1),
    ("yellow_dragon", False, 1),
    ("magician", False, 1),
    ("wizard", False, 1),
    ("sorcerer", False, 1),
    ("thief", False, 1),
    ("alchemist", True, 1),
    ("ancient_dragon", True, 2),
    ("sorcerers_apprentice", True, 2),
    ("brigand", True, 1),
    ("quack_wizard", True, 2),
    ("doppelganger", True, 1),
    ("two_headed_dragon", True, 2),
    ("rainbow_dragon", True, 1),
    ("enchantress", True, 1),
    ("ghost", True, 1),
    ("fairy", True, 2),
    ("gnome", True, 1),
    ("goblin", True, 1),
    ("imp", True, 1),
    ("merchant", True, 1),
    ("dwarf_4", True, 1),
    ("dwarf_5", True, 1),
    ("necromancer", True, 1),
    ("goldsmith", True, 1),
    ("troll", True, 1),
)

CARDS: dict[str, Card] = {
    card: Card(
        card,
        special,
        copies,
        catalogue.text(card, "en").name,
        catalogue.text(card, "fr").name,
        catalogue.text(card, "en").power,
    )
    for card, special, copies in _DECK
}

STANDARD_PILE: tuple[str, ...] = (
    "red_dragon",
    "blue_dragon",
    "yellow_dragon",
    "magician",
    "wizard",
    "sorcerer",
    "thief",
)
SPECIAL_DECK: tuple[str, ...] = tuple(
    c.id for c in CARDS.values() if c.special for _ in range(c.copies)
)
CHARACTER_IDS: tuple[str, ...] = tuple(CARDS)
