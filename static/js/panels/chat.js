// The table chat (docs/protocol.md, "Table chat"): the players' lines, the spectators' own box
// (a player shows it on demand), and the box to write in. Every line is plain text, set through
// textContent only: a line can never become markup. The panel follows the page: beside the game
// log during the game, under the waiting room before it. Notices are shown by the game log.

import { h, $, fill } from "../common.js";
import { t } from "../i18n.js";
import { state, subscribe, update, mySeat } from "../store.js";
import { sendChat, showSpectatorsChat } from "../socket.js";

const MAX_CHARS = 300;

function time(at) {
  const d = new Date(at * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

function item(line) {
  const mine = line.channel === "players" ? line.seat === mySeat() && line.seat !== null : false;
  return h("li", { class: mine ? "mine" : null, dataset: { id: line.id, channel: line.channel } },
    h("time", { class: "chat-time", text: time(line.at) }),
    h("span", { class: "chat-name", text: line.name || "?" }),
    h("span", { class: "chat-text", text: line.text || "" }));
}

function renderList(list, lines, emptyKey) {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  fill(list, lines.length ? lines.map(item) : [h("li", { class: "chat-empty", text: t(emptyKey) })]);
  if (atBottom || list.dataset.init !== "1") {
    list.scrollTop = list.scrollHeight;
    list.dataset.init = "1";
  }
}

function place() {
  // One panel, moved rather than duplicated: what is being typed stays in the box.
  const panel = $("#chat-area");
  const shown = state.page === "game" || state.page === "waiting";
  panel.hidden = !shown;
  if (!shown) return;
  const home = state.page === "game" ? $("#game-view .side") : $("#waiting-view");
  if (state.page === "game" && panel.parentElement !== home) home.append(panel);
  if (state.page === "waiting" && panel.previousElementSibling !== home) home.after(panel);
}

function render() {
  place();
  const spectator = mySeat() === null;
  const showSpectators = spectator || state.chatShowSpectators;
  $("#chat-show-wrap").hidden = spectator;
  $("#chat-show-spectators").checked = state.chatShowSpectators;
  $("#chat-spectators-box").hidden = !showSpectators;
  renderList($("#chat-players"), state.chat.filter((x) => x.channel === "players"), "chat.empty");
  if (showSpectators) {
    renderList($("#chat-spectators"), state.chat.filter((x) => x.channel === "spectators"), "chat.empty_spectators");
  }
  $("#chat-input").placeholder = t(spectator ? "chat.placeholder_spectator" : "chat.placeholder");
  const err = $("#chat-error");
  err.hidden = !state.chatError;
  err.textContent = state.chatError ? t(`chat.error.${state.chatError}`) : "";
}

export function mount() {
  try {
    update({ chatShowSpectators: window.localStorage.getItem("dragonstones.chat_spectators") === "1" });
  } catch {
    /* storage disabled */
  }
  const input = $("#chat-input");
  input.maxLength = MAX_CHARS;
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (sendChat(text.slice(0, MAX_CHARS))) input.value = "";
    else update({ chatError: "chat_offline" });
  });
  $("#chat-show-spectators").addEventListener("change", (ev) => showSpectatorsChat(ev.target.checked));
  subscribe((changed) => {
    if (changed.size === 0 || ["chat", "chatError", "chatShowSpectators", "page", "hello", "table"].some((k) => changed.has(k))) render();
  });
}
