// The words of choose prompts: questions and option labels, keyed by "character.step" and
// "character.step.option" (or "*.step..." for any character). Missing keys fall back to the
// server's English text; options carrying data (colour, seat, card, stones) are described from it.

import { getLang, t, humanize } from "./i18n.js";
import { CHARACTERS, charName, theCard } from "./characters.js";

const PROMPTS = {
  en: {},
  fr: {
    "*.option": "Quel pouvoir utilisez-vous ?",
    "magician.option.pay": "Payer 4 pierres pour 1 point",
    "wizard.option.pay": "Payer 1 pierre rouge, 1 bleue et 1 jaune pour 1 point",
    "sorcerer.option.pay": "Payer 4 pierres de même couleur pour 2 points",
    "enchantress.option.pay": "Payer 5 pierres pour 2 points",
    "*.option.silver": "Prendre 3 pièces d’argent",
    "*.option.common_gold": "Prendre 1 pièce d’or vulgaire",
    "*.option.fairy_gold": "Prendre 1 pièce d’or des fées",
    "magician.stones": "Quelles 4 pierres payez-vous ?",
    "enchantress.stones": "Quelles 5 pierres payez-vous ?",
    "*.stones": "Quelles pierres payez-vous ?",
    "sorcerer.colour": "De quelle couleur payez-vous 4 pierres ?",
    "sorcerers_apprentice.colour": "De quelle couleur payez-vous 2 pierres ?",
    "ancient_dragon.colour": "Quelle pierre prenez-vous à la banque ?",
    "rainbow_dragon.colour": "Annoncez une couleur : si vous la tirez, vous perdez tout ce que vous avez tiré.",
    "troll.colour": "Quelle couleur chaque joueur doit-il rendre ?",
    "*.colour": "Quelle couleur ?",
    "thief.victim": "Qui volez-vous ?",
    "brigand.victim": "Qui dépouillez-vous de tout son or vulgaire et son argent ?",
    "*.victim": "Quel joueur ?",
    "thief.stone": "Quelle pierre prenez-vous ?",
    "ghost.card": "Quel pouvoir de personnage utilisez-vous ?",
    "imp.card": "Quel personnage pas encore mis aux enchères prenez-vous ?",
    "*.card": "Quel personnage ?",
    "merchant.buy": "Acheter une pierre, ou arrêter ?",
    "merchant.buy.done": "Arrêter d’acheter",
    "rainbow_dragon.draw": "Piocher une autre pierre ou s’arrêter ?",
    "rainbow_dragon.draw.draw": "Piocher une autre pierre",
    "rainbow_dragon.draw.stop": "M’arrêter et garder mes pierres",
    "necromancer.use": "Abandonner l’or des fées misé pour 1 point ?",
    "necromancer.use.use": (o) => `Abandonner ${o.fairy_gold ?? ""} or des fées pour 1 point`.replace("  ", " "),
    "necromancer.use.decline": "Garder mon or des fées",
    "*.play_doppelganger": () => `Jouer ${theCard("doppelganger")} pour utiliser ce pouvoir deux fois ?`,
    "*.play_doppelganger.play": () => `Jouer ${theCard("doppelganger")} : utiliser ce pouvoir deux fois`,
    "*.play_doppelganger.keep": () => `Garder ${theCard("doppelganger")} pour plus tard`,
  },
};

function promptEntry(character, step, optionId, option) {
  const table = PROMPTS[getLang()] || {};
  const suffix = optionId === undefined ? "" : `.${optionId}`;
  const entry = table[`${character}.${step}${suffix}`] ?? table[`*.${step}${suffix}`];
  return typeof entry === "function" ? entry(option || {}) : entry;
}

/** The question of a choose prompt, in the current language when known, without the card's name
 *  in front (the panel's heading names the card already). */
export function promptQuestion(prompt) {
  const text = promptEntry(prompt.character, prompt.step, undefined) ?? prompt.question ?? "";
  const name = charName(prompt.character);
  for (const prefix of [`${name}:`, `${name} :`, `${CHARACTERS[prompt.character]?.en}:`]) {
    if (text.startsWith(prefix)) {
      const rest = text.slice(prefix.length).trim();
      return rest.charAt(0).toUpperCase() + rest.slice(1);
    }
  }
  return text;
}

/** A known translation for a prompt's question (optionId undefined) or one of its options. */
export function promptText(character, step, optionId) {
  return promptEntry(character, step, optionId);
}

/**
 * The label of one option of a choose prompt. Known ids are translated; options carrying data
 * (a colour, a seat, a card, stones) are described from that data in French; otherwise the
 * server's label, so an unknown option still renders.
 */
export function optionLabel(prompt, option, nameOfSeat) {
  const known = promptEntry(prompt.character, prompt.step, option.id, option);
  if (known) return known;
  if (getLang() === "en") {
    // The engine names seats "Player N": the client knows their names.
    if (typeof option.seat === "number" && nameOfSeat && /^Player \d+$/.test(String(option.label))) {
      return nameOfSeat(option.seat);
    }
    return withCardName(option.label ?? humanize(option.id), option.card);
  }
  const derived = describeOptionFr(option, nameOfSeat);
  return derived ?? option.label ?? humanize(option.id);
}

/** The engine's label names a card as the box does ("Dwarf"): where two cards share that name,
 *  the client's own name tells them apart ("Dwarf (4)", "Dwarf (5)"). */
function withCardName(label, card) {
  if (typeof card !== "string" || !CHARACTERS[card]) return label;
  const full = charName(card);
  const bare = full.replace(/ \(\d+\)$/, "");
  return full !== bare && !String(label).includes(full) ? String(label).replace(bare, full) : label;
}

const COLOUR_IDS = ["red", "blue", "yellow"];
const STONE_ADJ_FR = { red: "rouge", blue: "bleue", yellow: "jaune" }; // agrees with "pierre"
const COIN_FR = { common_gold: "or vulgaire", fairy_gold: "or des fées", silver: "argent" };

/** A French description of an option from its data, or from the engine's id conventions. */
export function describeOptionFr(option, nameOfSeat) {
  const id = String(option.id);
  if (id === "yes") return t("option.yes");
  if (id === "no") return t("option.no");
  const card = typeof option.card === "string" ? option.card : CHARACTERS[id] ? id : null;
  if (card) return charName(card);
  const seatMatch = /^seat(\d+)$/.exec(id);
  const seat = typeof option.seat === "number" ? option.seat : seatMatch ? Number(seatMatch[1]) : null;
  if (seat !== null && nameOfSeat) return nameOfSeat(seat);
  const buy = /^(red|blue|yellow):(\w+)$/.exec(id);
  if (buy) {
    const price = option.price ?? (buy[2] === "silver" ? 3 : 1);
    return `Acheter une pierre ${STONE_ADJ_FR[buy[1]]} pour ${price} ${COIN_FR[buy[2]] || buy[2]}`;
  }
  if (/^(red|blue|yellow)\d/.test(id)) {
    const parts = id.split("-").map((p) => {
      const m = /^(red|blue|yellow)(\d+)$/.exec(p);
      return m ? `${m[2]} ${STONE_ADJ_FR[m[1]]}${Number(m[2]) > 1 ? "s" : ""}` : p;
    });
    return `Payer ${parts.join(", ")}`;
  }
  const colour = typeof option.colour === "string" ? option.colour : COLOUR_IDS.includes(id) ? id : null;
  if (colour) {
    const times = /×\s*\d+/.exec(String(option.label || ""));
    return times ? `${t("colour." + colour)} ${times[0]}` : t(`stone.${colour}`);
  }
  return null;
}
