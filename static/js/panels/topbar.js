// The top bar during a game: whose move it is, the countdown of a timed round, the connection
// banner; and the "your turn" alerts: the tab's title blinks while the page is hidden,
// an optional chime (off by default, remembered) and an opt-in browser notification while hidden;
// none of them while the player has nothing to do. Time warnings are announced politely.

import { h, $, fill, setText, plain, tableTitle } from "../common.js";
import { t, listNames } from "../i18n.js";
import { state, subscribe, mySeat, nameOf, isOver, myPrompt, promptKey } from "../store.js";

let wasMyMove = false;
let audio = null;
let blink = null; // the title's blinking interval while the page is hidden and it is your move
let notice = null; // the browser notification shown for this move
let warned = null; // the decision whose "20 s left" was announced: once each, more time or not

const SOUND_KEY = "dragonstones.sound";
const NOTIFY_KEY = "dragonstones.notify";

function pref(key) {
  try {
    return window.localStorage.getItem(key) === "1";
  } catch {
    return false;
  }
}

function setPref(key, on) {
  try {
    window.localStorage.setItem(key, on ? "1" : "0");
  } catch {
    /* storage disabled: the choice lasts as long as the page */
  }
}

/** Say something through the page's polite live region (screen readers; nothing on screen). */
export function announce(text) {
  const el = $("#announcer");
  if (!el) return;
  el.textContent = "";
  window.setTimeout(() => { el.textContent = plain(text); }, 50);
}

function baseTitle() {
  return `${t("table.title", { id: state.tableId })} — Dragonstones`;
}

function stopBlink() {
  if (blink) window.clearInterval(blink);
  blink = null;
}

function startBlink() {
  if (blink) return;
  let on = false;
  blink = window.setInterval(() => {
    on = !on;
    document.title = on ? t("turn.title_blink") : t("turn.title_yours");
  }, 1000);
}

function notifyTurn() {
  if (!pref(NOTIFY_KEY) || !("Notification" in window) || Notification.permission !== "granted") return;
  try {
    notice = new Notification(t("turn.yours"), { body: plain(t("turn.notify_body", { table: tableTitle(state.table, state.tableId) })), tag: `dragonstones-${state.tableId}` });
    notice.onclick = () => { window.focus(); notice.close(); };
  } catch {
    notice = null; // some browsers allow notifications only from a service worker
  }
}

/** The alerts follow the move: they start when it becomes yours, and all stop when it is not. */
function alerts(mine) {
  if (mine && !wasMyMove) {
    if (pref(SOUND_KEY)) chime();
    if (document.hidden) {
      startBlink();
      notifyTurn();
    }
  }
  if (!mine) {
    stopBlink();
    if (notice) notice.close();
    notice = null;
  }
}

function renderAlerts() {
  const box = $("#turn-alerts");
  if (!box) return;
  box.hidden = mySeat() === null || isOver();
  $("#alert-sound").checked = pref(SOUND_KEY);
  $("#alert-notify").checked = pref(NOTIFY_KEY) && "Notification" in window && Notification.permission === "granted";
  $("#alert-notify").disabled = !("Notification" in window);
}

function unlockAudio() {
  // Browsers allow sound only after a gesture: the context is made on a click or key, and only
  // for who wants the sound. Between chimes it is suspended: a running context computes silence
  // all the time (a thread of its own, a phone's battery).
  if (audio || !pref(SOUND_KEY)) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) audio = new Ctx();
  } catch {
    audio = null;
  }
  if (audio) audio.suspend().catch(() => {});
}

let hush = null; // the timer that suspends the context after a chime

function chime() {
  if (!audio) return;
  window.clearTimeout(hush);
  audio.resume().then(() => {
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
    hush = window.setTimeout(() => audio.suspend().catch(() => {}), 1000);
  }, () => {}); // not allowed to sound (no gesture yet): silent
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
  else setText(el, status.text);
  el.classList.toggle("mine", status.mine);
  el.dataset.mine = status.mine ? "1" : "0";
  el.title = plain(status.text); // the phone's one-line bar may cut it short
  if (!blink) document.title = status.mine ? t("turn.title_yours") : baseTitle();
  alerts(status.mine);
  if (!status.mine) document.title = baseTitle();
  wasMyMove = status.mine;
}

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const ss = String(total % 60).padStart(2, "0");
  // A slow table's decision waits a day or more: hours, not 1440 minutes.
  if (total >= 3600) return `${Math.floor(total / 3600)}:${String(Math.floor(total / 60) % 60).padStart(2, "0")}:${ss}`;
  return `${Math.floor(total / 60)}:${ss}`;
}

function tickCountdown() {
  const el = $("#countdown");
  if (state.deadline === null || !state.view || isOver()) {
    el.hidden = true;
    return;
  }
  const left = state.deadline - Date.now();
  el.hidden = false;
  // Four ticks a second, one change a second: the page is laid out and the screen reader's
  // tree updated only when the clock reads differently.
  const clock = formatClock(left);
  if (el.textContent !== clock) {
    el.textContent = clock;
    el.title = t("table.time_left", { t: clock });
    el.setAttribute("aria-label", el.title);
  }
  el.classList.toggle("urgent", left < 20000);
  const decision = promptKey(myPrompt());
  if (left < 20500 && left > 0 && decision && warned !== decision && turnStatus().mine) {
    warned = decision;
    announce(t("turn.time_warning", { t: "20 s" }));
  }
}

export function mount() {
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) {
      stopBlink();
      if (state.view) renderTurn();
    } else if (wasMyMove) {
      startBlink();
    }
  });
  $("#alert-sound").addEventListener("change", (ev) => {
    setPref(SOUND_KEY, ev.target.checked);
    unlockAudio();
  });
  $("#alert-notify").addEventListener("change", async (ev) => {
    const box = ev.target;
    const note = $("#alert-note");
    note.hidden = true;
    if (!box.checked) return setPref(NOTIFY_KEY, false);
    const answer = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    box.checked = answer === "granted";
    setPref(NOTIFY_KEY, box.checked);
    if (answer === "denied") {
      note.textContent = t("table.notify_denied");
      note.hidden = false;
    }
  });
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  document.addEventListener("keydown", unlockAudio, { once: true });
  window.setInterval(tickCountdown, 250);
  subscribe((changed) => {
    if (changed.has("offline")) {
      $("#conn-banner").hidden = !state.offline;
      document.body.classList.toggle("offline", state.offline);
    }
    if (["view", "prompts", "pending", "table", "hello"].some((k) => changed.has(k)) || changed.size === 0) {
      renderTurn();
      renderAlerts();
    }
    if (changed.has("deadline") || changed.has("view")) tickCountdown();
  });
}
