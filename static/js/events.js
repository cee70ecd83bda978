// The game log in plain words. The engine sends each event with an English "template" naming seats
// as {seat}, {victim}, {winner}; the client puts the players' names in. Events whose English text
// names seats by number are rebuilt from their data; French sentences are built from the data of
// the common events, anything unknown falls back to the engine's English.

import { getLang, t, plural, typeset, listNames } from "./i18n.js";
import { charName, theCard, ofCard, toCard } from "./characters.js";
import { promptText, describeOptionFr } from "./prompt-text.js";
import { iso } from "./common.js";

const SEAT_KEYS = ["seat", "victim", "winner"];
const COLOURS = ["red", "blue", "yellow"];

const COINS = {
  en: { fairy_gold: "Fairy Gold", common_gold: "Common Gold", silver: "Silver",
        amulets: { one: "Amulet", other: "Amulets" }, black_magic: "Black Magic" },
  fr: { fairy_gold: "or des fées", common_gold: "or vulgaire", silver: "argent",
        amulets: { one: "amulette", other: "amulettes" },
        black_magic: { one: "pièce maudite", other: "pièces maudites" } },
};

/** "3 Fairy Gold", "1 amulette", "2 amulettes": the amount and the coin, through the plural rule. */
export function coinAmount(coin, n) {
  const name = COINS[getLang()][coin] ?? coin;
  return `${n} ${plural(n, name)}`;
}

/** French colour adjectives agree with "pierre" (feminine). */
function stoneAdjFr(colour) {
  return { red: "rouge", blue: "bleue", yellow: "jaune" }[colour] || colour;
}

export function describeStones(stones) {
  const fr = getLang() === "fr";
  const parts = [];
  let total = 0;
  for (const c of COLOURS) {
    const n = (stones && stones[c]) || 0;
    total += n;
    if (n) parts.push({ n, word: fr ? plural(n, { one: stoneAdjFr(c), other: stoneAdjFr(c) + "s" }) : c });
  }
  if (!parts.length) return fr ? "aucune pierre" : "no stones";
  const noun = plural(total, fr ? { one: "pierre", other: "pierres" } : { one: "stone", other: "stones" });
  if (parts.length === 1) return `${parts[0].n} ${fr ? `${noun} ${parts[0].word}` : `${parts[0].word} ${noun}`}`;
  const listed = parts.map((p) => `${p.n} ${p.word}`);
  return fr ? `${total} ${noun} : ${listed.join(", ")}` : `${listNames(listed)} ${noun}`;
}

/** A bid in words: "3 Fairy Gold + 1 Common Gold + an Amulet". */
export function describeBid(bid) {
  const fr = getLang() === "fr";
  if (!bid) return "";
  const parts = [];
  for (const coin of ["fairy_gold", "common_gold", "silver"]) {
    if (bid[coin]) parts.push(coinAmount(coin, bid[coin]));
  }
  if (bid.amulet) parts.push(fr ? "une amulette" : "an Amulet");
  if (bid.black_magic) parts.push(fr ? "une pièce maudite" : "a Black Magic coin");
  return parts.length ? parts.join(" + ") : t("bid.summary_empty");
}

function fillTemplate(template, event, nameOf) {
  return template.replace(/\{(\w+)\}/g, (m, key) => {
    if (SEAT_KEYS.includes(key) && typeof event[key] === "number") return nameOf(event[key]);
    return key in event ? String(event[key]) : m;
  });
}

/** "Ann: 2 Fairy Gold, Bob: nothing": each name with its bid, a colon between. */
function bidList(bids, n, describe) {
  const colon = getLang() === "fr" ? " : " : ": ";
  return Object.entries(bids || {}).map(([s, b]) => `${n(Number(s))}${colon}${describe(b)}`).join(", ");
}

const withValue = (b) => `${describeBid(b)}${b.amulet ? ` (= ${b.value})` : ""}`;

function victimChoice(e, n) {
  const m = /^seat(\d+)$/.exec(String(e.option));
  if (!m || e.step !== "victim") return null;
  return getLang() === "fr"
    ? `${n(e.seat)} choisit ${n(Number(m[1]))} comme victime ${ofCard(e.character)}.`
    : `${n(e.seat)} picks ${n(Number(m[1]))} as the victim ${ofCard(e.character)}.`;
}

