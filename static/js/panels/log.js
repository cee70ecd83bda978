// The game log: every visible event in plain words, kept scrolled to the newest unless the reader
// has scrolled up. New events are appended; the list is rebuilt only when the log was replaced
// (a resync), the names changed, or the language.

import { h, $, fill } from "../common.js";
import { eventSentence, eventClass, isNoise } from "../events.js";
import { state, subscribe, nameOf } from "../store.js";

let shown = { log: null, count: 0 }; // the log array's first event and how many are on the page

function item(e) {
  return h("li", { class: eventClass(e), dataset: { type: e.type, version: e.version ?? "" } }, eventSentence(e, nameOf));
}

function render(rebuild) {
  const list = $("#log");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const log = state.log;
  if (!rebuild && shown.log === log[0] && shown.count <= log.length) {
    list.append(...log.slice(shown.count).filter((e) => !isNoise(e)).map(item));
  } else {
    fill(list, log.filter((e) => !isNoise(e)).map(item));
  }
  shown = { log: log[0], count: log.length };
  if (atBottom || list.dataset.init !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.init = "1";
  }
}

export function mount() {
  subscribe((changed) => {
    if (changed.has("table") || changed.size === 0) render(true);
    else if (changed.has("log")) render(false);
  });
}
