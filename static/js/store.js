// The table page's one shared state. The socket and the buttons put state in (update); renderers
// subscribe to change events and read it back (state, and the selectors below). Nothing else
// holds game state: a renderer never reads the socket, the socket never touches the page.

import { t } from "./i18n.js";
import { iso } from "./common.js";

const match = /^\/(?:t|replay)\/([^/]+)\/?$/.exec(window.location.pathname);
const params = new URLSearchParams(window.location.search);

export const state = {
  tableId: match ? decodeURIComponent(match[1]) : null,
  watchOnly: params.has("watch"),
  page: "loading", // loading | notfound | join | started | waiting | game
  table: null,
  seat: null, // this browser's seat: {seat, token, name} or null (spectator)
  hello: null,
  gameId: null,
  version: -1,
  view: null,
  prompts: [],
  log: [], // visible events, oldest first
  pending: null, // {action_id, action, promptKey, acked?}: sent, not yet seen applied (acked: the version its ack named)
  deadline: null, // ms on this browser's clock when the open sealed round closes, or null
  actionError: null,
  offline: false,
  endDismissed: false,
  lastReveal: null, // the latest auction with bids, kept until the next one (across turns)
  // Table chat: lines of the players' and spectators' channels, and the server's notices
  // (shown in the game log), each oldest first by id; chatLast: the last line id the server has
  // considered for this socket (sent back as chat_since on reconnection).
  chat: [],
  notices: [],
  chatLast: 0,
  chatError: null,
  chatShowSpectators: false,
  viewerName: null, // a spectator's label, as the server gives it
  // -- timers and absent players --
  seatBack: null, // ms when this seat was given back to its person (the page says so a while)
};

const listeners = new Set();

// Keys changed by updateSoon and not yet told (see there), and the scheduled telling.
let soon = null;
let soonFrame = null;
let soonTimer = null;

function tell(changed) {
  for (const fn of listeners) fn(changed);
}

function cancelSoon() {
  if (soonFrame !== null) window.cancelAnimationFrame(soonFrame);
  if (soonTimer !== null) window.clearTimeout(soonTimer);
  soonFrame = soonTimer = null;
  const keys = soon;
  soon = null;
  return keys;
}

function flushSoon() {
  const keys = cancelSoon();
  if (keys) tell(keys);
}

/** Put state in; every subscriber hears at once which keys changed (with those of an updateSoon
 *  not yet told). An empty patch renders everything again. */
export function update(patch) {
  Object.assign(state, patch);
  const keys = Object.keys(patch);
  const pending = cancelSoon();
  if (keys.length === 0) return tell(new Set()); // everything renders: the waiting keys too
  const changed = new Set(keys);
  if (pending) for (const k of pending) changed.add(k);
  tell(changed);
}

/** Put state in now; the subscribers hear of it before the next frame is drawn. The frames of a
 *  game at machine speed (bots, a tab's own seat elsewhere) come faster than a page renders on a
 *  phone: each one rendered in turn left the page ever further behind the table. Now every frame
 *  that came meanwhile is in the state, and the page renders once for them all. A hidden page
 *  draws no frames: a timer tells it (a tab in the background still hears it is its move). */
export function updateSoon(patch) {
  Object.assign(state, patch);
  if (soon === null) {
    soon = new Set();
    if (!document.hidden) soonFrame = window.requestAnimationFrame(flushSoon);
    // Also when frames stop (the page is hidden meanwhile, a browser that draws none).
    soonTimer = window.setTimeout(flushSoon, document.hidden ? 0 : 100);
  }
  for (const k of Object.keys(patch)) soon.add(k);
}

/** Listen for changes: fn(changedKeys). Returns the way to stop listening. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Everyone renders again (a language switch). */
export function refreshAll() {
  update({});
}

// ---- selectors ----

export function mySeat() {
  if (state.watchOnly) return null;
  if (state.hello && typeof state.hello.seat === "number") return state.hello.seat;
  return state.seat ? state.seat.seat : null;
}

export function playerInfo(seat) {
  return (state.table && (state.table.players || []).find((x) => x.seat === seat)) || null;
}

/** A seat's name, isolated (common.iso: shown in a <bdi>). */
export function nameOf(seat) {
  const p = playerInfo(seat);
  return iso(p && p.name ? p.name : t("seat.n", { n: seat + 1 }));
}

export function myPrompt() {
  const seat = mySeat();
  if (seat === null) return null;
  return state.prompts.find((p) => p.seat === seat && (p.max || p.options)) || null;
}

export function promptKey(p) {
  const v = state.view;
  return p ? `${v ? v.turn : ""}|${v && v.auction ? v.auction.number : ""}|${canonical(p)}` : null;
}

/** JSON with every object's keys sorted: a prompt patched by deltas holds its keys in another
 *  order than the same prompt sent whole, and must still be known as the same (else an answered
 *  prompt showed again, and the panel was drawn anew under the person's focus). */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function isOver() {
  return Boolean(state.view) && state.view.winner !== null && state.view.winner !== undefined;
}

