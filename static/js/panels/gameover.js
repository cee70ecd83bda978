// The game-over card: the winner, everyone's score and stones, the seed, the replay. Closed, it
// comes back with the "Results" button of the top bar.

import { h, $, fill } from "../common.js";
import { t } from "../i18n.js";
import { stonesEl } from "../cards.js";
import { state, subscribe, update, mySeat, nameOf, isOver } from "../store.js";

function render() {
  const box = $("#end-view");
  const reopen = $("#show-end");
  const over = isOver();
  reopen.hidden = !over || !state.endDismissed;
  if (!over || state.endDismissed) {
    box.hidden = true;
    return;
  }
  const v = state.view;
  const me = mySeat();
  const scores = v.players.slice().sort((a, b) => b.score - a.score);
  const gameId = state.gameId || (state.table && state.table.game_id);
  const close = () => {
    update({ endDismissed: true });
    reopen.focus();
  };
  fill(box, h("div", { class: "end-box" },
    h("h2", { id: "end-title" }, t("end.title")),
    h("p", { class: "winner-name", dataset: { winner: v.winner } }, v.winner === me ? t("end.you_win") : t("end.winner", { name: nameOf(v.winner) })),
    h("ol", { class: "end-scores" }, scores.map((p) => h("li", { dataset: { seat: p.seat } },
      h("span", { class: "name", title: nameOf(p.seat) }, nameOf(p.seat)),
      stonesEl(p.stones, { compact: true }),
      h("strong", { class: "points" }, t("table.points", { n: p.score }))))),
    v.seed !== null && v.seed !== undefined
      ? h("p", { class: "hint seed" }, t("end.seed", { seed: v.seed, commitment: String(v.seed_commitment || "").slice(0, 16) }))
      : null,
    h("div", { class: "end-actions" },
      gameId ? h("a", { class: "btn primary", id: "replay-page-link", href: `/replay/${encodeURIComponent(gameId)}` }, t("end.replay_page")) : null,
      h("a", { class: "btn", href: "/" }, t("end.lobby")),
      gameId ? h("a", { class: "btn subtle", id: "replay-link", href: `/api/games/${encodeURIComponent(gameId)}`, target: "_blank", rel: "noopener" }, t("end.replay")) : null,
      h("button", { type: "button", class: "btn subtle close", "aria-label": "✕", onclick: close }, "✕"))));
  box.hidden = false;
}

export function mount() {
  $("#show-end").addEventListener("click", () => update({ endDismissed: false }));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !$("#end-view").hidden) update({ endDismissed: true });
  });
  subscribe((changed) => {
    if (["view", "endDismissed", "table", "gameId"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
