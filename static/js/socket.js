// The table's WebSocket (docs/protocol.md): connects with the seat's token, reconnects by itself
// with backoff from the last version seen, and sends actions with a fresh action_id, again with
// the same id after a reconnect or 8 s of silence. Everything it learns goes into the store.

import { newId, saveSeat } from "./common.js";
import { state, update, absorbState, absorbDelta, myPrompt, promptKey, absorbChat } from "./store.js";
import { t } from "./i18n.js";

let ws = null;
let attempt = 0;
let stopped = false;
let pingTimer = null;
let resendOnState = false;
let syncAsked = false; // a delta did not follow: the whole state is asked for, once

function url() {
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  const q = new URLSearchParams();
  if (state.seat && !state.watchOnly) q.set("token", state.seat.token);
  if (state.version >= 0) q.set("since", String(state.version));
  q.set("deltas", "1"); // after the first state, only what changed
  // Table chat: the lines missed since the last one seen; a spectator's label kept across visits.
  if (state.chatLast > 0) q.set("chat_since", String(state.chatLast));
  if (!q.has("token") && viewerKey()) q.set("viewer", viewerKey());
  const qs = q.toString();
  return `${proto}//${window.location.host}/ws/tables/${encodeURIComponent(state.tableId)}${qs ? "?" + qs : ""}`;
}

function forgetSeat() {
  // The server does not know this seat token (the table was reset): forget it.
  saveSeat(state.tableId, null);
  stopped = true;
  window.location.reload();
}

export function connect() {
  if (stopped || ws) return;
  const socket = new WebSocket(url());
  ws = socket;
  let helloSeen = false;
  socket.addEventListener("open", () => {
    attempt = 0;
    resendOnState = true; // a new socket: an unacknowledged action is sent again
    syncAsked = false;
    update({ offline: false });
    pingTimer = window.setInterval(() => send({ type: "ping" }), 25000);
  });
  socket.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (msg.type === "hello") {
      helloSeen = true;
      document.body.dataset.socket = "open"; // let in: actions and chat go out (a test waits for it)
    }
    onMessage(msg);
  });
  socket.addEventListener("close", (ev) => {
    window.clearInterval(pingTimer);
    if (ws !== socket) return;
    ws = null;
    delete document.body.dataset.socket;
    if (ev.code === 4404) {
      stopped = true;
      update({ page: "notfound" });
      return;
    }
    if (ev.code === 1008 && !helloSeen && state.seat) return forgetSeat();
    if (ev.code === 1000 && state.seat && state.table && state.table.status === "open") {
      stopped = true; // we left the table (or were removed)
      return;
    }
    update({ offline: true });
    const delay = Math.min(5000, 300 * 2 ** attempt++);
    window.setTimeout(connect, delay);
  });
}

export function stop() {
  stopped = true;
  if (ws) ws.close(1000);
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify(message));
    return true;
  }
  return false;
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      update({ hello: msg });
      if (msg.seat !== null && state.chatShowSpectators) send({ type: "chat_show", spectators: true });
      break;
    case "viewer":
      keepViewerKey(msg.viewer);
      update({ viewerName: msg.name, chatError: null });
      break;
    case "chat":
      absorbChat([msg.line]);
      break;
    case "chat_lines":
      absorbChat(msg.lines || [], msg.last);
      break;
    case "table":
      update({ table: msg.table });
      break;
    case "state":
      syncAsked = false;
      absorbState(msg);
      settlePending();
      break;
    case "delta":
      if (absorbDelta(msg)) settlePending();
      else if (!syncAsked) syncAsked = send({ type: "sync", since: state.version });
      break;
    case "deadline":
      // More time was given (anyone's "+30 s"): the countdown moves, on this browser's clock.
      if (typeof msg.deadline === "number") {
        const offset = typeof msg.server_time === "number" ? Date.now() / 1000 - msg.server_time : 0;
        update({ deadline: (msg.deadline + offset) * 1000 });
      }
      break;
    case "ack":
      if (state.pending && state.pending.action_id === msg.action_id) {
        // The state that shows the action applied may come just after its ack: until it does,
        // the view still holds the prompt it answered, which would be shown (and answered) again.
        if (typeof msg.version === "number" && msg.version > state.version) state.pending.acked = msg.version;
        else update({ pending: null });
      }
      break;
    case "error":
      if (msg.code === "invalid_token" || msg.code === "not_seated") return forgetSeat();
      if (msg.code === "not_found") {
        stopped = true;
        update({ page: "notfound" });
        return;
      }
      if (msg.code === "no_more_time" || msg.code === "no_time_limit") {
        update({ moreTimeError: msg.code });
        return;
      }
      if (typeof msg.code === "string" && (msg.code.startsWith("chat_") || ["name_taken", "invalid_name"].includes(msg.code))) {
        update({ chatError: msg.code });
        return;
      }
      // Hosts and closed tables: this page's seat or table is gone; say why.
      if (msg.code === "removed" || msg.code === "table_closed") {
        stopped = true;
        if (msg.code === "removed") saveSeat(state.tableId, null);
        update({ page: "notfound", notice: t(msg.code === "removed" ? "table.removed" : "table.closed") });
        return;
      }
      if (!msg.action_id || (state.pending && state.pending.action_id === msg.action_id)) {
        update({ pending: null, actionError: msg.message || msg.code });
      }
      break;
    default:
      break;
  }
}

