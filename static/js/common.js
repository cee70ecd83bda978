// Shared helpers for the lobby and the table page: DOM building, the HTTP API, local storage.

import { t, getLang, setLang, onLangChange, applyStatic, ofName } from "./i18n.js";

// A person's name is isolated from the text around it, so that a right-to-left name
// cannot reorder the sentence ("Cid ▯ 4 :مرحبا"). Names travel inside strings between FSI and PDI
// (iso); h() and setText() turn each such span into a <bdi> element (attributes and the tab's
// title just drop the marks).
const FSI = "\u2068";
const PDI = "\u2069";
const MARKS = /[\u2068\u2069]/g;

/** A name, marked to be isolated wherever it is shown. */
export function iso(name) {
  return `${FSI}${plain(name)}${PDI}`;
}

/** The text without isolation marks (attributes, the tab's title, comparisons). */
export function plain(text) {
  return String(text).replace(MARKS, "");
}

/** Text nodes, each marked name a <bdi>: text is never parsed as HTML. */
export function textNodes(text) {
  const out = [];
  const parts = String(text).split(FSI);
  if (parts[0]) out.push(document.createTextNode(parts[0].replace(MARKS, "")));
  for (const part of parts.slice(1)) {
    const end = part.indexOf(PDI);
    const name = end < 0 ? part : part.slice(0, end);
    const bdi = document.createElement("bdi");
    bdi.textContent = name;
    out.push(bdi);
    const rest = end < 0 ? "" : part.slice(end + 1).replace(MARKS, "");
    if (rest) out.push(document.createTextNode(rest));
  }
  return out;
}

/** el.textContent = text, names isolated. */
export function setText(el, text) {
  el.replaceChildren(...textNodes(text ?? ""));
}

/** Build a DOM element. Text is always set through textContent, never parsed as HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") setText(el, value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    // Through the CSSOM: a style attribute would be inline style, which the page's policy refuses.
    else if (key === "style") for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, String(v));
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, plain(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    if (child instanceof Node) el.append(child);
    else el.append(...textNodes(child));
  }
  return el;
}

/** replaceChildren that skips empty slots (null, false, undefined). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

/** "Ann’s table": named after its host, else its first person, never a bot (not "Bot 1’s
 *  table" once the host has left); "Table <id>" while nobody sits. */
export function tableTitle(table, id) {
  const players = (table && table.players) || [];
  const p = players.find((x) => x.seat === table.host && !x.bot) || players.find((x) => !x.bot && x.name);
  if (!p) return t("table.title", { id: id ?? (table && table.id) });
  const name = iso(p.name);
  return t("lobby.table_of", { name, of_name: ofName(name) });
}

/** "15 s", "2 min". */
export function formatSeconds(s) {
  // A slow table's limits are hours ("24 h", not "1440 min"); "h" reads the same in French.
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`;
  return s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** An id for an action: crypto.randomUUID needs a secure context, getRandomValues does not. */
export function newId() {
  if (window.crypto && typeof window.crypto.randomUUID === "function" && window.isSecureContext) {
    return window.crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- Local storage: the player's name and one seat token per table (PROTOCOL_SKETCH names). ----

const NAME_KEY = "dragonstones.name";
const seatKey = (tableId) => `dragonstones.seat.${tableId}`;

function storageGet(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled (private mode): the page still works, it just forgets
  }
}

function storageSet(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    /* storage disabled: nothing to remember */
  }
}

export function savedName() {
  return storageGet(NAME_KEY) || "";
}

export function saveName(name) {
  storageSet(NAME_KEY, name);
}

export function savedSeat(tableId) {
  const raw = storageGet(seatKey(tableId));
  if (!raw) return null;
  try {
    const seat = JSON.parse(raw);
    return seat && typeof seat.token === "string" ? seat : null;
  } catch {
    return null;
  }
}

export function saveSeat(tableId, seat) {
  storageSet(seatKey(tableId), seat ? JSON.stringify(seat) : null);
  // A seat taken while signed in is the player's too (static/js/players.js): loaded on demand,
  // so that this module's importers do not all load it.
  if (seat && seat.token) import("./players.js").then((p) => p.linkSeat(tableId, seat.token, seat.name));
}

// ---- HTTP ----

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the JSON API. Errors come back as ApiError with the server's code and message. */
export async function api(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const detail = data && data.detail;
    let code = "http_" + response.status;
    let message = t("error.http", { status: response.status });
    if (detail && typeof detail === "object" && !Array.isArray(detail)) {
      code = detail.code || code;
      message = detail.message || message;
    } else if (typeof detail === "string") {
      message = detail;
    } else if (Array.isArray(detail) && detail.length && detail[0].msg) {
      message = detail.map((d) => d.msg).join("; ");
    }
    throw new ApiError(response.status, code, message);
  }
  return data;
}

// ---- Page chrome: the language switch. ----

/** Wire the EN/FR buttons found in the header; re-run `rerender` after every switch. */
export function setupLanguageSwitch(rerender) {
  const buttons = document.querySelectorAll("[data-lang-button]");
  const refresh = () => {
    document.documentElement.lang = getLang();
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.langButton === getLang()));
    applyStatic(document);
  };
  for (const b of buttons) {
    b.addEventListener("click", () => setLang(b.dataset.langButton));
  }
  onLangChange(() => {
    refresh();
    if (rerender) rerender();
  });
  refresh();
}

/** Copy text to the clipboard; falls back to selecting the field when the browser refuses. */
export async function copyText(text, field) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* permission refused: fall back below */
  }
  if (field) {
    field.focus();
    field.select();
    // Over plain http (a home network) the Clipboard API is absent; the older command still
    // copies a selection made by the click.
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
  return false;
}

export function absoluteUrl(path) {
  return new URL(path, window.location.origin).href;
}