// English sentences for events whose engine text names seats as "Player N" or lacks separators.
const EN = {
  // A seat chosen because it was the only one: named, not "Player 4" (the engine's label).
  auto_choice: (e, n) => {
    const m = /^seat(\d+)$/.exec(String(e.option));
    if (!m) return null;
    const victim = victimChoice(e, n);
    return victim ? `${victim.slice(0, -1)} (the only option).` : `${n(e.seat)}: ${n(Number(m[1]))} (the only option).`;
  },
  choice: (e, n) => victimChoice(e, n) ?? (/^seat(\d+)$/.test(String(e.option))
    ? `${n(e.seat)} chooses ${n(Number(String(e.option).slice(4)))}.` : null),
  // Rebuilt from the data: the engine's text names both Dwarfs "the Dwarf".
  turn_started: (e) => e.specials && e.specials.length
    ? `Turn ${e.turn}: this turn’s special characters are ${listNames(e.specials.map(theCard))}.`
    : e.template ? null : `Turn ${e.turn}.`,
  bids_revealed: (e, n) => `Bids for ${theCard(e.card)}: ${bidList(e.bids, n, withValue)}.`,
  tiebreak_started: (e, n) => `Tie at ${e.value} between ${listNames((e.seats || []).map(n))}: they bid Silver to break it.`,
  tiebreak_revealed: (e, n) => `Tie-break: ${bidList(e.bids, n, (b) => `${b.silver} Silver${b.amulet ? " with an Amulet" : ""}`)}.`,
  score: (e, n) => `${n(e.seat)} scores ${t("table.points", { n: e.points })} (total ${e.score}).`,
  timed_out: (e, n) => timedOut(e, n),
};

const FR = {
  turn_started: (e) => `Tour ${e.turn}${e.specials ? ` : les personnages spéciaux du tour sont ${listNames(e.specials.map(theCard))}` : ""}.`,
  special_deck_reshuffled: () => "Les personnages spéciaux déjà utilisés sont mélangés en une nouvelle pioche.",
  auction_started: (e) => `${charName(e.card)} : mise aux enchères.`,
  bid_submitted: (e, n) => `${n(e.seat)} a misé.`,
  tiebreak_submitted: (e, n) => `${n(e.seat)} a misé pour le départage.`,
  bids_revealed: (e, n) => `Mises pour ${theCard(e.card)} : ${bidList(e.bids, n, withValue)}.`,
  cursed: (e) => `Magie noire ! ${charName(e.card)} est ensorcelé : personne n’utilise son pouvoir.`,
  no_winner: (e) => `Personne ne remporte ${theCard(e.card)}.`,
  tiebreak_started: (e, n) => `Égalité à ${e.value} entre ${listNames((e.seats || []).map(n))} : ils misent de l’argent pour départager.`,
  tiebreak_revealed: (e, n) => `Départage : ${bidList(e.bids, n, (b) => `${b.silver} argent${b.amulet ? " avec une amulette" : ""}`)}.`,
  auction_won: (e, n) => `${n(e.winner)} remporte ${theCard(e.card)}.`,
  gain: (e, n) => {
    if (e.stone) return e.amount ? `${n(e.seat)} prend une pierre ${stoneAdjFr(e.stone)} à la banque.` : `${n(e.seat)} ne reçoit pas de pierre ${stoneAdjFr(e.stone)} : la banque n’en a plus.`;
    if (e.coin === "black_magic") return `${n(e.seat)} prend une pièce maudite.`;
    return `${n(e.seat)} prend ${coinAmount(e.coin, e.amount)} à la banque${e.wanted ? " (la banque n’en avait pas plus)" : ""}.`;
  },
  pay_stones: (e, n) => `${n(e.seat)} paie à la banque ${describeStones(e.stones)}.`,
  score: (e, n) => `${n(e.seat)} marque ${t("table.points", { n: e.points })} (total ${e.score}).`,
  game_over: (e, n) => `${n(e.winner)} gagne la partie !`,
  no_effect: (e, n) => `${charName(e.card)} est sans effet pour ${n(e.seat)}.`,
  steal: (e, n) => {
    if (e.stone) return `${n(e.seat)} vole une pierre ${stoneAdjFr(e.stone)} à ${n(e.victim)}.`;
    if (e.coin) return `${n(e.seat)} vole ${coinAmount(e.coin, 1)} à ${n(e.victim)}, qui n’a pas de pierre.`;
    return `${n(e.seat)} ne vole rien : ${n(e.victim)} n’a ni pierre ni or.`;
  },
  brigand: (e, n) => `${n(e.seat)} dépouille ${n(e.victim)} avec ${theCard("brigand")}.`,
  brigand_haul: (e, n) => `${n(e.seat)} prend ${e.common_gold} or vulgaire et ${e.silver} argent à ${n(e.victim)}.`,
  doppelganger_taken: (e, n) => `${n(e.seat)} garde ${theCard("doppelganger")} face visible.`,
  doppelganger_played: (e, n) => `${n(e.seat)} joue ${theCard("doppelganger")} : ${charName(e.card)} est utilisé deux fois.`,
  draw: (e, n) => `${n(e.seat)} tire ${describeStones(e.stones)} du sac.`,
  bag_filled: () => `Les pierres de la banque vont dans le sac.`,
  rainbow_named: (e, n) => `${n(e.seat)} annonce le ${t("colour." + e.colour)}.`,
  rainbow_draw: (e, n) => e.failed
    ? `${n(e.seat)} tire une pierre ${stoneAdjFr(e.stone)} : la couleur annoncée ! Toutes les pierres tirées repartent.`
    : `${n(e.seat)} tire une pierre ${stoneAdjFr(e.stone)}.`,
  rainbow_end: (e, n) => `${n(e.seat)} garde ${describeStones(e.stones)} ; le sac retourne à la banque.`,
  copy: (e, n) => e.via === "ghost"
    ? `${n(e.seat)} utilise le pouvoir ${ofCard(e.card)} grâce ${toCard("ghost")}.`
    : `${n(e.seat)} prend ${theCard(e.card)} avec ${theCard(e.via)} et utilise son pouvoir.`,
  buy: (e, n) => `${n(e.seat)} achète une pierre ${stoneAdjFr(e.stone)}.`,
  necromancer: (e, n) => `${n(e.seat)} abandonne ${e.fairy_gold} or des fées ${toCard("necromancer")}.`,
  necromancer_declined: (e, n) => `${n(e.seat)} renonce ${toCard("necromancer")}.`,
  troll: (e, n) => `${n(e.seat)} annonce le ${t("colour." + e.colour)} avec ${theCard("troll")} : chacun rend ses pierres de cette couleur.`,
  turn_ended: (e) => `Fin du tour ${e.turn} : l’or des fées dépensé retourne derrière les écrans, les pièces maudites inutilisées retournent à la banque.`,
  choice: (e, n) => choiceFr(e, n),
  auto_choice: (e, n) => {
    const m = /^seat(\d+)$/.exec(String(e.option));
    if (!m) return choiceFr(e, n);
    const victim = victimChoice(e, n);
    return victim ? `${victim.slice(0, -1)} (seule possibilité).` : `${n(e.seat)} : ${n(Number(m[1]))} (seule possibilité).`;
  },
  timed_out: (e, n) => timedOut(e, n),
};