/** Send an action for this seat; the store shows it pending until its ack (or a state that shows
 *  the prompt answered). */
export function sendAction(action) {
  const pending = { action_id: newId(), action, promptKey: promptKey(myPrompt()) };
  update({ pending, actionError: null });
  send({ type: "action", action, action_id: pending.action_id });
  // No answer for a while on an open socket: send it again (the server ignores a repeat).
  const retry = () => {
    if (state.pending !== pending || pending.acked) return;
    send({ type: "action", action, action_id: pending.action_id });
    window.setTimeout(retry, 8000);
  };
  window.setTimeout(retry, 8000);
}

function settlePending() {
  // With every new state. The action is settled by its ack; but when the state shows the prompt
  // answered already (the ack may come second), the panel need not wait for it.
  const resend = resendOnState;
  resendOnState = false;
  if (!state.pending) return;
  const prompt = myPrompt();
  const applied = state.pending.acked && state.version >= state.pending.acked;
  if (applied || !prompt || promptKey(prompt) !== state.pending.promptKey) {
    update({ pending: null }); // only this seat's own action changes its prompt: it was applied
    return;
  }
  if (resend) {
    // After a reconnect: the same action_id again has no second effect on the server.
    send({ type: "action", action: state.pending.action, action_id: state.pending.action_id });
  }
}

// ---- table chat ----

const VIEWER_KEY = "dragonstones.viewer.";
let viewerKeyHere = null;

/** The key the server gave this browser as a spectator of this table (its label, "Spectator
 *  3f2a", signed): sent back on every visit to keep the label. None before the first visit. */
function viewerKey() {
  try {
    return viewerKeyHere || window.localStorage.getItem(VIEWER_KEY + state.tableId);
  } catch {
    return viewerKeyHere;
  }
}

function keepViewerKey(key) {
  if (typeof key !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(key)) return;
  viewerKeyHere = key;
  try {
    window.localStorage.setItem(VIEWER_KEY + state.tableId, key);
  } catch {
    // private browsing: the label lasts as long as the page
  }
}

/** Ask for more time for the open decision ("+30 s"); false when the socket is not open. */
export function sendMoreTime() {
  update({ moreTimeError: null });
  return send({ type: "more_time" });
}

/** Send a chat line; false when the socket is not open (the text stays in the box). */
export function sendChat(text) {
  update({ chatError: null });
  return send({ type: "chat", text });
}

/** A spectator asks for a name (the server answers a new `viewer`, or an error). */
export function sendSpectatorName(name) {
  update({ chatError: null });
  return send({ type: "spectator_name", name });
}

/** A player shows or hides the spectators' channel (remembered on this device). */
export function showSpectatorsChat(show) {
  update({ chatShowSpectators: show });
  try {
    window.localStorage.setItem("dragonstones.chat_spectators", show ? "1" : "0");
  } catch {
    /* storage disabled */
  }
  send({ type: "chat_show", spectators: show });
}
