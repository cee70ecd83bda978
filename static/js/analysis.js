// After the game, on the replay page: every screen opened (each player's coins and sealed bids at
// the step shown, from GET /api/games/{id}/screens) and the hard bot's analysis of each decision
// (GET /api/games/{id}/analysis, asked again until it is complete): a graph of every player's
// estimated chance of winning, each player's summary, the key moments and the labelled decisions.
// Both exist only once the game is over: the server refuses them before.

import { h, $, fill, api, setText } from "./common.js";
import { t } from "./i18n.js";
import { charName, theCard } from "./characters.js";
import { optionLabel } from "./prompt-text.js";
import { state, subscribe, nameOf } from "./store.js";

const COINS = ["fairy_gold", "common_gold", "silver", "amulets", "black_magic"];
const SHOWN = ["inaccuracy", "mistake", "blunder"];
const POLL_MS = 1500;
const SVG = "http://www.w3.org/2000/svg";
const W = 600;
const H = 200;

let screens = null;
let analysis = null;
let seats = 0;
let goTo = () => {};

/** A percentage as `dragonstones analyse` prints it. */
const percent = (x) => (x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}%`);

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** An action in a few words, in the reader's language. */
export function describe(action, d) {
  if (action.type === "bid") {
    let text = t("analysis.bid", { n: action.fairy_gold + action.common_gold });
    if (action.amulet) text += t("analysis.with_amulet");
    if (action.black_magic) text += t("analysis.with_black_magic");
    return text;
  }
  if (action.type === "tiebreak") {
    return t("analysis.tiebreak", { n: action.silver }) + (action.amulet ? t("analysis.with_amulet") : "");
  }
  const option = { id: action.option, label: d.options[action.option] ?? action.option };
  return optionLabel({ character: d.character, step: d.step }, option, nameOf);
}

function renderScreens() {
  const table = $("#screens-table");
  if (!table || !screens) return;
  const at = screens.versions.find((v) => v.version === state.version) || screens.versions[0];
  const head = h("tr", {}, h("th", { scope: "col" }, t("table.players")),
    COINS.map((c) => h("th", { scope: "col" }, t(`coin.${c}`))), h("th", { scope: "col" }, t("screens.sealed")));
  const rows = at.screens.map((s) => {
    const sealed = s.bid ? describe({ type: "bid", ...s.bid }, { options: {} })
      : s.tiebreak ? describe({ type: "tiebreak", ...s.tiebreak }, { options: {} }) : "";
    return h("tr", { dataset: { seat: String(s.seat) } }, h("th", { scope: "row" }, nameOf(s.seat)),
      COINS.map((c) => h("td", { dataset: { coin: c } }, String(s.coins[c]))), h("td", { class: "sealed" }, sealed));
  });
  fill(table, h("thead", {}, head), h("tbody", {}, rows));
}

function graph(decisions, total) {
  // x: the move (a decision made version index + 1); y: the estimated chance, 0 to 100 %.
  const x = (i) => (total > 1 ? (i / (total - 1)) * (W - 50) + 40 : W / 2);
  const y = (p) => H - 10 - p * (H - 20);
  const lines = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const mine = decisions.filter((d) => d.seat === seat && d.chance !== null);
    if (!mine.length) continue;
    const points = mine.map((d) => `${x(d.index + 1).toFixed(1)},${y(d.chance).toFixed(1)}`).join(" ");
    lines.push(svg("polyline", { class: `an-line an-seat-${seat}`, points, fill: "none" }));
    for (const d of mine.filter((m) => SHOWN.includes(m.label))) {
      const dot = svg("circle", { class: `an-dot an-${d.label} an-seat-${seat}`, cx: x(d.index + 1), cy: y(d.chance), r: 4 },
        svg("title", {}, `${nameOf(seat)}: ${t(`analysis.label.${d.label}`)}`));
      dot.addEventListener("click", () => goTo(d.index + 1));
      lines.push(dot);
    }
  }
  const grid = [0, 0.25, 0.5, 0.75, 1].flatMap((p) => [
    svg("line", { class: "an-grid", x1: 40, x2: W - 10, y1: y(p), y2: y(p) }),
    svg("text", { class: "an-axis", x: 34, y: y(p) + 4, "text-anchor": "end" }, `${p * 100}%`),
  ]);
  const now = state.version !== undefined ? svg("line", { class: "an-now", x1: x(state.version), x2: x(state.version), y1: 5, y2: H - 5 }) : null;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "an-graph", "aria-labelledby": "an-graph-title" },
    svg("title", { id: "an-graph-title" }, t("analysis.graph")), ...grid, ...lines);
  if (now) chart.append(now);
  const legend = h("ul", { class: "an-legend" }, Array.from({ length: seats }, (_, s) =>
    h("li", { class: `an-seat-${s}` }, h("span", { class: "an-swatch", "aria-hidden": "true" }), nameOf(s))));
  return [chart, legend];
}

function renderAnalysis() {
  const area = $("#analysis-area");
  if (!area || !analysis) return;
  const a = analysis;
  setText($("#analysis-status"), a.complete ? t("analysis.done", { n: a.total, worlds: a.worlds })
    : t("analysis.progress", { done: a.done, total: a.total }));
  area.dataset.complete = a.complete ? "yes" : "no";
  fill($("#analysis-graph"), graph(a.decisions, Math.max(a.total + 1, 2)));
  const head = h("tr", {}, h("th", { scope: "col" }, t("table.players")), h("th", { scope: "col" }, t("analysis.decisions")),
    SHOWN.map((l) => h("th", { scope: "col" }, t(`analysis.label.${l}`))), h("th", { scope: "col" }, t("analysis.average_loss")));
  const rows = a.summary.map((r) => h("tr", { dataset: { seat: String(r.seat) } }, h("th", { scope: "row" }, nameOf(r.seat)),
    h("td", {}, String(r.decisions)), SHOWN.map((l) => h("td", { dataset: { label: l } }, String(r.labels[l]))),
    h("td", {}, percent(r.average_loss))));
  fill($("#analysis-summary"), h("thead", {}, head), h("tbody", {}, rows));
  fill($("#analysis-moments"), a.key_moments.map((m) => h("li", {},
    h("button", { type: "button", class: "linkish", onclick: () => goTo(m.index + 1) }, t("analysis.step", { n: m.index + 1 })),
    " ", t("analysis.swing", { name: nameOf(m.seat), swing: `${m.swing > 0 ? "+" : ""}${(m.swing * 100).toFixed(1)}` }))));
  const labelled = a.decisions.filter((d) => SHOWN.includes(d.label));
  fill($("#analysis-labels"), labelled.length ? labelled.map((d) => h("li", { class: `an-${d.label}`, dataset: { index: String(d.index), label: d.label } },
    h("button", { type: "button", class: "linkish", onclick: () => goTo(d.index + 1) }, t("analysis.step", { n: d.index + 1 })), " ",
    h("strong", {}, t(`analysis.label.${d.label}`)), " — ",
    t(`analysis.sentence.${d.kind}`, { name: nameOf(d.seat), card: charName(d.character), the_card: theCard(d.character), taken: describe(d.action, d), best: describe(d.best, d) }),
    " ", t("analysis.figures", { chance: percent(d.chance), best: percent(d.best_chance), playouts: d.playouts })))
    : h("li", {}, t(a.complete ? "analysis.none" : "analysis.none_yet")));
}

async function poll(gameId) {
  try {
    analysis = await api("GET", `/api/games/${encodeURIComponent(gameId)}/analysis`);
  } catch (err) {
    // The server away for a moment (a restart resumes the analysis): ask again later.
    if (err && (err.status === 0 || err.status >= 500)) window.setTimeout(() => poll(gameId), POLL_MS * 2);
    else setText($("#analysis-status"), t("analysis.unavailable"));
    return;
  }
  renderAnalysis();
  if (!analysis.complete) window.setTimeout(() => poll(gameId), POLL_MS);
}

/** Show every screen and the analysis of the finished game `gameId`; `jump(version)` moves the
 *  replay to a step. */
export async function mountAfterGame(gameId, seatCount, jump) {
  seats = seatCount;
  goTo = jump;
  subscribe(() => { renderScreens(); renderAnalysis(); });
  $("#screens-area").hidden = false;
  $("#analysis-area").hidden = false;
  poll(gameId);
  try {
    screens = await api("GET", `/api/games/${encodeURIComponent(gameId)}/screens`);
    renderScreens();
  } catch {
    setText($("#screens-table"), t("analysis.unavailable"));
  }
}
