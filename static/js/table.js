// The table page: join form, waiting room, and the live game over one WebSocket.

import {
  h, $, api, ApiError, newId, savedName, saveName, savedSeat, saveSeat, setupLanguageSwitch,
  copyText, absoluteUrl,
} from "./common.js";
import { t, charName, getLang } from "./i18n.js";
import { cardEl, coinStack, stonesEl } from "./cards.js";
import { eventSentence, eventClass, isNoise, describeBid } from "./events.js";
import { bidPanel, tiebreakPanel, choosePanel, sentPanel } from "./prompts.js";

const match = /^\/t\/([^/]+)\/?$/.exec(window.location.pathname);
const tableId = match ? decodeURIComponent(match[1]) : null;
const params = new URLSearchParams(window.location.search);
const watchOnly = params.has("watch");

const S = {
  table: null,
  seat: null, // this browser's seat: {seat, token, name} or null (spectator)
  hello: null,
  gameId: null,
  version: -1,
  view: null,
  prompts: [],
  log: [], // visible events, oldest first
  pending: null, // {action_id, action, promptKey}: sent, not yet acknowledged
  resendOnState: false,
  deadline: null, // ms on this browser's clock when the open sealed round closes, or null
  panelKey: null, // the prompt the action panel was built for
  actionError: null,
  wasMyMove: false,
  endDismissed: false,
};

// ---------------------------------------------------------------------------------------------
// The connection: reconnects by itself with backoff, resumes from the last version it saw.

class Live {
  constructor() {
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.everOpened = false;
    this.pingTimer = null;
  }

  url() {
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams();
    if (S.seat && !watchOnly) q.set("token", S.seat.token);
    if (S.version >= 0) q.set("since", String(S.version));
    const qs = q.toString();
    return `${proto}//${window.location.host}/ws/tables/${encodeURIComponent(tableId)}${qs ? "?" + qs : ""}`;
  }

  connect() {
    if (this.stopped) return;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    let helloSeen = false;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      S.resendOnState = true; // a new socket: an unacknowledged action is sent again
      this.everOpened = true;
      setBanner(false);
      this.pingTimer = window.setInterval(() => this.send({ type: "ping" }), 25000);
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "hello") helloSeen = true;
      onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      window.clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (ev.code === 4404) {
        this.stopped = true;
        showOnly("notfound-view");
        return;
      }
      if (ev.code === 1008 && !helloSeen && S.seat) {
        // The server does not know this seat token (the table was reset): forget it.
        saveSeat(tableId, null);
        S.seat = null;
        this.stopped = true;
        window.location.reload();
        return;
      }
      if (ev.code === 1000 && S.seat && S.table && S.table.status === "open") {
        // We left the table (or were removed): back to the join form.
        this.stopped = true;
        return;
      }
      setBanner(true);
      const delay = Math.min(5000, 300 * 2 ** this.attempt++);
      window.setTimeout(() => this.connect(), delay);
    });
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  stop() {
    this.stopped = true;
    if (this.ws) this.ws.close(1000);
  }
}

const live = new Live();

/** replaceChildren that skips empty slots (null, false, undefined). */
function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function setBanner(down) {
  $("#conn-banner").hidden = !down;
  document.body.classList.toggle("offline", down);
}

