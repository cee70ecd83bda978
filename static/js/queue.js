// Quick play: wait in the server's matchmaking queue ("Looking for players… (2 of 4)"), cancel,
// play with bots after the wait; once matched, keep the seat exactly as a join does and go to the
// table. The ticket is kept in this tab's sessionStorage, so a page reload picks it up again.

import { $, api, saveSeat, ApiError, formatSeconds } from "./common.js";
import { t } from "./i18n.js";

const TICKET_KEY = "dragonstones.queue";
const RECONNECT_MS = 1000;

let ticket = null; // {ticket, token, name} while this tab waits
let socket = null;
let last = null; // the last `queue` message
let clockSkew = 0; // server time - local time, seconds
let countdown = null;
let showError = () => {};

function stored() {
  try {
    const raw = window.sessionStorage.getItem(TICKET_KEY);
    const value = raw ? JSON.parse(raw) : null;
    return value && typeof value.ticket === "string" && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

function store(value) {
  try {
    if (value) window.sessionStorage.setItem(TICKET_KEY, JSON.stringify(value));
    else window.sessionStorage.removeItem(TICKET_KEY);
  } catch {
    /* storage disabled: a reload forgets the ticket, which then expires by itself */
  }
}

function waiting(on) {
  $("#queue-status").hidden = !on;
  $("#quick-play").hidden = on;
  for (const el of document.querySelectorAll("#queue-options select")) el.disabled = on;
}

function note(text) {
  const el = $("#queue-note");
  el.textContent = text || "";
  el.hidden = !text;
}

/** Re-render the waiting text (also after a language switch). */
export function renderQueue() {
  if (!ticket) return;
  const text = $("#queue-text");
  const hint = $("#queue-bots-hint");
  const bots = $("#queue-bots");
  if (!last) {
    text.textContent = t("queue.looking", { waiting: 1, target: "…" });
    hint.textContent = "";
    bots.hidden = true;
    return;
  }
  // "Any size": the table gathered may grow past its first target (3), so no "1 of 3" promise.
  text.textContent = last.size === "any"
    ? t("queue.looking_any", { waiting: last.waiting })
    : t("queue.looking", { waiting: last.waiting, target: last.target });
  const left = Math.ceil(last.bots_at - (Date.now() / 1000 + clockSkew));
  bots.hidden = !(last.can_accept_bots || left <= 0);
  hint.textContent = bots.hidden ? t("queue.bots_in", { t: formatSeconds(Math.max(1, left)) }) : t("queue.bots_ready");
}

function stop() {
  ticket = null;
  last = null;
  store(null);
  if (countdown) window.clearInterval(countdown);
  countdown = null;
  if (socket) {
    const s = socket;
    socket = null;
    s.close();
  }
  delete $("#queue-status").dataset.socket;
  waiting(false);
}

function matched(out) {
  // Exactly what a join stores: the table page finds the seat there.
  saveSeat(out.table_id, { seat: out.seat, token: out.token, name: ticket ? ticket.name : "" });
  stop();
  note(t("queue.matched"));
  window.location.assign(`/t/${encodeURIComponent(out.table_id)}`);
}

function handleTicket(out) {
  if (out.status === "matched") {
    matched({ table_id: out.table_id, seat: out.seat, token: out.seat_token });
  } else if (out.status === "left") {
    stop();
    note(t(out.reason === "expired" ? "queue.expired" : "queue.left"));
  } else {
    if (out.target) last = { ...last, size: out.size, waiting: out.waiting, target: out.target, bots_at: out.bots_at, can_accept_bots: false };
    waiting(true);
    renderQueue();
    connect();
  }
}

function connect() {
  if (!ticket || socket) return;
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  const qs = new URLSearchParams({ ticket: ticket.ticket, token: ticket.token });
  const ws = new WebSocket(`${proto}//${window.location.host}/ws/queue?${qs}`);
  socket = ws;
  if (!countdown) countdown = window.setInterval(renderQueue, 1000);
  ws.onmessage = (ev) => {
    let m;
    try {
      m = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (m.type === "queue") {
      // The socket is live: the server counts this tab as present (a test waits for it).
      $("#queue-status").dataset.socket = "open";
      if (typeof m.server_time === "number") clockSkew = m.server_time - Date.now() / 1000;
      last = m;
      renderQueue();
    } else if (m.type === "matched") {
      matched(m);
    } else if (m.type === "left") {
      stop();
      note(t(m.reason === "expired" ? "queue.expired" : "queue.left"));
    } else if (m.type === "error") {
      if (["ticket_not_found", "invalid_token", "missing_token"].includes(m.code)) {
        stop();
      } else if (m.code !== "rate_limited") {
        showError(new ApiError(400, m.code, m.message));
      }
    }
  };
  ws.onclose = () => {
    if (socket !== ws) return; // closed on purpose
    socket = null;
    delete $("#queue-status").dataset.socket;
    // Still waiting: come back (the server keeps the place for a few seconds).
    if (ticket) window.setTimeout(resume, RECONNECT_MS);
  };
}

async function resume() {
  if (!ticket || socket) return;
  try {
    handleTicket(await api("GET", `/api/queue/${encodeURIComponent(ticket.ticket)}`, { token: ticket.token }));
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500) stop();
    else window.setTimeout(resume, RECONNECT_MS * 3); // network or server away: try again
  }
}

async function join(name) {
  const size = $("#queue-size").value;
  // A public table already waiting for players (the fullest that fits) comes first;
  // the queue, and its bots, are for when there is none.
  // (204, no body: none waits.)
  const ask = size === "any" ? { name, open_only: true } : { name, seats: Number(size), open_only: true };
  const seated = await api("POST", "/api/quickplay", { body: ask });
  if (seated && seated.table_id) {
    saveSeat(seated.table_id, { seat: seated.seat, token: seated.token, name });
    note(t("queue.matched"));
    window.location.assign(`/t/${encodeURIComponent(seated.table_id)}`);
    return;
  }
  const body = { name, size: size === "any" ? "any" : Number(size), bots_after: Number($("#queue-bots-after").value) };
  const out = await api("POST", "/api/queue", { body });
  ticket = { ticket: out.ticket, token: out.token, name };
  store(ticket);
  note("");
  handleTicket(out);
}

async function cancel() {
  if (!ticket) return;
  const current = ticket;
  try {
    const out = await api("DELETE", `/api/queue/${encodeURIComponent(current.ticket)}`, { token: current.token });
    handleTicket(out);
  } catch (err) {
    if (err instanceof ApiError && err.code === "already_matched") {
      // Seated a moment before: the seat is ours; go and play (or leave it there).
      handleTicket(await api("GET", `/api/queue/${encodeURIComponent(current.ticket)}`, { token: current.token }));
    } else if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
      stop();
    } else {
      showError(err);
    }
  }
}

async function withBots() {
  if (!ticket) return;
  const button = $("#queue-bots");
  button.disabled = true;
  try {
    handleTicket(await api("POST", `/api/queue/${encodeURIComponent(ticket.ticket)}/bots`, { token: ticket.token }));
  } catch (err) {
    if (err instanceof ApiError && err.code === "already_matched") await resume();
    else showError(err);
  } finally {
    button.disabled = false;
  }
}

/** Wire the Quick play panel. requireName() -> the player's name or null; onError(err). */
export function setupQueue(requireName, onError) {
  showError = onError;
  $("#quick-play").addEventListener("click", async () => {
    const name = requireName();
    if (!name || ticket) return;
    const button = $("#quick-play");
    button.disabled = true;
    try {
      await join(name);
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
  $("#queue-cancel").addEventListener("click", cancel);
  $("#queue-bots").addEventListener("click", withBots);
  ticket = stored();
  if (ticket) {
    waiting(true);
    renderQueue();
    resume();
  }
}
