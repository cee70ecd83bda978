// The seats around the table: name, presence, score, stones, Fairy Gold spent, the Doppelganger,
// and whether each player has bid or is deciding.

import { h, $, fill } from "../common.js";
import { t } from "../i18n.js";
import { coinStack, stonesEl } from "../cards.js";
import { state, subscribe, mySeat, nameOf, playerInfo } from "../store.js";

function seatStatus(seat) {
  const v = state.view;
  if (!v || v.winner !== null) return null;
  const awaiting = (v.awaiting || []).find((a) => a.seat === seat);
  const auction = v.auction || {};
  if (v.phase === "bid") {
    if (awaiting) return { cls: "waiting", text: t("table.status_thinking") };
    if ((auction.bids_submitted || []).includes(seat)) return { cls: "done", text: "✓ " + t("table.status_bid") };
  } else if (v.phase === "tiebreak") {
    if (awaiting) return { cls: "waiting", text: t("table.status_tiebreak") };
    if ((auction.tiebreak_submitted || []).includes(seat)) return { cls: "done", text: "✓ " + t("table.status_bid") };
  } else if (v.phase === "choose" && awaiting) {
    return { cls: "waiting", text: t("table.status_choosing") };
  }
  return null;
}

/** The score as a die with its word under it: "2 points". */
export function scoreEl(score) {
  return h("span", { class: "score-box", "aria-label": t("table.points", { n: score }) },
    h("span", { class: "score-die", dataset: { score }, "aria-hidden": "true" }, String(score)),
    h("span", { class: "score-label", "aria-hidden": "true" }, t("table.points_word", { n: score })));
}

function render() {
  const v = state.view;
  const box = $("#seats");
  if (!v || !box) return;
  const me = mySeat();
  fill(box, v.players.map((p) => {
    const info = playerInfo(p.seat);
    const status = seatStatus(p.seat);
    const active = (v.awaiting || []).some((a) => a.seat === p.seat);
    const on = Boolean(info && (info.connected || info.bot));
    return h("section", {
      class: `seat ${p.seat === me ? "me" : ""} ${active ? "active" : ""} ${v.winner === p.seat ? "winner" : ""}`,
      dataset: { seat: p.seat },
      "aria-label": nameOf(p.seat),
    },
      h("div", { class: "seat-head" },
        h("span", {
          class: `presence ${on ? "on" : ""}`, role: "img",
          title: on ? t("table.connected") : t("table.disconnected"),
          "aria-label": on ? t("table.connected") : t("table.disconnected"),
        }),
        h("span", { class: "seat-name", title: nameOf(p.seat) }, nameOf(p.seat)),
        info && info.bot ? h("span", { class: "tag" }, t("table.bot")) : null,
        p.seat === me ? h("span", { class: "tag" }, t("table.you")) : null,
        scoreEl(p.score)),
      h("div", { class: "seat-row" }, stonesEl(p.stones)),
      h("div", { class: "seat-row spent" }, coinStack("fairy_gold", p.fairy_gold_spent, { label: t("table.spent") })),
      p.has_doppelganger ? h("span", { class: "doppel-badge" }, "♊ ", t("table.holds_doppelganger")) : null,
      status ? h("span", { class: `seat-status ${status.cls}`, dataset: { status: status.cls } }, status.text) : null);
  }));
}

export function mount() {
  subscribe((changed) => {
    if (["view", "table", "hello", "seat"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
