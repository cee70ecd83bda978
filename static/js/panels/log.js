// The game log: every visible event in plain words, kept scrolled to the newest unless the reader
// has scrolled up. New events are appended; the list is rebuilt only when the log was replaced
// (a resync), the names changed, the language, or a table notice came (a bot stands in for a
// seat, its person is back), which takes its place after the events of its version.

import { h, $, fill } from "../common.js";
import { eventSentence, eventClass, isNoise, noticeSentence } from "../events.js";
import { state, subscribe, nameOf } from "../store.js";

let shown = { log: null, count: 0 }; // the log array's first event and how many are on the page

function item(e) {
  return h("li", { class: eventClass(e), dataset: { type: e.type, version: e.version ?? "" } }, eventSentence(e, nameOf));
}

function noticeItem(n) {
  return h("li", { class: "notice", dataset: { type: "notice", notice: n.kind, version: n.version } }, noticeSentence(n, nameOf));
}

/** The events with the notices in their places: after the events of the version they follow. */
function entries() {
  const events = state.log.filter((e) => !isNoise(e));
  const out = [];
  let i = 0;
  for (const n of state.notices) {
    while (i < events.length && (events[i].version ?? -1) <= n.version) out.push(item(events[i++]));
    // A notice older than the log on the page (the log was cut at a resync) is not shown.
    if (!events.length || (events[0].version ?? 0) <= n.version) out.push(noticeItem(n));
  }
  while (i < events.length) out.push(item(events[i++]));
  return out;
}

function render(rebuild) {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const log = state.log;
  if (!rebuild && shown.log === log[0] && shown.count <= log.length) {
    list.append(...log.slice(shown.count).filter((e) => !isNoise(e)).map(item));
  } else {
    fill(list, entries());
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
