// The characters as the page names them, all from the card catalogue (catalogue.js, served by the
// engine): names in the page's language, the French article for "le Voleur", "l’Enchanteur", the
// power in one sentence and the glyph. Nothing about a card is written here.

import { getLang, humanize } from "./i18n.js";
import { CATALOGUE, cardText } from "./catalogue.js";

// {id: {en, fr, art, glyph, colour, text: {en, fr}}}: the shape the other modules read.
export const CHARACTERS = Object.fromEntries(
  CATALOGUE.cards.map((entry) => {
    const names = {};
    const text = {};
    for (const [lang, t] of Object.entries(entry.text)) {
      names[lang] = t.name;
      text[lang] = t.power;
    }
    const art = (entry.text.fr && entry.text.fr.article) || "le";
    return [entry.id, { ...names, art, glyph: entry.glyph, colour: entry.colour, text }];
  }),
);

export function charName(id) {
  const t = cardText(id, getLang());
  return t ? t.name : humanize(id);
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

/** French "à" + the card: "au Fantôme", "à la Fée", "à l’Orfèvre" (English: "to the Ghost"). */
export function toCard(id) {
  if (getLang() !== "fr") return `to ${theCard(id)}`;
  const the = theCard(id);
  return the.startsWith("le ") ? `au ${the.slice(3)}` : `à ${the}`;
}

export function charText(id) {
  const t = cardText(id, getLang());
  return t ? t.power : "";
}

/** The card's full rules text in the page's language. */
export function charRules(id) {
  const t = cardText(id, getLang());
  return t ? t.rules : "";
}

export function charGlyph(id) {
  return (CHARACTERS[id] && CHARACTERS[id].glyph) || "✶";
}
