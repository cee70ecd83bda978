// The card catalogue, the one source of every card's name, power and rules text in the client:
// fetched once per page from the server (GET /api/cards, revalidated with its ETag), which takes
// it from the engine. A module that imports this one waits for it (top-level await).

const EMPTY = { version: "", langs: [], scoring: [], cards: [], guide: {} };

async function load() {
  try {
    const response = await fetch("/api/cards", { headers: { Accept: "application/json" } });
    return response.ok ? await response.json() : EMPTY;
  } catch {
    // Offline or refused: cards fall back to their ids, the page still works.
    return EMPTY;
  }
}

export const CATALOGUE = await load();

const BY_ID = Object.fromEntries(CATALOGUE.cards.map((card) => [card.id, card]));

/** The catalogue entry of a card, or null: {id, special, copies, glyph, colour, text: {lang: …}}. */
export function card(id) {
  return BY_ID[id] || null;
}

/** A card's text in a language (English when that language lacks it): {name, power, rules, article}. */
export function cardText(id, lang) {
  const entry = BY_ID[id];
  if (!entry) return null;
  return entry.text[lang] || entry.text.en || null;
}

/** The rules page's sections in a language: [{title, paragraphs}]. */
export function guide(lang) {
  return CATALOGUE.guide[lang] || CATALOGUE.guide.en || [];
}
