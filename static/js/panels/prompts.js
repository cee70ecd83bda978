// The action panel: this seat's open prompt (bid, tie-break or choice), "sent" once a sealed bid
// is in, or who the table is waiting for. Digits 1-9 pick an option of a choice.

import { h, $, fill } from "../common.js";
import { t, listNames } from "../i18n.js";
import { charName } from "../characters.js";
import { bidPanel, tiebreakPanel, choosePanel, sentPanel } from "../forms.js";
import { state, subscribe, mySeat, myPrompt, promptKey, nameOf, canonical } from "../store.js";
import { sendAction } from "../socket.js";

let panelKey = null; // what the panel was built for: a rebuild would lose what the person typed

function idleText(v) {
  const awaiting = v.awaiting || [];
  if (awaiting.length && awaiting[0].kind === "choose") {
    return t("prompt.choose_other", { name: nameOf(awaiting[0].seat), card: charName(awaiting[0].character) });
  }
  if (awaiting.length && awaiting[0].kind === "tiebreak") {
    return t("prompt.tiebreak_others", { names: listNames(((v.auction && v.auction.tied) || awaiting.map((a) => a.seat)).map(nameOf)) });
  }
  if (awaiting.length) return t("turn.waiting_bids", { names: listNames(awaiting.map((a) => nameOf(a.seat))) });
  return t("turn.none");
}

function render(force) {
  const area = $("#action-area");
  const v = state.view;
  if (!v) return;
  const prompt = myPrompt();
  const me = v.me;
  let key;
  if (state.pending) key = "pending";
  else if (prompt) key = promptKey(prompt) + (state.actionError ? "|err" : "");
  else key = `idle|${canonical(v.awaiting || [])}|${v.phase}|${canonical(me ? [me.bid, me.tiebreak] : null)}|${v.winner}|${canonical(state.table && state.table.players)}`;
  // The version the panel was drawn from (tests read it to tell a new prompt from one redrawn).
  area.dataset.version = String(state.version);
  if (!force && key === panelKey) return;
  const hadFocus = area.contains(document.activeElement);
  panelKey = key;
  area.classList.toggle("idle", !prompt || Boolean(state.pending));
  area.dataset.state = state.pending ? "pending" : prompt ? prompt.kind : "idle";
  if (state.pending) {
    fill(area, h("p", { class: "sent-note" }, t("prompt.working")));
    return;
  }
  const error = state.actionError ? h("p", { class: "form-error", role: "alert" }, state.actionError) : null;
  if (prompt) {
    let panel;
    if (prompt.kind === "bid") panel = bidPanel(prompt, sendAction);
    else if (prompt.kind === "tiebreak") {
      panel = tiebreakPanel(prompt, sendAction, listNames(((v.auction && v.auction.tied) || []).map(nameOf)));
    } else {
      panel = choosePanel(prompt, sendAction, { nameOf, players: v.players });
    }
    fill(area, panel, error);
    // Move focus to the new decision so keyboard players can answer at once.
    // (Also when the focus is on something no longer shown: the waiting room's Start button.)
    const first = area.querySelector("button:not([disabled]), input");
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.isConnected || active.getClientRects().length === 0;
    if (first && (hadFocus || lost)) first.focus({ preventScroll: true });
    if (window.matchMedia("(max-width: 760px)").matches) area.scrollIntoView({ block: "nearest", behavior: "smooth" });
    return;
  }
  if (v.winner !== null && v.winner !== undefined) return fill(area);
  if (me && me.bid && v.phase === "bid") return fill(area, sentPanel("bid", v.auction.character, me));
  if (me && me.tiebreak && v.phase === "tiebreak") return fill(area, sentPanel("tiebreak", v.auction.character, me));
  fill(area,
    mySeat() === null ? h("p", { class: "muted spectator-note" }, t("table.spectating")) : null,
    h("p", { class: "waiting-note" }, idleText(v)), error);
}

function onKey(ev) {
  // Digits pick an option, unless the person is typing in a field.
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !/^[1-9]$/.test(ev.key)) return;
  if (ev.target instanceof HTMLElement && ev.target.matches("input, textarea, select")) return;
  const option = document.querySelector(`#action-area [data-prompt=choose] [data-key="${ev.key}"]`);
  if (option) {
    ev.preventDefault();
    option.click();
  }
}

export function mount() {
  document.addEventListener("keydown", onKey);
  subscribe((changed) => {
    if (changed.size === 0) return render(true); // a language switch
    if (["view", "prompts", "pending", "actionError", "table", "hello"].some((k) => changed.has(k))) render(false);
  });
}
