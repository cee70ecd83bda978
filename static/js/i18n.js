// French and English: the current language, UI strings with one plural rule per language
// (Intl.PluralRules), French typography, lists, and the static [data-i18n] texts. The strings
// are in strings/, a file per part of the client and language (strings/<part>-<lang>.js),
// merged here; the cards are in characters.js, the prompts in prompt-text.js.
// Anything missing in French falls back to English, and anything unknown to the server's text.

import coreEn from "./strings/core-en.js";
import coreFr from "./strings/core-fr.js";
import gameEn from "./strings/game-en.js";
import gameFr from "./strings/game-fr.js";
import lobbyEn from "./strings/lobby-en.js";
import lobbyFr from "./strings/lobby-fr.js";
import playersEn from "./strings/players-en.js";
import playersFr from "./strings/players-fr.js";
import replayEn from "./strings/replay-en.js";
import replayFr from "./strings/replay-fr.js";
import tableEn from "./strings/table-en.js";
import tableFr from "./strings/table-fr.js";

const LANG_KEY = "dragonstones.lang";

/** Every UI string of each language, its parts merged (a key is in one part only). */
export const STRINGS = {
  en: { ...coreEn, ...lobbyEn, ...tableEn, ...gameEn, ...playersEn, ...replayEn },
  fr: { ...coreFr, ...lobbyFr, ...tableFr, ...gameFr, ...playersFr, ...replayFr },
};

let current = initialLang();
const listeners = new Set();

function initialLang() {
  let stored = null;
  try {
    stored = window.localStorage.getItem(LANG_KEY);
  } catch {
    stored = null;
  }
  if (stored === "en" || stored === "fr") return stored;
  const nav = (navigator.language || "en").toLowerCase();
  return nav.startsWith("fr") ? "fr" : "en";
}

export function getLang() {
  return current;
}

export function setLang(lang) {
  if (lang !== "en" && lang !== "fr") return;
  current = lang;
  try {
    window.localStorage.setItem(LANG_KEY, lang);
  } catch {
    /* storage disabled */
  }
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

const pluralRules = {};

/** The one plural rule of the current language: "one" or "other" for n (French: 0 and 1 are "one"). */
export function pluralForm(n) {
  pluralRules[current] ??= new Intl.PluralRules(current);
  return pluralRules[current].select(Number(n));
}

/** Pick the form of {one, other} for n; a plain string is returned as it is. */
export function plural(n, forms) {
  if (typeof forms === "string") return forms;
  return forms[pluralForm(n)] ?? forms.other;
}

/** French wants a no-break space before « : ; ! ? » (narrow before ! ? ;), never a line break. */
export function typeset(text) {
  if (current !== "fr") return text;
  return String(text).replace(/ ([:;!?])/g, (m, p) => (p === ":" ? "\u00a0:" : `\u202f${p}`));
}

function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

/** A UI string in the current language (English when the French one is missing). A string with
 *  plural forms takes its count from params.n. */
export function t(key, params) {
  const entry = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  const text = typeof entry === "string" ? entry : plural(params ? params.n : 0, entry);
  return typeset(fill(text, params));
}

/** "Ann, Bob and Cy" / "Ann, Bob et Cy". */
export function listNames(names) {
  const and = current === "fr" ? " et " : " and ";
  if (names.length <= 1) return names.join("");
  return names.slice(0, -1).join(", ") + and + names[names.length - 1];
}

/** French "de" before a name: "d’Alice", "de Bob". */
export function ofName(name) {
  if (current !== "fr") return name;
  return /^\u2068?[aeiouyhâàéèêëîïôûùAEIOUYHÂÀÉÈÊÎÏÔÛ]/.test(String(name)) ? `d’${name}` : `de ${name}`;
}

export function humanize(id) {
  const s = String(id || "").replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Fill every [data-i18n] element's text (and [data-i18n-attr="attr:key"] attributes). */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(",")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}
