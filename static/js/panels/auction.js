// The middle of the table: this turn's specials and auctioned cards with who won each, the card up
// for auction, the bank, and the last reveal (every fist, the tie-break, what the power did), which
// stays until the next reveal, across turns.

import { h, $, fill } from "../common.js";
import { t, getLang, listNames } from "../i18n.js";
import { charName } from "../characters.js";
import { cardEl, coinStack, stonesEl } from "../cards.js";
import { eventSentence, describeBid } from "../events.js";
import { state, subscribe, nameOf, canonical } from "../store.js";

function recordResult(r, running) {
  if (r.cursed) return t("table.cursed");
  if (r.winner !== null && r.winner !== undefined) return t("table.winner_of", { name: nameOf(r.winner) });
  // A tie still being broken has no result yet.
  if (running && r.tied && r.tied.length && !r.tiebreak) return t("table.tiebreak_running");
  if (r.bids) return t("table.no_winner");
  return r.via && r.via !== "auction" ? charName(r.via) : "";
}

function renderCentre() {
  const v = state.view;
  const records = v.turn_cards || [];
  const last = records.length - 1;
  fill($("#turn-area"),
    h("h3", {}, t("table.turn", { n: v.turn })),
    h("h3", {}, t("table.specials")),
    h("div", { class: "card-row specials" }, (v.specials || []).map((c) => cardEl(c, { size: "mini" }))),
    h("h3", {}, t("table.turn_cards")),
    h("div", { class: "card-row played-cards" }, records.map((r, i) => {
      const result = recordResult(r, i === last && v.phase === "tiebreak");
      return h("div", { class: `played ${r.cursed ? "cursed" : ""}`, title: `${charName(r.character)} — ${result}` },
        cardEl(r.character, { size: "mini" }),
        h("span", { class: "result" }, result));
    })));

  const auction = $("#auction-area");
  if (v.auction && v.winner === null) {
    const key = `${getLang()}|${v.turn}|${v.auction.number}|${v.auction.character}|${v.pile_count}`;
    if (auction.dataset.key !== key) {
      auction.dataset.key = key;
      fill(auction,
        h("span", { class: "label" }, v.phase === "choose" ? charName(v.auction.character) : t("table.auction")),
        cardEl(v.auction.character, { size: "big" }),
        h("div", { class: "pile-info" }, h("span", { class: "card-back", "aria-hidden": "true" }), t("table.pile", { n: v.pile_count ?? 0 })));
    }
  } else {
    auction.dataset.key = "";
    fill(auction);
  }

  const b = v.bank;
  fill($("#bank-area"),
    h("h3", {}, t("table.bank")),
    h("div", { class: "bank-grid" },
      coinStack("fairy_gold", b.fairy_gold),
      coinStack("common_gold", b.common_gold),
      coinStack("silver", b.silver),
      coinStack("amulets", b.amulets),
      stonesEl(b.stones, { compact: true })),
    v.bag ? h("div", { class: "bag-box" }, h("h3", {}, t("table.bag")), stonesEl(v.bag, { compact: true }),
      v.rainbow ? h("p", { class: "muted" }, t("table.outcome", { card: nameOf(v.rainbow.seat), result: t("colour." + v.rainbow.colour) })) : null) : null);
}

function coins(kind, n) {
  return Array.from({ length: Math.min(n, 10) }, () => h("i", { class: `coin ${kind}` }));
}

function renderReveal() {
  const box = $("#reveal-area");
  const reveal = state.lastReveal;
  if (!reveal) {
    box.dataset.key = "";
    fill(box);
    return;
  }
  const r = reveal.record;
  const key = `${getLang()}|${state.view.turn}|${reveal.turn}|${reveal.index}|${canonical(r)}|${reveal.effects.length}|${canonical((state.table || {}).players || [])}`;
  if (box.dataset.key === key) return; // unchanged: leave the live region quiet
  box.dataset.key = key;
  const fists = Object.entries(r.bids).map(([seatText, bid]) => {
    const seat = Number(seatText);
    const tb = r.tiebreak ? r.tiebreak[seatText] : null;
    return h("div", { class: `fist ${r.winner === seat ? "win" : ""}`, dataset: { seat } },
      h("span", { class: "who", title: nameOf(seat) }, nameOf(seat)),
      h("span", { class: "coins", "aria-hidden": "true" }, coins("fairy_gold", bid.fairy_gold), coins("common_gold", bid.common_gold),
        bid.amulet ? coins("amulets", 1) : null, bid.black_magic ? coins("black_magic", 1) : null),
      h("span", { class: "value" }, `${describeBid(bid)} = ${bid.value}`),
      tb ? h("span", { class: "coins tb", "aria-hidden": "true" }, coins("silver", tb.silver), tb.amulet ? coins("amulets", 1) : null) : null,
      tb ? h("span", { class: "value" }, `${describeBid({ silver: tb.silver, amulet: tb.amulet })} = ${tb.value}`) : null);
  });
  let outcome;
  const card = charName(r.character);
  if (r.cursed) outcome = t("table.outcome", { card, result: t("table.cursed") });
  else if (r.winner !== null && r.winner !== undefined) outcome = t("table.outcome", { card, result: t("table.winner_of", { name: nameOf(r.winner) }) });
  else if (r.tied && r.tied.length && !r.tiebreak) outcome = t("prompt.tiebreak_others", { names: listNames(r.tied.map(nameOf)) });
  else outcome = t("table.outcome", { card, result: t("table.no_winner") });
  const effects = reveal.effects.map((e) => h("li", {}, eventSentence(e, nameOf)));
  fill(box, h("div", { class: "reveal", dataset: { auction: reveal.index, turn: reveal.turn } },
    h("h3", {}, t("table.last_auction"), reveal.turn !== state.view.turn ? ` (${t("table.turn", { n: reveal.turn })})` : ""),
    h("div", { class: "reveal-bids" }, fists),
    h("p", { class: "reveal-outcome" }, outcome),
    effects.length ? h("ul", { class: "effects" }, effects) : null));
}

export function mount() {
  subscribe((changed) => {
    if (!state.view) return;
    if (changed.size === 0) $("#auction-area").dataset.key = ""; // a language switch
    if (["view", "table"].some((k) => changed.has(k)) || changed.size === 0) renderCentre();
    if (["lastReveal", "table", "view"].some((k) => changed.has(k)) || changed.size === 0) renderReveal();
  });
}
