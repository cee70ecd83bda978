// The seats around the table: name, presence, score, stones, Fairy Gold spent, the Doppelganger,
// whether each player has bid or is deciding, a bot playing for an absent player, and the button
// that hands an absent player's seat to a bot.

import { h, $, fill, api, ApiError, setText } from "../common.js";
import { clock } from "../events.js";
import { t } from "../i18n.js";
import { coinStack, stonesEl } from "../cards.js";
import { theCard } from "../characters.js";
import { linkCards } from "../popover.js";
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
  return h("span", { class: "score-box", role: "img", "aria-label": t("table.points", { n: score }) },
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
        // A bot says its level at the table too ("bot · hard"), with the icon the page ships.
        info && info.bot ? h("span", { class: "tag bot-tag" }, h("i", { class: "bot-icon", "aria-hidden": "true" }),
          info.bot_kind ? `${t("table.bot")} · ${t(`table.bot_kind.${info.bot_kind}`)}` : t("table.bot")) : null,
        p.seat === me ? h("span", { class: "tag" }, t("table.you")) : null,
        scoreEl(p.score)),
      h("div", { class: "seat-row" }, stonesEl(p.stones)),
      h("div", { class: "seat-row spent" }, coinStack("fairy_gold", p.fairy_gold_spent, { label: t("table.spent") })),
      p.has_doppelganger ? linkCards(h("span", { class: "doppel-badge" }, "♊ ", t("table.holds_doppelganger", { card: theCard("doppelganger") }))) : null,
      status ? h("span", { class: `seat-status ${status.cls}`, dataset: { status: status.cls } }, status.text) : null,
      standInEl(p.seat, info, me));
  }));
}

// -- timers and absent players --

/** "bot playing for Bea" on a seat a bot plays for; on an absent player's seat, for the other
 *  seated players, the button that hands it to a bot (the server checks the grace period). */
function standInEl(seat, info, me) {
  if (!info || info.bot) return null;
  if (info.stand_in) {
    return h("span", { class: "seat-standin", dataset: { standIn: seat } }, h("i", { class: "bot-icon", "aria-hidden": "true" }), " ", t("table.stand_in", { name: nameOf(seat) }));
  }
  const over = state.view && state.view.winner !== null;
  const away = !over && !info.connected && info.away_since ? awayEl(seat) : null;
  if (!info.absent || me === null || me === seat || over) return away;
  const error = h("span", { class: "form-error", role: "alert", hidden: true });
  const button = h("button", {
    type: "button", class: "btn small hand-to-bot", dataset: { handToBot: seat },
    title: t("table.hand_to_bot_title", { name: nameOf(seat) }),
    onclick: async () => {
      button.disabled = true;
      try {
        await api("POST", `/api/tables/${encodeURIComponent(state.tableId)}/seats/${seat}/standin`, { token: state.seat.token });
      } catch (e) {
        error.textContent = e instanceof ApiError ? e.message : String(e);
        error.hidden = false;
        button.disabled = false;
      }
    },
  }, t("table.hand_to_bot"));
  return [away, h("div", { class: "seat-row standin-offer" }, h("span", { class: "tag away" }, t("table.away")), button, error)];
}

// A person who left is named in words on their seat, with the time until a bot plays
// for them at a timed table. Shown once they have been away a few seconds (a reload says nothing).
const AWAY_SHOWN_AFTER_MS = 5000;

function awayEl(seat) {
  const el = h("p", { class: "seat-away", dataset: { awaySeat: seat }, hidden: true });
  tickAway(el);
  return el;
}

function tickAway(el) {
  const seat = Number(el.dataset.awaySeat);
  const info = playerInfo(seat);
  const table = state.table || {};
  if (!info || info.connected || info.stand_in || !info.away_since) return;
  const since = Date.parse(info.away_since);
  const now = Date.now();
  el.hidden = now - since < AWAY_SHOWN_AFTER_MS;
  const timed = Boolean(table.turn_seconds || table.choose_seconds);
  const left = (since + (table.grace_seconds || 0) * 1000 - now) / 1000;
  const text = timed && left > 0
    ? t("table.left_bot_in", { name: nameOf(seat), t: clock(left) })
    : t("table.left_table", { name: nameOf(seat) });
  if (el.textContent !== text.replace(/[\u2068\u2069]/g, "")) setText(el, text);
}

export function mount() {
  window.setInterval(() => document.querySelectorAll("#seats [data-away-seat]").forEach(tickAway), 1000);
  subscribe((changed) => {
    if (["view", "table", "hello", "seat"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