// -- timers and absent players --

/** "Time ran out for Bea: no bid." The engine's text names a chosen seat "Player 2": the line
 *  that follows a power's time-out (the choice) says what was chosen, with names. */
function timedOut(e, n) {
  const kind = ["bid", "tiebreak", "choose"].includes(e.prompt) ? e.prompt : null;
  return kind ? t(`log.timed_out_${kind}`, { name: n(e.seat) }) : null;
}

/** The sentence of a table notice about a stand-in (a line of the table's feed, app.game.feed:
 *  {kind, seat, name, data}), or null for other kinds. */
/** "0:30", "2:00": minutes and seconds. */
export function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const ss = String(s % 60).padStart(2, "0");
  // A slow table's grace is days: hours, not thousands of minutes.
  if (s >= 3600) return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${ss}`;
  return `${Math.floor(s / 60)}:${ss}`;
}

export function noticeSentence(notice, nameOf) {
  const data = notice.data || {};
  const name = notice.name ? iso(notice.name) : typeof notice.seat === "number" ? nameOf(notice.seat) : "";
  if (notice.kind === "back") return typeset(t("log.back", { name }));
  if (notice.kind === "away") {
    // "Ben left the table — a bot will play for them in 0:30."
    const left = clock(Number(data.grace) || 0);
    return typeset(t(data.auto ? "notice.away" : "notice.away_untimed", { name, t: left }));
  }
  if (notice.kind !== "stand_in") return null;
  if (typeof data.by === "number") {
    return typeset(t("log.stand_in_by", { name, by: data.by_name ? iso(data.by_name) : nameOf(data.by) }));
  }
  return typeset(t(data.away ? "log.stand_in_away" : "log.stand_in_auto", { name }));
}

function choiceFr(e, n) {
  // The English template already holds the engine's label; French says who chose what.
  const victim = victimChoice(e, n);
  if (victim) return victim;
  const label = promptText(e.character, e.step, e.option) ?? describeOptionFr({ id: e.option }, n);
  return label ? `${n(e.seat)} choisit : ${label.charAt(0).toLowerCase()}${label.slice(1)}.` : null;
}

/** The sentence for one event, in the current language, with names. */
export function eventSentence(event, nameOf) {
  const table = getLang() === "fr" ? FR : EN;
  const fn = table[event.type];
  if (fn) {
    try {
      const text = fn(event, nameOf);
      if (text) return typeset(text);
    } catch {
      /* fall through to the engine's text */
    }
  }
  if (typeof event.template === "string") return fillTemplate(event.template, event, nameOf);
  return event.text || event.type;
}

/** How an event is styled in the log. */
export function eventClass(event) {
  switch (event.type) {
    case "turn_started": return "turn";
    case "auction_started": return "auction";
    case "auction_won": return "win";
    case "score": case "game_over": return "score";
    case "timed_out": return "timeout";
    default: return "";
  }
}

/** Events too small to list (who has bid is shown on the seats). */
export function isNoise(event) {
  return event.type === "bid_submitted" || event.type === "tiebreak_submitted";
}