/** Take a new `state` message in: the log, the view, the prompts, the clock. */
export function absorbState(msg) {
  const fresh = msg.events_from === undefined || msg.events_from < state.version || state.version < 0 || msg.resync;
  const events = Array.isArray(msg.events) ? msg.events : [];
  const log = fresh ? events.slice() : state.log.concat(
    events.filter((e) => e.version === undefined || e.version > state.version));
  updateSoon({
    log, version: msg.version, gameId: msg.game_id || state.gameId, view: msg.view,
    prompts: Array.isArray(msg.prompts) ? msg.prompts : [], deadline: deadlineOf(msg),
    lastReveal: latestReveal(msg.view, log) || state.lastReveal,
  });
}

/** When the sealed round closes, on this browser's clock (corrected by the server's clock). */
function deadlineOf(msg) {
  if (typeof msg.deadline !== "number") return null;
  const offset = typeof msg.server_time === "number" ? Date.now() / 1000 - msg.server_time : 0;
  return (msg.deadline + offset) * 1000;
}

/** Take a `delta` message in (the socket asked for them): the changes from the view and prompts
 *  of version `base` to those of `version`, and that version's events. False when it does not
 *  follow what this page holds: the socket then asks for the whole state (`sync`). */
export function absorbDelta(msg) {
  if (!state.view || msg.base !== state.version || msg.game_id !== state.gameId) return false;
  let doc;
  try {
    doc = applyChanges({ view: state.view, prompts: state.prompts }, msg.changes || []);
  } catch {
    return false; // a change that does not fit: the whole state puts it right
  }
  const events = Array.isArray(msg.events) ? msg.events : [];
  const log = events.length ? state.log.concat(events) : state.log;
  updateSoon({
    log, version: msg.version, view: doc.view,
    prompts: Array.isArray(doc.prompts) ? doc.prompts : [], deadline: deadlineOf(msg),
    lastReveal: latestReveal(doc.view, log) || state.lastReveal,
  });
  return true;
}

/** A document with changes applied (docs/protocol.md, "Delta frames"): ["s", path, value] sets,
 *  ["d", path] deletes a key, ["a", path, items] appends to a list. What changes is copied, the
 *  rest kept as it was: a renderer may still hold the old view. */
export function applyChanges(doc, changes) {
  for (const [op, path, value] of changes) doc = changeAt(doc, op, path, 0, value);
  return doc;
}

function changeAt(node, op, path, i, value) {
  if (i === path.length) {
    if (op === "s") return value;
    if (op === "a" && Array.isArray(node)) return node.concat(value);
    throw new Error(`bad change ${op}`);
  }
  const key = path[i];
  if (node === null || typeof node !== "object") throw new Error("no such place");
  const copy = Array.isArray(node) ? node.slice() : { ...node };
  if (op === "d" && i === path.length - 1) delete copy[key];
  else copy[key] = changeAt(node[key], op, path, i + 1, value);
  return copy;
}

/** The latest auction of the turn with revealed bids, and the events since its reveal. */
export function latestReveal(view, log) {
  const records = (view && view.turn_cards) || [];
  let idx = -1;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i].bids) { idx = i; break; }
  }
  if (idx < 0) return null;
  let start = -1;
  for (let i = log.length - 1; i >= 0; i--) {
    if (log[i].type === "bids_revealed") { start = i; break; }
  }
  const quiet = ["auction_started", "turn_started", "turn_ended", "special_deck_reshuffled", "bid_submitted", "tiebreak_submitted"];
  const effects = start < 0 ? [] : log.slice(start + 1).filter((e) => !quiet.includes(e.type)).slice(0, 8);
  return { turn: view.turn, index: idx, record: records[idx], effects };
}

// ---- table chat ----

function mergeLines(old, lines) {
  const byId = new Map(old.map((x) => [x.id, x]));
  for (const line of lines) byId.set(line.id, line);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Take chat lines in (a live `chat` line or a `chat_lines` batch): merged by id, so that a
 *  batch after a reconnection or a "show spectators" never shows a line twice. A notice is kept
 *  with the game version it came at (its place in the game log). */
export function absorbChat(lines, last) {
  const chat = lines.filter((x) => x.channel !== "notices");
  const notices = lines.filter((x) => x.channel === "notices").map((x) => ({
    // Without a game version, a notice came before the game (sat down, left): it stays at the
    // top of the log, also when a reload brings it after the game's state.
    ...x, version: x.data && typeof x.data.version === "number" ? x.data.version : -1,
  }));
  const ids = lines.map((x) => x.id);
  const patch = { chatLast: Math.max(state.chatLast, last ?? 0, ...ids) };
  if (chat.length) patch.chat = mergeLines(state.chat, chat);
  if (notices.length) patch.notices = mergeLines(state.notices, notices);
  // This seat given back just now (not a notice replayed from long ago): the page says so.
  if (notices.some((n) => n.kind === "back" && n.seat === mySeat() && Date.now() / 1000 - n.at < 60
      && !state.notices.some((o) => o.id === n.id))) patch.seatBack = Date.now();
  update(patch);
}
