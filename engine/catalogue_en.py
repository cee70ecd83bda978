"""The cards and the rules page in English: every card's name, its power in one sentence and its
rules text, as the one source that the engine's sentences, the client and the rules page read."""

from __future__ import annotations

# id: (name, power, rules). The rules text is the publisher's, with the rulings' corrections.
CARDS: dict[str, tuple[str, str, str]] = {
    "witch": (
        "Witch",
        "Take a Black Magic coin: bid it later this turn to curse a card.",
        "The Witch is always auctioned first in the turn. Her winner takes a Black Magic coin and "
        "may add it to any later bid of the turn: when the bids are revealed, the card is cursed "
        "and nobody uses its power, but every bid is still spent. An unused coin goes back to the "
        "bank at the end of the turn.",
    ),
    "red_dragon": (
        "Red Dragon",
        "Take 1 red stone from the bank.",
        "The winner takes one red stone from the bank (none if the bank has none).",
    ),
    "blue_dragon": (
        "Blue Dragon",
        "Take 1 blue stone from the bank.",
        "The winner takes one blue stone from the bank (none if the bank has none).",
    ),
    "yellow_dragon": (
        "Yellow Dragon",
        "Take 1 yellow stone from the bank.",
        "The winner takes one yellow stone from the bank (none if the bank has none).",
    ),
    "magician": (
        "Magician",
        "Pay any 4 stones for 1 point, or take 3 Silver.",
        "The winner pays any four stones to the bank and scores one point, or takes three Silver "
        "coins from the bank.",
    ),
    "wizard": (
        "Wizard",
        "Pay one stone of each colour for 1 point, or take 3 Silver.",
        "The winner pays three stones, one of each colour, to the bank and scores one point, or "
        "takes three Silver coins from the bank.",
    ),
    "sorcerer": (
        "Sorcerer",
        "Pay 4 stones of one colour for 2 points, or take 1 Common Gold.",
        "The winner pays four stones of the same colour to the bank and scores two points, or takes "
        "one Common Gold coin from the bank.",
    ),
    "thief": (
        "Thief",
        "Take a stone of your choice from the second-highest bidder.",
        "The winner takes a stone of his choice from the second-highest bidder (of the tie-break, "
        "when there was one); among tied seconds he chooses, but must pick one who has a stone. "
        "If only the winner bid, every other player is second. A victim without stones gives a "
        "Common Gold, failing that a Fairy Gold.",
    ),
    "alchemist": (
        "Alchemist",
        "Take 3 Common Gold.",
        "The winner takes three Common Gold coins from the bank.",
    ),
    "ancient_dragon": (
        "Ancient Dragon",
        "Take 1 stone of your choice from the bank.",
        "The winner takes one stone of the colour of his choice from the bank.",
    ),
    "sorcerers_apprentice": (
        "Sorcerer's Apprentice",
        "Pay 2 stones of one colour for 1 point.",
        "The winner pays two stones of the same colour to the bank, if he has them, and scores one "
        "point; otherwise nothing happens.",
    ),
    "brigand": (
        "Brigand",
        "Another player hands you all their Common Gold and Silver.",
        "The winner names another player, who hands him all the Common Gold and Silver behind his "
        "screen. Only those two see the amounts.",
    ),
    "quack_wizard": (
        "Quack Wizard",
        "Pay all your stones for 1 point (free if you have none).",
        "The winner pays all his stones to the bank and scores one point; with no stones, he "
        "scores the point for free.",
    ),
    "doppelganger": (
        "Doppelganger",
        "Keep it; after a later win, play it to use that power twice.",
        "The winner keeps this card face up. After winning a later auction (not a cursed one, not "
        "the Necromancer), he may play it to use that card's power twice in a row.",
    ),
    "two_headed_dragon": (
        "Two-headed Dragon",
        "Draw 2 stones from a bag of up to 2 of each colour.",
        "Up to two stones of each colour go from the bank into the bag; the winner draws two at "
        "random and keeps them; the rest go back to the bank.",
    ),
    "rainbow_dragon": (
        "Rainbow Dragon",
        "Name a colour, then draw from the bag until you stop — or lose all on that colour.",
        "All the bank's stones go into the bag. The winner names a colour still in the bag, then "
        "draws one stone at a time: he may stop and keep what he drew, but drawing the named "
        "colour returns everything he drew.",
    ),
    "enchantress": (
        "Enchantress",
        "Pay any 5 stones for 2 points, or take 1 Fairy Gold.",
        "The winner pays any five stones to the bank and scores two points, or takes one Fairy Gold "
        "coin from the bank.",
    ),
    "ghost": (
        "Ghost",
        "Use the power of a character already auctioned this turn.",
        "The winner chooses a character already auctioned this turn (even one nobody bid for or "
        "that was cursed) and uses its power as if he had won it.",
    ),
    "fairy": (
        "Fairy",
        "Take 1 Fairy Gold, yours for good.",
        "The winner takes one Fairy Gold coin from the bank and plays with it until the end of the "
        "game.",
    ),
    "gnome": (
        "Gnome",
        "Take 2 Common Gold and 2 Silver.",
        "The winner takes two Common Gold and two Silver coins from the bank.",
    ),
    "goblin": (
        "Goblin",
        "Use the power of a random character not yet auctioned this turn.",
        "The winner draws at random a character not yet auctioned this turn and uses its power as "
        "if he had won it; that card counts as auctioned. Last card of the turn: no effect.",
    ),
    "imp": (
        "Imp",
        "Use the power of a character of your choice not yet auctioned this turn.",
        "The winner chooses a character not yet auctioned this turn and uses its power as if he had "
        "won it; that card counts as auctioned and the others are shuffled again. Last card of the "
        "turn: no effect.",
    ),
    "merchant": (
        "Merchant",
        "Buy stones: 1 Common Gold, 1 Fairy Gold or 3 Silver each.",
        "The winner buys as many stones as he wishes, of any colour, one at a time, paying the bank "
        "one Common Gold, one Fairy Gold (gone for good) or three Silver for each.",
    ),
    "dwarf_4": (
        "Dwarf (4)",
        "Take 4 Silver.",
        "The winner takes four Silver coins from the bank (the other Dwarf gives five).",
    ),
    "dwarf_5": (
        "Dwarf (5)",
        "Take 5 Silver.",
        "The winner takes five Silver coins from the bank (the other Dwarf gives four).",
    ),
    "necromancer": (
        "Necromancer",
        "You may give up your whole bid, Fairy Gold too, for 1 point.",
        "The winner may score one point by giving the bank every coin he bid in this auction, "
        "Fairy Gold included. Unlike every other power, he may decline.",
    ),
    "goldsmith": (
        "Goldsmith",
        "Take 1 Amulet: it doubles a later bid.",
        "The winner takes a Magic Amulet from the bank. Bid later with gold or Silver, it doubles "
        "the bid's value (four Common Gold and the Amulet are worth eight), then goes back to the "
        "bank.",
    ),
    "troll": (
        "Troll",
        "Name a colour: every player returns all their stones of it.",
        "The winner names a colour: every player, the winner too, returns all his stones of that "
        "colour to the bank.",
    ),
}

