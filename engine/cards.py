"""The characters of the base game, as data. Each power is implemented once, in `powers.py`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Card:
    """One kind of character card."""

    id: str
    special: bool
    copies: int
    name_en: str
    name_fr: str
    text_en: str


CARDS: dict[str, Card] = {
    c.id: c
    for c in (
        # Standard characters (R3, R4: the English names and powers are the right ones).
        Card("witch", False, 1, "Witch", "Sorcière", "Take 1 Black Magic coin."),
        Card("red_dragon", False, 1, "Red Dragon", "Dragon rouge", "Take 1 red stone."),
        Card("blue_dragon", False, 1, "Blue Dragon", "Dragon bleu", "Take 1 blue stone."),
        Card("yellow_dragon", False, 1, "Yellow Dragon", "Dragon jaune", "Take 1 yellow stone."),
        Card(
            "magician",
            False,
            1,
            "Magician",
            "Enchanteur",
            "Pay any 4 stones for 1 point, or take 3 Silver.",
        ),
        Card(
            "wizard",
            False,
            1,
            "Wizard",
            "Magicien",
            "Pay one stone of each colour for 1 point, or take 3 Silver.",
        ),
        Card(
            "sorcerer",
            False,
            1,
            "Sorcerer",
            "Sorcier",
            "Pay 4 stones of one colour for 2 points, or take 1 Common Gold.",
        ),
        Card("thief", False, 1, "Thief", "Voleur", "Take a stone from the second bidder."),
        # Special characters: 25 cards, 19 kinds (R3).
        Card("alchemist", True, 1, "Alchemist", "Alchimiste", "Take 3 Common Gold."),
        Card(
            "ancient_dragon",
            True,
            2,
            "Ancient Dragon",
            "Ancien Dragon",
            "Take 1 stone of your choice.",
        ),
        Card(
            "sorcerers_apprentice",
            True,
            2,
            "Sorcerer's Apprentice",
            "Apprenti sorcier",
            "Pay 2 stones of one colour for 1 point.",
        ),
        Card(
            "brigand",
            True,
            1,
            "Brigand",
            "Brigand",
            "Another player gives you all their Common Gold and Silver.",
        ),
        Card(
            "quack_wizard", True, 2, "Quack Wizard", "Charlatan", "Pay all your stones for 1 point."
        ),
        Card(
            "doppelganger",
            True,
            1,
            "Doppelganger",
            "Doppelganger",
            "Keep this card; play it later to use a won character twice.",
        ),
        Card(
            "two_headed_dragon",
            True,
            2,
            "Two-headed Dragon",
            "Dragon à deux têtes",
            "Draw 2 stones from a bag of up to 2 of each colour.",
        ),
        Card(
            "rainbow_dragon",
            True,
            1,
            "Rainbow Dragon",
            "Dragon arc-en-ciel",
            "Name a colour, then draw stones until you stop or draw that colour.",
        ),
        Card(
            "enchantress",
            True,
            1,
            "Enchantress",
            "Ensorceleuse",
            "Pay any 5 stones for 2 points, or take 1 Fairy Gold.",
        ),
        Card(
            "ghost",
            True,
            1,
            "Ghost",
            "Fantôme",
            "Use the power of a character already auctioned this turn.",
        ),
        Card("fairy", True, 2, "Fairy", "Fée", "Take 1 Fairy Gold."),
        Card("gnome", True, 1, "Gnome", "Gnome", "Take 2 Common Gold and 2 Silver."),
        Card(
            "goblin",
            True,
            1,
            "Goblin",
            "Gobelin",
            "Use the power of a random character not yet auctioned this turn.",
        ),
        Card(
            "imp",
            True,
            1,
            "Imp",
            "Lutin",
            "Use the power of a character of your choice not yet auctioned this turn.",
        ),
        Card(
            "merchant",
            True,
            1,
            "Merchant",
            "Marchand",
            "Buy stones: 1 Common Gold, 1 Fairy Gold or 3 Silver each.",
        ),
        Card("dwarf_4", True, 1, "Dwarf", "Nain", "Take 4 Silver."),
        Card("dwarf_5", True, 1, "Dwarf", "Nain", "Take 5 Silver."),
        Card(
            "necromancer",
            True,
            1,
            "Necromancer",
            "Nécromant",
            "You may give up the Fairy Gold you bid for 1 point.",
        ),
        Card("goldsmith", True, 1, "Goldsmith", "Orfèvre", "Take 1 Amulet."),
        Card(
            "troll",
            True,
            1,
            "Troll",
            "Troll",
            "Name a colour: every player returns all their stones of it.",
        ),
    )
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
