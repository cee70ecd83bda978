// The characters in both languages. Names follow the printed cards: RULINGS R4 keeps the English
// powers, and the French name shown is the one a French box prints for that card (Magician =
// "Enchanteur", Wizard = "Magicien"); `art` is the French article, for "le Voleur", "l’Enchanteur".

import { getLang, humanize } from "./i18n.js";

export const CHARACTERS = {
  witch: { en: "Witch", fr: "Sorcière", art: "la", glyph: "☾",
    text: { en: "Take a Black Magic coin: bid it later this turn to curse a card.",
            fr: "Prenez une pièce maudite : misez-la plus tard ce tour-ci pour ensorceler un personnage." } },
  red_dragon: { en: "Red Dragon", fr: "Dragon rouge", art: "le", glyph: "♦", colour: "red",
    text: { en: "Take 1 red stone from the bank.", fr: "Prenez 1 pierre rouge à la banque." } },
  blue_dragon: { en: "Blue Dragon", fr: "Dragon bleu", art: "le", glyph: "♦", colour: "blue",
    text: { en: "Take 1 blue stone from the bank.", fr: "Prenez 1 pierre bleue à la banque." } },
  yellow_dragon: { en: "Yellow Dragon", fr: "Dragon jaune", art: "le", glyph: "♦", colour: "yellow",
    text: { en: "Take 1 yellow stone from the bank.", fr: "Prenez 1 pierre jaune à la banque." } },
  magician: { en: "Magician", fr: "Enchanteur", art: "l’", glyph: "✦",
    text: { en: "Pay any 4 stones for 1 point, or take 3 Silver.",
            fr: "Payez 4 pierres quelconques pour 1 point, ou prenez 3 pièces d’argent." } },
  wizard: { en: "Wizard", fr: "Magicien", art: "le", glyph: "✧",
    text: { en: "Pay one stone of each colour for 1 point, or take 3 Silver.",
            fr: "Payez une pierre de chaque couleur pour 1 point, ou prenez 3 pièces d’argent." } },
  sorcerer: { en: "Sorcerer", fr: "Sorcier", art: "le", glyph: "✺",
    text: { en: "Pay 4 stones of one colour for 2 points, or take 1 Common Gold.",
            fr: "Payez 4 pierres de même couleur pour 2 points, ou prenez 1 pièce d’or vulgaire." } },
  thief: { en: "Thief", fr: "Voleur", art: "le", glyph: "⚔",
    text: { en: "Take a stone of your choice from the second-highest bidder.",
            fr: "Prenez la pierre de votre choix au deuxième meilleur enchérisseur." } },
  alchemist: { en: "Alchemist", fr: "Alchimiste", art: "l’", glyph: "⚗",
    text: { en: "Take 3 Common Gold.", fr: "Prenez 3 pièces d’or vulgaire." } },
  ancient_dragon: { en: "Ancient Dragon", fr: "Ancien Dragon", art: "l’", glyph: "♆",
    text: { en: "Take 1 stone of your choice from the bank.",
            fr: "Prenez à la banque 1 pierre de votre choix." } },
  sorcerers_apprentice: { en: "Sorcerer’s Apprentice", fr: "Apprenti sorcier", art: "l’", glyph: "✵",
    text: { en: "Pay 2 stones of one colour for 1 point.",
            fr: "Payez 2 pierres identiques pour 1 point." } },
  brigand: { en: "Brigand", fr: "Brigand", art: "le", glyph: "⚑",
    text: { en: "Another player hands you all their Common Gold and Silver.",
            fr: "Un autre joueur vous donne tout son or vulgaire et son argent." } },
  quack_wizard: { en: "Quack Wizard", fr: "Charlatan", art: "le", glyph: "☄",
    text: { en: "Pay all your stones for 1 point (free if you have none).",
            fr: "Payez toutes vos pierres pour 1 point (gratuit si vous n’en avez pas)." } },
  doppelganger: { en: "Doppelganger", fr: "Doppelganger", art: "le", glyph: "♊",
    text: { en: "Keep it; after a later win, play it to use that power twice.",
            fr: "Gardez-le ; après une enchère gagnée, jouez-le pour utiliser ce pouvoir deux fois." } },
  two_headed_dragon: { en: "Two-headed Dragon", fr: "Dragon à deux têtes", art: "le", glyph: "♋",
    text: { en: "Draw 2 stones from a bag of up to 2 of each colour.",
            fr: "Tirez 2 pierres d’un sac d’au plus 2 pierres de chaque couleur." } },
  rainbow_dragon: { en: "Rainbow Dragon", fr: "Dragon arc-en-ciel", art: "le", glyph: "☈",
    text: { en: "Name a colour, then draw from the bag until you stop — or lose all on that colour.",
            fr: "Annoncez une couleur, puis piochez jusqu’à vous arrêter — ou tout perdre sur cette couleur." } },
  enchantress: { en: "Enchantress", fr: "Ensorceleuse", art: "l’", glyph: "❦",
    text: { en: "Pay any 5 stones for 2 points, or take 1 Fairy Gold.",
            fr: "Payez 5 pierres quelconques pour 2 points, ou prenez 1 pièce d’or des fées." } },
  ghost: { en: "Ghost", fr: "Fantôme", art: "le", glyph: "☁",
    text: { en: "Use the power of a character already auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage déjà mis aux enchères ce tour-ci." } },
  fairy: { en: "Fairy", fr: "Fée", art: "la", glyph: "❀",
    text: { en: "Take 1 Fairy Gold, yours for good.",
            fr: "Prenez 1 pièce d’or des fées, à vous pour toujours." } },
  gnome: { en: "Gnome", fr: "Gnome", art: "le", glyph: "♣",
    text: { en: "Take 2 Common Gold and 2 Silver.",
            fr: "Prenez 2 pièces d’or vulgaire et 2 pièces d’argent." } },
  goblin: { en: "Goblin", fr: "Gobelin", art: "le", glyph: "♠",
    text: { en: "Use the power of a random character not yet auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage tiré au hasard parmi ceux pas encore mis aux enchères." } },
  imp: { en: "Imp", fr: "Lutin", art: "le", glyph: "♤",
    text: { en: "Use the power of a character of your choice not yet auctioned this turn.",
            fr: "Utilisez le pouvoir d’un personnage de votre choix pas encore mis aux enchères." } },
  merchant: { en: "Merchant", fr: "Marchand", art: "le", glyph: "⚖",
    text: { en: "Buy stones: 1 Common Gold, 1 Fairy Gold or 3 Silver each.",
            fr: "Achetez des pierres : 1 or vulgaire, 1 or des fées ou 3 argent chacune." } },
  dwarf_4: { en: "Dwarf (4)", fr: "Nain (4)", art: "le", glyph: "⚒",
    text: { en: "Take 4 Silver.", fr: "Prenez 4 pièces d’argent." } },
  dwarf_5: { en: "Dwarf (5)", fr: "Nain (5)", art: "le", glyph: "⚒",
    text: { en: "Take 5 Silver.", fr: "Prenez 5 pièces d’argent." } },
  necromancer: { en: "Necromancer", fr: "Nécromant", art: "le", glyph: "☠",
    text: { en: "You may give up your whole bid, Fairy Gold too, for 1 point.",
            fr: "Vous pouvez abandonner toute votre mise, or des fées compris, pour 1 point." } },
  goldsmith: { en: "Goldsmith", fr: "Orfèvre", art: "l’", glyph: "♛",
    text: { en: "Take 1 Amulet: it doubles a later bid.",
            fr: "Prenez 1 amulette : elle double une mise future." } },
  troll: { en: "Troll", fr: "Troll", art: "le", glyph: "♜",
    text: { en: "Name a colour: every player returns all their stones of it.",
            fr: "Annoncez une couleur : chaque joueur rend toutes ses pierres de cette couleur." } },
};

export function charName(id) {
  const c = CHARACTERS[id];
  if (!c) return humanize(id);
  return c[getLang()] || c.en;
}

/** The card with its article: "the Witch", "la Sorcière", "l’Enchanteur". */
export function theCard(id) {
  const c = CHARACTERS[id];
  if (getLang() !== "fr") return `the ${charName(id)}`;
  const art = (c && c.art) || "le";
  return art.endsWith("’") ? `${art}${charName(id)}` : `${art} ${charName(id)}`;
}

/** French "de" + the card: "du Voleur", "de la Sorcière", "de l’Enchanteur" (English: "of the Witch"). */
export function ofCard(id) {
  if (getLang() !== "fr") return `of ${theCard(id)}`;
  const the = theCard(id);
  return the.startsWith("le ") ? `du ${the.slice(3)}` : `de ${the}`;
}

export function charText(id) {
  const c = CHARACTERS[id];
  return c ? c.text[getLang()] || c.text.en : "";
}

export function charGlyph(id) {
  return (CHARACTERS[id] && CHARACTERS[id].glyph) || "✶";
}
