// The game log: every visible event in plain words, kept scrolled to the newest unless the reader
// has scrolled up. New events are appended; the list is rebuilt only when the log was replaced
// (a resync), the names changed, the language, or a server notice came (a line of the table's feed,
// "a bot plays for Bea": placed after the events of the game version it came at).

import { h, $, fill, iso } from "../common.js";
import { t } from "../i18n.js";
import { eventSentence, eventClass, isNoise, noticeSentence } from "../events.js";
import { state, subscribe, nameOf } from "../store.js";
import { linkCards } from "../popover.js";

let shown = { log: null, count: 0 }; // the log array's first event and how many are on the page

function item(e) {
  return linkCards(h("li", { class: eventClass(e), dataset: { type: e.type, version: e.version ?? "" } }, eventSentence(e, nameOf)));
}

function noticeItem(n) {
  const name = n.name ? iso(n.name) : typeof n.seat === "number" ? nameOf(n.seat) : "";
  const key = `notice.${n.kind}`;
  const params = { ...(n.data || {}), name, kind: n.kind };
  const text = noticeSentence(n, nameOf) ?? (t(key, params) === key ? t("notice.unknown", params) : t(key, params));
  return h("li", { class: "notice", dataset: { notice: n.kind, id: n.id } }, text);
}

/** The events and the notices, in game order: each notice after its version's events. */
function merged(events) {
  const out = [];
  let i = 0;
  const notices = state.notices;
  for (const e of events) {
    while (i < notices.length && e.version !== undefined && notices[i].version < e.version) out.push(noticeItem(notices[i++]));
    out.push(item(e));
  }
  while (i < notices.length) out.push(noticeItem(notices[i++]));
  return out;
}

function render(rebuild) {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const log = state.log;
  if (!rebuild && shown.log === log[0] && shown.count <= log.length) {
    list.append(...log.slice(shown.count).filter((e) => !isNoise(e)).map(item));
  } else {
    fill(list, merged(log.filter((e) => !isNoise(e))));
  }
  shown = { log: log[0], count: log.length };
  if (atBottom || list.dataset.init !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.init = "1";
  }
}

export function mount() {
  subscribe((changed) => {
    if (changed.has("table") || changed.has("notices") || changed.size === 0) render(true);
    else if (changed.has("log")) render(false);
  });
}