// ---------------------------------------------------------------------------------------------
// Messages from the server.

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      S.hello = msg;
      break;
    case "table":
      S.table = msg.table;
      render();
      break;
    case "state": {
      const fresh = msg.events_from === undefined || msg.events_from < S.version || S.version < 0 || msg.resync;
      const events = Array.isArray(msg.events) ? msg.events : [];
      if (fresh) S.log = events.slice();
      else S.log.push(...events.filter((e) => e.version === undefined || e.version > S.version));
      S.version = msg.version;
      S.gameId = msg.game_id || S.gameId;
      S.view = msg.view;
      S.prompts = Array.isArray(msg.prompts) ? msg.prompts : [];
      // A sealed round with a time limit: when it closes, on this browser's clock (corrected by
      // the server's clock when the message carries it).
      if (typeof msg.deadline === "number") {
        const offset = typeof msg.server_time === "number" ? Date.now() / 1000 - msg.server_time : 0;
        S.deadline = (msg.deadline + offset) * 1000;
      } else {
        S.deadline = null;
      }
      settlePending();
      render();
      break;
    }
    case "ack":
      if (S.pending && S.pending.action_id === msg.action_id) {
        S.pending = null;
        render();
      }
      break;
    case "error":
      if (msg.code === "invalid_token" || msg.code === "not_seated") {
        // The server does not know this seat token (the table was reset): forget it.
        saveSeat(tableId, null);
        S.seat = null;
        live.stopped = true;
        window.location.reload();
        return;
      }
      if (msg.code === "not_found") {
        live.stopped = true;
        showOnly("notfound-view");
        return;
      }
      if (!msg.action_id || (S.pending && S.pending.action_id === msg.action_id)) {
        S.pending = null;
        S.actionError = msg.message || msg.code;
        S.panelKey = null; // rebuild the form so the player can try again
        render();
      }
      break;
    default:
      break;
  }
}

function mySeat() {
  if (watchOnly) return null;
  if (S.hello && typeof S.hello.seat === "number") return S.hello.seat;
  return S.seat ? S.seat.seat : null;
}

function myPrompt() {
  const seat = mySeat();
  if (seat === null) return null;
  return S.prompts.find((p) => p.seat === seat && (p.max || p.options)) || null;
}

function promptKey(p) {
  return p ? `${S.view ? S.view.turn : ""}|${S.view && S.view.auction ? S.view.auction.number : ""}|${JSON.stringify(p)}` : null;
}

function sendAction(action) {
  const prompt = myPrompt();
  S.actionError = null;
  const pending = { action_id: newId(), action, promptKey: promptKey(prompt) };
  S.pending = pending;
  live.send({ type: "action", action, action_id: pending.action_id });
  renderAction(true);
  // No answer for a while on an open socket: send it again (the server ignores a repeat).
  const retry = () => {
    if (S.pending !== pending) return;
    live.send({ type: "action", action, action_id: pending.action_id });
    window.setTimeout(retry, 8000);
  };
  window.setTimeout(retry, 8000);
}