# The rules page, section by section: (id, title, paragraphs).
GUIDE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "goal",
        "The goal",
        (
            "Bid coins for fantasy characters, use their powers to gather dragonstones and turn "
            "them into points. The first player to reach 3 points wins at once.",
        ),
    ),
    (
        "start",
        "What you have",
        (
            "Each player starts with 8 Fairy Gold, 2 Common Gold, 5 Silver and 4 stones drawn at "
            "random. Your coins are hidden behind your screen; your stones and your score are "
            "public.",
        ),
    ),
    (
        "turn",
        "A turn",
        (
            "Two special characters are drawn and shown to everyone, then shuffled with the seven "
            "standard characters. The Witch is auctioned first, then the nine cards one at a time, "
            "each revealed when its auction starts.",
            "At the end of the turn, every player takes back the Fairy Gold he spent; Common Gold "
            "and Silver that were spent are gone for good.",
        ),
    ),
    (
        "bids",
        "Sealed bids",
        (
            "Everyone bids at once, in secret: any Fairy Gold and Common Gold, or nothing. The bids "
            "are revealed together and every coin bid is spent, whoever wins. The highest bid wins "
            "and its bidder must use the card's power. Nobody bids: the card passes.",
        ),
    ),
    (
        "tiebreak",
        "The Silver tie-break",
        (
            "When the highest bids are equal, only the tied players bid again, in Silver. All that "
            "Silver goes to the bank. A second tie means nobody uses the card.",
        ),
    ),
    (
        "scoring",
        "How stones score",
        ("Stones are worth nothing by themselves: these cards turn them into points.",),
    ),
    (
        "end",
        "The end",
        (
            "The moment a player reaches 3 points the game ends and that player wins, even in the "
            "middle of a power.",
        ),
    ),
    ("cards", "The cards", ()),
)
