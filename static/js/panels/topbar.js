// The top bar during a game: whose move it is (with a chime when it becomes yours), the countdown
// of a timed sealed round, and the connection banner.

import { h, $, fill } from "../common.js";
import { t, listNames } from "../i18n.js";
import { state, subscribe, mySeat, nameOf, isOver } from "../store.js";

let wasMyMove = false;
let audio = null;

function unlockAudio() {
  // Browsers allow sound only after a gesture: create the context on the first click or key.
  if (audio) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) audio = new Ctx();
  } catch {
    audio = null;
  }
}

function chime() {
  if (!audio || audio.state !== "running") return;
  const now = audio.currentTime;
  for (const [i, freq] of [660, 880].entries()) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + i * 0.12);
    gain.gain.exponentialRampToValueAtTime(0.15, now + i * 0.12 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start(now + i * 0.12);
    osc.stop(now + i * 0.12 + 0.3);
  }
}

function turnStatus() {
  const v = state.view;
  if (isOver()) return { mine: false, text: v.winner === mySeat() ? t("end.you_win") : t("end.winner", { name: nameOf(v.winner) }) };
  const me = mySeat();
  const awaiting = Array.isArray(v.awaiting) ? v.awaiting : state.prompts;
  const mine = me !== null && awaiting.some((a) => a.seat === me) && !state.pending;
  if (mine) return { mine: true, text: t("turn.yours") };
  const others = listNames(awaiting.filter((a) => a.seat !== me).map((a) => nameOf(a.seat)));
  if (!others) return { mine: false, text: t("turn.none") };
  return { mine: false, text: t(awaiting[0].kind === "choose" ? "turn.waiting" : "turn.waiting_bids", { names: others }) };
}

function renderTurn() {
  const el = $("#turn-indicator");
  if (!state.view) return fill(el);
  const status = turnStatus();
  // On a phone the panel is below the table: the indicator links down to the decision.
  if (status.mine) fill(el, h("a", { class: "jump", href: "#action-area" }, status.text));
  else el.textContent = status.text;
  el.classList.toggle("mine", status.mine);
  el.dataset.mine = status.mine ? "1" : "0";
  document.title = status.mine ? t("turn.title_yours") : `${t("table.title", { id: state.tableId })} — Dragonstones`;
  if (status.mine && !wasMyMove) chime();
  wasMyMove = status.mine;
}

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function tickCountdown() {
  const el = $("#countdown");
  if (state.deadline === null || !state.view || isOver()) {
    el.hidden = true;
    return;
  }
  const left = state.deadline - Date.now();
  el.hidden = false;
  el.textContent = formatClock(left);
  el.title = t("table.time_left", { t: formatClock(left) });
  el.setAttribute("aria-label", el.title);
  el.classList.toggle("urgent", left < 10000);
}

export function mount() {
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  document.addEventListener("keydown", unlockAudio, { once: true });
  window.setInterval(tickCountdown, 250);
  subscribe((changed) => {
    if (changed.has("offline")) {
      $("#conn-banner").hidden = !state.offline;
      document.body.classList.toggle("offline", state.offline);
    }
    if (["view", "prompts", "pending", "table", "hello"].some((k) => changed.has(k)) || changed.size === 0) renderTurn();
    if (changed.has("deadline") || changed.has("view")) tickCountdown();
  });
}
