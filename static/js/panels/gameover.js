// The game-over card: the winner, everyone's score and stones, the seed, the replay. Closed, it
// comes back with the "Results" button of the top bar.

import { h, $, fill, api, ApiError, savedSeat, saveSeat, iso } from "../common.js";
import { t } from "../i18n.js";
import { stonesEl } from "../cards.js";
import { state, subscribe, update, mySeat, nameOf, isOver } from "../store.js";

// -- play again with the same players --

const rematch = { busy: false, error: null, hostName: null, fetched: null, bots: true };

/** Take (or find again) this person's seat at the new table, keep its token, go there. */
async function playAgain() {
  if (rematch.busy || !state.seat) return;
  rematch.busy = true;
  rematch.error = null;
  render();
  const table = state.table || {};
  const iHost = table.host === mySeat();
  try {
    const body = iHost && !table.rematch_id ? { bots: rematch.bots } : {};
    const answer = await api("POST", `/api/tables/${encodeURIComponent(state.tableId)}/rematch`, { body, token: state.seat.token });
    saveSeat(answer.table_id, { seat: answer.seat, token: answer.token, name: state.seat.name });
    window.location.assign(`/t/${encodeURIComponent(answer.table_id)}`);
  } catch (e) {
    rematch.error = e instanceof ApiError ? e.message : String(e);
    rematch.busy = false;
    render();
  }
}

/** The name of whoever opened the new table (its host), read once. */
async function fetchRematchHost(id) {
  if (rematch.fetched === id) return;
  rematch.fetched = id;
  try {
    const table = await api("GET", `/api/tables/${encodeURIComponent(id)}`);
    const host = (table.players || []).find((p) => p.seat === table.host);
    rematch.hostName = host ? iso(host.name) : null;
    // Nobody seated there yet (a moment after it opened): ask again shortly.
    if (!host) window.setTimeout(() => { rematch.fetched = null; render(); }, 1000);
    render();
  } catch {
    /* the link works without the name */
  }
}

function rematchEl() {
  const table = state.table;
  if (!table) return null;
  const seated = mySeat() !== null && state.seat;
  const id = table.rematch_id;
  const newPath = id ? table.rematch_path || `/t/${encodeURIComponent(id)}` : null;
  if (id) fetchRematchHost(id);
  const hasBots = (table.players || []).some((p) => p.bot);
  let main = null;
  if (!id && seated) {
    main = h("div", { class: "again" },
      h("button", { type: "button", class: "btn primary", id: "rematch-button", disabled: rematch.busy, onclick: playAgain }, t("end.again")),
      table.host === mySeat() && hasBots
        ? h("label", { class: "check" },
          h("input", { type: "checkbox", id: "rematch-bots", checked: rematch.bots, onchange: (ev) => { rematch.bots = ev.currentTarget.checked; } }),
          h("span", {}, t("end.again_bots")))
        : null);
  } else if (id && seated && savedSeat(id)) {
    main = h("a", { class: "btn primary", id: "rematch-go", href: newPath }, t("end.again_go"));
  } else if (id && seated) {
    const text = rematch.hostName ? t("end.again_link", { name: rematch.hostName }) : t("end.again_open");
    main = h("button", { type: "button", class: "btn primary", id: "rematch-join", disabled: rematch.busy, onclick: playAgain }, text);
  } else if (id) {
    // A spectator watches the new table (not its join form, which a full table refuses).
    const watchPath = `/t/${encodeURIComponent(id)}?watch=1`;
    main = h("a", { class: "btn", id: "rematch-watch", href: watchPath }, t("end.again_watch"));
  }
  return [main, rematch.error ? h("p", { class: "form-error", role: "alert" }, rematch.error) : null];
}

/** While the card is up it covers the page below the top bar. That part is inert, so no focus
 * or click lands on a control hidden under the card (WCAG 2.4.11; axe's target-size found the
 * chat's Send button under it); the top bar stays in use (language, sound, results). */
function cover(open) {
  const box = $("#end-view");
  for (const el of box.parentElement.children) {
    if (el !== box) el.inert = open;
  }
  if (open) box.style.top = `${Math.max(0, $(".topbar").getBoundingClientRect().bottom)}px`;
}

function render() {
  const box = $("#end-view");
  const reopen = $("#show-end");
  const over = isOver();
  reopen.hidden = !over || !state.endDismissed;
  if (!over || state.endDismissed) {
    if (!box.hidden) cover(false);
    box.hidden = true;
    return;
  }
  const opening = box.hidden;
  const v = state.view;
  const me = mySeat();
  const scores = v.players.slice().sort((a, b) => b.score - a.score);
  const gameId = state.gameId || (state.table && state.table.game_id);
  const close = () => {
    update({ endDismissed: true });
    reopen.focus();
  };
  // The end view is drawn again on every frame: a control that had the keyboard focus keeps it
  // (a spectator's Enter on "Watch the new table" was lost between focus and keypress).
  const focused = document.activeElement;
  const refocus = focused && focused.id && box.contains(focused) ? focused.id : null;
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
    h("div", { class: "end-rematch", id: "end-rematch" }, rematchEl()),
    h("div", { class: "end-actions" },
      gameId ? h("a", { class: "btn primary", id: "replay-page-link", href: `/replay/${encodeURIComponent(gameId)}` }, t("end.replay_page")) : null,
      h("a", { class: "btn", href: "/" }, t("end.lobby")),
      gameId ? h("a", { class: "btn subtle", id: "replay-link", href: `/api/games/${encodeURIComponent(gameId)}`, target: "_blank", rel: "noopener" }, t("end.replay")) : null,
      h("button", { type: "button", class: "btn subtle close", "aria-label": "✕", onclick: close }, "✕"))));
  box.hidden = false;
  cover(true);
  if (refocus && !box.contains(document.activeElement)) {
    const again = box.querySelector(`#${CSS.escape(refocus)}`);
    if (again) again.focus();
  } else if (opening && !box.contains(document.activeElement) && !$(".topbar").contains(document.activeElement)) {
    box.focus(); // the keyboard starts in the card, not on a control now under it
  }
}

export function mount() {
  $("#show-end").addEventListener("click", () => update({ endDismissed: false }));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !$("#end-view").hidden) update({ endDismissed: true });
  });
  window.addEventListener("resize", () => { if (!$("#end-view").hidden) cover(true); });
  subscribe((changed) => {
    if (["view", "endDismissed", "table", "gameId"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
