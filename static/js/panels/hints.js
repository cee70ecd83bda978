// The hints of "Learn to play" (learn.js): at each step of the newcomer's game, one short hint
// above the action panel saying what is happening and what to do, in the page's language, read
// politely by screen readers; "Hide the hints" ends them for this table.

import { h, $, fill } from "../common.js";
import { t } from "../i18n.js";
import { state, subscribe, myPrompt, isOver, nameOf, mySeat, promptKey } from "../store.js";
import { isLearning, stopLearning } from "../learn.js";

/** Which hint the game calls for now. */
function step() {
  if (isOver()) return state.view.winner === mySeat() ? "won" : "over";
  const prompt = myPrompt();
  if (prompt && prompt.kind === "bid") return state.pending ? "sent" : "bid";
  if (prompt && prompt.kind === "tiebreak") return state.pending ? "sent" : "tiebreak";
  if (prompt && prompt.kind === "choose") return "choose";
  const last = state.log[state.log.length - 1];
  if (last && last.type === "score") return "score";
  if (state.log.some((e) => e.type === "bids_revealed")) return "reveal";
  return "wait";
}

const MINE = new Set(["bid_submitted", "tiebreak_submitted", "choice"]);

/** What happened since this seat's last decision that the next hint should explain first (the
 * bots answer at once, so a reveal or a point is over before a "wait" hint could show it). */
function news() {
  const me = mySeat();
  let i = state.log.length - 1;
  while (i >= 0 && !(MINE.has(state.log[i].type) && state.log[i].seat === me)) i -= 1;
  if (i < 0) return "";
  const since = state.log.slice(i + 1);
  if (since.some((e) => e.type === "score")) return "score";
  if (since.some((e) => e.type === "bids_revealed")) return "reveal";
  return "";
}

function render() {
  const box = $("#learn-hint");
  if (!box) return;
  const on = Boolean(state.tableId && isLearning(state.tableId) && state.view);
  box.hidden = !on;
  if (!on) return;
  const key = step();
  // Which decision or moment: the same hint for the next card is another step.
  box.dataset.step = `${promptKey(myPrompt()) || ""}|v${state.version}`;
  const acting = ["bid", "tiebreak", "choose"].includes(key) ? news() : "";
  const lang = document.documentElement.lang;
  if (box.dataset.hint === key && box.dataset.news === acting && box.dataset.lang === lang) return;
  box.dataset.hint = key;
  box.dataset.news = acting;
  box.dataset.lang = lang;
  const winner = state.view.winner;
  fill(box,
    acting ? h("p", { class: "learn-news" }, t(`learn.${acting}`)) : null,
    h("p", { class: "learn-text" }, t(`learn.${key}`, { name: winner !== null && winner !== undefined ? nameOf(winner) : "" })),
    h("p", { class: "learn-actions" },
      key === "won" || key === "over" ? h("a", { class: "btn small", href: "/" }, t("learn.play_real")) : null,
      h("a", { class: "btn small", href: "/rules", target: "_blank", rel: "noopener" }, t("rules.link")),
      h("button", { type: "button", class: "btn small", onclick: () => { stopLearning(state.tableId); render(); } },
        t("learn.hide"))));
}

export function mount() {
  const main = $("#game-view") || $("main");
  if (!main || $("#learn-hint")) return;
  main.prepend(h("aside", { id: "learn-hint", class: "panel learn-hint", role: "status", "aria-live": "polite", hidden: true }));
  subscribe(() => render());
  render();
}