function settlePending() {
  // Called with every new state. The action is settled by its ack; but when the state shows the
  // prompt answered already (the ack may come second), the panel need not wait for it.
  const resend = S.resendOnState;
  S.resendOnState = false;
  if (!S.pending) return;
  const prompt = myPrompt();
  if (!prompt || promptKey(prompt) !== S.pending.promptKey) {
    S.pending = null; // only this seat's own action changes its prompt: it was applied
    return;
  }
  if (resend) {
    // After a reconnect: the same action_id again has no second effect on the server.
    live.send({ type: "action", action: S.pending.action, action_id: S.pending.action_id });
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

function nameOf(seat) {
  const p = S.table && (S.table.players || []).find((x) => x.seat === seat);
  if (p && p.name) return p.name;
  return t("seat.n", { n: seat + 1 });
}

function playerInfo(seat) {
  return (S.table && (S.table.players || []).find((x) => x.seat === seat)) || null;
}

function showOnly(id) {
  for (const v of ["loading-view", "notfound-view", "join-view", "waiting-view", "game-view"]) {
    $("#" + v).hidden = v !== id;
  }
}

function render() {
  if (!S.table) return;
  document.title = `${t("table.title", { id: tableId })} — Dragonstones`;
  if (S.view) {
    showOnly("game-view");
    renderGame();
  } else {
    showOnly("waiting-view");
    renderWaiting();
  }
}

function renderWaiting() {
  const table = S.table;
  const list = $("#waiting-seats");
  fill(list);
  for (let seat = 0; seat < table.seats; seat++) {
    const p = playerInfo(seat);
    if (p) {
      list.append(h("li", { dataset: { seat } },
        h("span", { class: `presence ${p.connected || p.bot ? "on" : ""}`, title: p.connected ? t("table.connected") : t("table.disconnected") }),
        h("strong", {}, p.name),
        p.bot ? h("span", { class: "tag" }, t("table.bot")) : null,
        seat === mySeat() ? h("span", { class: "tag" }, t("table.you")) : null));
    } else {
      list.append(h("li", { class: "empty" }, t("table.empty_seat")));
    }
  }
  $("#invite-link").value = absoluteUrl(table.invite_path || `/t/${tableId}`);
  $("#watch-link").value = absoluteUrl(table.watch_path || `/t/${tableId}?watch=1`);
  const seated = mySeat() !== null;
  const full = table.taken >= table.seats;
  $("#waiting-actions").hidden = !seated;
  $("#add-bot").disabled = full;
  $("#start-game").disabled = !full;
  $("#start-hint").hidden = !seated || full;
  const timerHint = $("#timer-hint");
  timerHint.hidden = !table.turn_seconds;
  if (table.turn_seconds) timerHint.textContent = t("table.timer", { t: formatSeconds(table.turn_seconds) });
  $("#waiting-spectator").hidden = seated;
}

function turnStatus() {
  const v = S.view;
  if (!v) return { mine: false, text: "" };
  if (v.winner !== null && v.winner !== undefined) {
    return { mine: false, text: v.winner === mySeat() ? t("end.you_win") : t("end.winner", { name: nameOf(v.winner) }) };
  }
  const me = mySeat();
  const awaiting = Array.isArray(v.awaiting) ? v.awaiting : S.prompts;
  const mine = me !== null && awaiting.some((a) => a.seat === me) && !S.pending;
  if (mine) return { mine: true, text: t("turn.yours") };
  const others = awaiting.filter((a) => a.seat !== me).map((a) => nameOf(a.seat));
  if (!others.length) return { mine: false, text: t("turn.none") };
  const kind = awaiting[0].kind;
  return { mine: false, text: kind === "choose" ? t("turn.waiting", { names: others.join(", ") }) : t("turn.waiting_bids", { names: others.join(", ") }) };
}

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
document.addEventListener("pointerdown", unlockAudio, { once: true });
document.addEventListener("keydown", unlockAudio, { once: true });

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

function formatClock(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function formatSeconds(s) {
  return s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

function tickCountdown() {
  const el = $("#countdown");
  const over = !S.view || (S.view.winner !== null && S.view.winner !== undefined);
  if (S.deadline === null || over) {
    el.hidden = true;
    return;
  }
  const left = S.deadline - Date.now();
  el.hidden = false;
  el.textContent = formatClock(left);
  el.title = t("table.time_left", { t: formatClock(left) });
  el.setAttribute("aria-label", el.title);
  el.classList.toggle("urgent", left < 10000);
}
window.setInterval(tickCountdown, 250);

function renderTurnIndicator() {
  const status = turnStatus();
  const el = $("#turn-indicator");
  if (status.mine) {
    // A link down to the decision: on a phone the panel is below the table.
    fill(el, h("a", { class: "jump", href: "#action-area" }, status.text));
  } else {
    el.textContent = status.text;
  }
  el.classList.toggle("mine", status.mine);
  el.dataset.mine = status.mine ? "1" : "0";
  if (status.mine) {
    document.title = t("turn.title_yours");
    if (!S.wasMyMove) chime();
  }
  S.wasMyMove = status.mine;
}

function seatStatus(seat) {
  const v = S.view;
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

function renderSeats() {
  const v = S.view;
  const box = $("#seats");
  fill(box);
  const me = mySeat();
  for (const p of v.players) {
    const info = playerInfo(p.seat);
    const status = seatStatus(p.seat);
    const active = (v.awaiting || []).some((a) => a.seat === p.seat);
    box.append(h("section", {
      class: `seat ${p.seat === me ? "me" : ""} ${active ? "active" : ""} ${v.winner === p.seat ? "winner" : ""}`,
      dataset: { seat: p.seat },
      "aria-label": nameOf(p.seat),
    },
      h("div", { class: "seat-head" },
        h("span", {
          class: `presence ${info && (info.connected || info.bot) ? "on" : ""}`,
          title: info && (info.connected || info.bot) ? t("table.connected") : t("table.disconnected"),
          role: "img",
          "aria-label": info && (info.connected || info.bot) ? t("table.connected") : t("table.disconnected"),
        }),
        h("span", { class: "seat-name" }, nameOf(p.seat)),
        info && info.bot ? h("span", { class: "tag" }, t("table.bot")) : null,
        p.seat === me ? h("span", { class: "tag" }, t("table.you")) : null,
        h("span", { class: "score-die", title: t("table.score"), "aria-label": `${t("table.score")}: ${p.score}`, dataset: { score: p.score } }, String(p.score))),
      h("div", { class: "seat-row" }, stonesEl(p.stones)),
      h("div", { class: "seat-row spent" }, coinStack("fairy_gold", p.fairy_gold_spent, { label: t("table.spent") })),
      p.has_doppelganger ? h("span", { class: "doppel-badge" }, "♊ ", t("table.holds_doppelganger")) : null,
      status ? h("span", { class: `seat-status ${status.cls}`, dataset: { status: status.cls } }, status.text) : null));
  }
}

function recordResult(r) {
  if (r.cursed) return t("table.cursed");
  if (r.winner !== null && r.winner !== undefined) return t("table.winner_of", { name: nameOf(r.winner) });
  if (r.bids) return t("table.no_winner");
  return r.via && r.via !== "auction" ? charName(r.via) : "";
}

function renderCentre() {
  const v = S.view;
  const turnArea = $("#turn-area");
  const records = v.turn_cards || [];
  fill(turnArea,
    h("h3", {}, t("table.turn", { n: v.turn })),
    h("h3", {}, t("table.specials")),
    h("div", { class: "card-row specials" }, (v.specials || []).map((c) => cardEl(c, { size: "mini" }))),
    h("h3", {}, t("table.turn_cards")),
    h("div", { class: "card-row played-cards" }, records.map((r) =>
      h("div", { class: `played ${r.cursed ? "cursed" : ""}`, title: `${charName(r.character)} — ${recordResult(r)}` },
        cardEl(r.character, { size: "mini" }),
        h("span", { class: "result" }, recordResult(r))))));

  const auction = $("#auction-area");
  if (v.auction && v.winner === null) {
    const key = `${v.turn}|${v.auction.number}|${v.auction.character}`;
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

  const bank = $("#bank-area");
  const b = v.bank;
  fill(bank,
    h("h3", {}, t("table.bank")),
    h("div", { class: "bank-grid" },
      coinStack("fairy_gold", b.fairy_gold),
      coinStack("common_gold", b.common_gold),
      coinStack("silver", b.silver),
      coinStack("amulets", b.amulets),
      stonesEl(b.stones, { compact: true })),
    v.bag ? h("div", { class: "bag-box" }, h("h3", {}, t("table.bag")), stonesEl(v.bag, { compact: true }),
      v.rainbow ? h("p", { class: "muted" }, `${nameOf(v.rainbow.seat)}: ${t("colour." + v.rainbow.colour)}`) : null) : null);
}

function renderReveal() {
  // The latest revealed auction: every bid, the tie-break, the winner and what the power did.
  const v = S.view;
  const box = $("#reveal-area");
  const records = v.turn_cards || [];
  let idx = -1;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i].bids) { idx = i; break; }
  }
  if (idx < 0) {
    box.dataset.key = "";
    fill(box);
    return;
  }
  const r = records[idx];
  // What happened since that reveal, in words.
  let start = -1;
  for (let i = S.log.length - 1; i >= 0; i--) {
    if (S.log[i].type === "bids_revealed") { start = i; break; }
  }
  const effectEvents = start < 0 ? [] : S.log.slice(start + 1)
    .filter((e) => !isNoise(e) && !["auction_started", "turn_started", "turn_ended", "special_deck_reshuffled"].includes(e.type))
    .slice(0, 8);
  const key = `${getLang()}|${v.turn}|${idx}|${JSON.stringify(r)}|${effectEvents.length}|${start}`;
  if (box.dataset.key === key) return; // unchanged: leave the live region quiet
  box.dataset.key = key;
  const fists = [];
  for (const [seatText, bid] of Object.entries(r.bids)) {
    const seat = Number(seatText);
    const tb = r.tiebreak ? r.tiebreak[seatText] : null;
    const coins = [];
    for (let i = 0; i < Math.min(bid.fairy_gold, 10); i++) coins.push(h("i", { class: "coin fairy_gold" }));
    for (let i = 0; i < Math.min(bid.common_gold, 10); i++) coins.push(h("i", { class: "coin common_gold" }));
    if (bid.amulet) coins.push(h("i", { class: "coin amulets" }));
    if (bid.black_magic) coins.push(h("i", { class: "coin black_magic" }));
    const tbCoins = [];
    if (tb) {
      for (let i = 0; i < Math.min(tb.silver, 10); i++) tbCoins.push(h("i", { class: "coin silver" }));
      if (tb.amulet) tbCoins.push(h("i", { class: "coin amulets" }));
    }
    fists.push(h("div", { class: `fist ${r.winner === seat ? "win" : ""}`, dataset: { seat } },
      h("span", { class: "who" }, nameOf(seat)),
      h("span", { class: "coins", "aria-hidden": "true" }, coins),
      h("span", { class: "value" }, `${describeBid(bid)} = ${bid.value}`),
      tb ? h("span", { class: "coins tb", "aria-hidden": "true" }, tbCoins) : null,
      tb ? h("span", { class: "value" }, `${describeBid({ silver: tb.silver, amulet: tb.amulet })} = ${tb.value}`) : null));
  }
  let outcome;
  if (r.cursed) outcome = `${charName(r.character)}: ${t("table.cursed")}`;
  else if (r.winner !== null && r.winner !== undefined) outcome = `${charName(r.character)}: ${t("table.winner_of", { name: nameOf(r.winner) })}`;
  else if (r.tied && !r.tiebreak) outcome = t("prompt.tiebreak_others", { names: r.tied.map(nameOf).join(", ") });
  else outcome = `${charName(r.character)}: ${t("table.no_winner")}`;
  const effects = effectEvents.map((e) => h("li", {}, eventSentence(e, nameOf)));
  fill(box, h("div", { class: "reveal", dataset: { auction: idx } },
    h("h3", {}, t("table.last_auction")),
    h("div", { class: "reveal-bids" }, fists),
    h("p", { class: "reveal-outcome" }, outcome),
    effects.length ? h("ul", { class: "effects" }, effects) : null));
}

function renderMe() {
  const area = $("#me-area");
  const me = S.view.me;
  if (!me || mySeat() === null) {
    // Spectators: no field for coins behind a screen exists on the page at all.
    area.hidden = true;
    fill(area);
    return;
  }
  area.hidden = false;
  const c = me.coins;
  fill(area,
    h("h2", {}, t("table.my_screen")),
    h("p", { class: "hint" }, t("table.my_screen_hint")),
    h("div", { class: "me-coins", id: "my-coins" },
      coinStack("fairy_gold", c.fairy_gold, { privateField: true }),
      coinStack("common_gold", c.common_gold, { privateField: true }),
      coinStack("silver", c.silver, { privateField: true }),
      coinStack("amulets", c.amulets, { privateField: true }),
      coinStack("black_magic", c.black_magic, { privateField: true })));
}

function renderAction(force = false) {
  const area = $("#action-area");
  const v = S.view;
  const prompt = myPrompt();
  const me = v.me;
  let key;
  if (S.pending) key = "pending";
  else if (prompt) key = promptKey(prompt) + (S.actionError ? "|err" : "");
  else key = `idle|${JSON.stringify(v.awaiting || [])}|${v.phase}|${JSON.stringify(me ? [me.bid, me.tiebreak] : null)}|${v.winner}`;
  if (!force && key === S.panelKey) return;
  const hadFocus = area.contains(document.activeElement);
  S.panelKey = key;
  area.classList.toggle("idle", !prompt || Boolean(S.pending));
  area.dataset.state = S.pending ? "pending" : prompt ? prompt.kind : "idle";
  if (S.pending) {
    fill(area, h("p", { class: "sent-note" }, t("prompt.working")));
    return;
  }
  const error = S.actionError ? h("p", { class: "form-error", role: "alert" }, S.actionError) : null;
  if (prompt) {
    let panel;
    if (prompt.kind === "bid") panel = bidPanel(prompt, sendAction);
    else if (prompt.kind === "tiebreak") {
      const tied = (v.auction && v.auction.tied) || [];
      panel = tiebreakPanel(prompt, sendAction, tied.map(nameOf).join(", "));
    } else {
      panel = choosePanel(prompt, sendAction, { nameOf, players: v.players });
    }
    fill(area, panel, error);
    // Move focus to the new decision so keyboard players can answer at once.
    const first = area.querySelector("button:not([disabled]), input");
    if (first && (hadFocus || document.activeElement === document.body)) first.focus({ preventScroll: true });
    if (window.matchMedia("(max-width: 760px)").matches) area.scrollIntoView({ block: "nearest", behavior: "smooth" });
    return;
  }
  if (v.winner !== null && v.winner !== undefined) {
    fill(area);
    return;
  }
  if (me && me.bid && v.phase === "bid") {
    fill(area, sentPanel("bid", v.auction.character, me));
    return;
  }
  if (me && me.tiebreak && v.phase === "tiebreak") {
    fill(area, sentPanel("tiebreak", v.auction.character, me));
    return;
  }
  const awaiting = v.awaiting || [];
  let text = t("turn.none");
  if (awaiting.length && awaiting[0].kind === "choose") {
    text = t("prompt.choose_other", { name: nameOf(awaiting[0].seat), card: charName(awaiting[0].character) });
  } else if (awaiting.length && awaiting[0].kind === "tiebreak") {
    text = t("prompt.tiebreak_others", { names: ((v.auction && v.auction.tied) || awaiting.map((a) => a.seat)).map(nameOf).join(", ") });
  } else if (awaiting.length) {
    text = t("turn.waiting_bids", { names: awaiting.map((a) => nameOf(a.seat)).join(", ") });
  }
  fill(area,
    mySeat() === null ? h("p", { class: "muted spectator-note" }, t("table.spectating")) : null,
    h("p", { class: "waiting-note" }, text), error);
}


function renderLog() {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  fill(list, ...S.log.filter((e) => !isNoise(e)).map((e) =>
    h("li", { class: eventClass(e), dataset: { type: e.type } }, eventSentence(e, nameOf))));
  if (atBottom || list.dataset.init !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.init = "1";
  }
}

function renderEnd() {
  const v = S.view;
  const box = $("#end-view");
  if (v.winner === null || v.winner === undefined || S.endDismissed) {
    box.hidden = true;
    return;
  }
  const me = mySeat();
  const scores = v.players.slice().sort((a, b) => b.score - a.score);
  const gameId = S.gameId || (S.table && S.table.game_id);
  fill(box, h("div", { class: "end-box" },
    h("h2", { id: "end-title" }, t("end.title")),
    h("p", { class: "winner-name", dataset: { winner: v.winner } }, v.winner === me ? t("end.you_win") : t("end.winner", { name: nameOf(v.winner) })),
    h("ol", { class: "end-scores" }, scores.map((p) => h("li", {},
      h("span", {}, nameOf(p.seat)), h("span", {}, stonesEl(p.stones, { compact: true })),
      h("strong", {}, t("table.points", { n: p.score }))))),
    v.seed !== null && v.seed !== undefined
      ? h("p", { class: "hint seed" }, t("end.seed", { seed: v.seed, commitment: String(v.seed_commitment || "").slice(0, 16) }))
      : null,
    h("div", { class: "end-actions" },
      gameId ? h("a", { class: "btn", id: "replay-link", href: `/api/games/${encodeURIComponent(gameId)}`, target: "_blank", rel: "noopener" }, t("end.replay")) : null,
      h("a", { class: "btn primary", href: "/" }, t("end.lobby")),
      h("button", { type: "button", class: "btn subtle", onclick: () => { S.endDismissed = true; renderEnd(); } }, "✕"))));
  box.hidden = false;
}

function renderGame() {
  renderTurnIndicator();
  tickCountdown();
  renderSeats();
  renderCentre();
  renderReveal();
  renderMe();
  renderAction();
  renderLog();
  renderEnd();
}

// ---------------------------------------------------------------------------------------------
// The join form and the waiting room's buttons.

function showJoin(table) {
  showOnly("join-view");
  $("#join-table-info").textContent = table
    ? `${t("table.title", { id: tableId })} — ${t("lobby.seats_taken", { taken: table.taken, seats: table.seats })}`
    : "";
  $("#join-name").value = savedName();
  $("#join-watch").href = `/t/${encodeURIComponent(tableId)}?watch=1`;
  const full = table && (table.status !== "open" || table.taken >= table.seats);
  $("#join-button").disabled = Boolean(full);
  const err = $("#join-error");
  err.hidden = !full;
  if (full) err.textContent = t("table.full");
}

$("#join-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = $("#join-name").value.trim();
  const err = $("#join-error");
  if (!name) {
    err.textContent = t("lobby.need_name");
    err.hidden = false;
    return;
  }
  saveName(name);
  $("#join-button").disabled = true;
  try {
    const seat = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { body: { name } });
    S.seat = { seat: seat.seat, token: seat.token, name };
    saveSeat(tableId, S.seat);
    startLive();
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : String(e);
    err.hidden = false;
    $("#join-button").disabled = false;
  }
});

async function waitingAction(button, fn) {
  const err = $("#waiting-error");
  err.hidden = true;
  button.disabled = true;
  try {
    const table = await fn();
    if (table && table.id) {
      S.table = table;
      render();
    }
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : String(e);
    err.hidden = false;
  } finally {
    if (S.table && !S.view) renderWaiting();
  }
}

$("#add-bot").addEventListener("click", (ev) => waitingAction(ev.currentTarget, () =>
  api("POST", `/api/tables/${encodeURIComponent(tableId)}/bots`, { body: { count: 1 }, token: S.seat.token })));
$("#start-game").addEventListener("click", (ev) => waitingAction(ev.currentTarget, () =>
  api("POST", `/api/tables/${encodeURIComponent(tableId)}/start`, { token: S.seat.token })));
$("#leave-table").addEventListener("click", (ev) => waitingAction(ev.currentTarget, async () => {
  await api("POST", `/api/tables/${encodeURIComponent(tableId)}/leave`, { token: S.seat.token });
  saveSeat(tableId, null);
  live.stop();
  window.location.assign("/");
  return null;
}));

function wireCopy(buttonSel, inputSel) {
  $(buttonSel).addEventListener("click", async (ev) => {
    const button = ev.currentTarget;
    const ok = await copyText($(inputSel).value, $(inputSel));
    if (ok) {
      button.textContent = t("table.copied");
      window.setTimeout(() => { button.textContent = t("table.copy"); }, 1500);
    }
  });
}
wireCopy("#copy-invite", "#invite-link");
if (typeof navigator.share === "function") {
  // Phones offer their own share sheet (messages, mail...): the easiest way to invite friends.
  const share = $("#share-invite");
  share.hidden = false;
  share.addEventListener("click", () => {
    navigator.share({ title: t("app.title"), text: t("table.share_text"), url: $("#invite-link").value })
      .catch(() => { /* the person closed the share sheet */ });
  });
}
wireCopy("#copy-watch", "#watch-link");

// ---------------------------------------------------------------------------------------------
// Start.

function startLive() {
  if (!live.ws && !live.stopped) live.connect();
}

async function boot() {
  setupLanguageSwitch(() => {
    S.panelKey = null;
    const auction = $("#auction-area");
    if (auction) auction.dataset.key = "";
    if (S.table) render();
  });
  if (!tableId) {
    showOnly("notfound-view");
    return;
  }
  let table;
  try {
    table = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      showOnly("notfound-view");
      return;
    }
    // The server is unreachable: keep trying through the socket, with the banner up.
    setBanner(true);
  }
  S.table = table || null;
  S.seat = watchOnly ? null : savedSeat(tableId);
  if (!S.seat && !watchOnly && table && table.status === "open") {
    showJoin(table);
    return;
  }
  if (S.table) render();
  startLive();
}

boot();
