// The table chat (docs/protocol.md, "Table chat"): one conversation, the spectators' lines in
// their own style (a player may turn them off), and the box to write in. Every line is plain text, set through
// textContent only: a line can never become markup. The panel follows the page: beside the game
// log during the game, under the waiting room before it. Notices are shown by the game log.

import { h, $, fill, iso } from "../common.js";
import { t } from "../i18n.js";
import { state, subscribe, update, mySeat } from "../store.js";
import { sendChat, sendSpectatorName, showSpectatorsChat } from "../socket.js";

const MAX_CHARS = 300;

function time(at) {
  const d = new Date(at * 1000);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

function item(line) {
  const mine = line.channel === "players" ? line.seat === mySeat() && line.seat !== null : false;
  const spectator = line.channel === "spectators";
  return h("li", { class: mine ? "mine" : null, dataset: { id: line.id, channel: line.channel } },
    h("time", { class: "chat-time", text: time(line.at) }),
    spectator ? h("span", { class: "chat-tag" }, t("chat.spectator_tag")) : null,
    h("span", { class: "chat-name", text: iso(line.name || "?") }),
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

// -- one conversation (the spectators' lines in their own style, unless a player turns
// them off), and on a phone a chat tab that counts the lines not seen yet.

let seenId = 0; // the highest line id the person has had in sight
let chatInView = false;

function visibleLines() {
  const spectator = mySeat() === null;
  const showSpectators = spectator || state.chatShowSpectators;
  return state.chat.filter((x) => x.channel === "players" || (showSpectators && x.channel === "spectators"));
}

function renderTab() {
  const tab = $("#chat-tab");
  if (!tab) return;
  const lines = visibleLines();
  const last = lines.length ? lines[lines.length - 1].id : 0;
  if (chatInView || !document.body.classList.contains("is-phone")) seenId = Math.max(seenId, last);
  const unread = lines.filter((x) => x.id > seenId && x.seat !== mySeat()).length;
  // Only while the chat is out of sight: in sight, it would cover the chat's own Send button.
  tab.hidden = $("#chat-area").hidden || chatInView;
  $("#chat-unread").textContent = unread ? String(unread) : "";
  tab.setAttribute("aria-label", unread ? `${t("chat.tab")} — ${t("chat.unread", { n: unread })}` : t("chat.tab"));
}

function render() {
  place();
  const spectator = mySeat() === null;
  $("#chat-show-wrap").hidden = spectator;
  $("#spectator-name-form").hidden = !spectator;
  $("#spectator-label").textContent = state.viewerName ? t("chat.you_are", { name: state.viewerName }) : "";
  $("#chat-show-spectators").checked = state.chatShowSpectators;
  $("#chat-spectators-box").hidden = true;
  renderList($("#chat-players"), visibleLines(), "chat.empty");
  $("#chat-input").placeholder = t(spectator ? "chat.placeholder_spectator" : "chat.placeholder");
  const err = $("#chat-error");
  err.hidden = !state.chatError;
  err.textContent = state.chatError ? t(`chat.error.${state.chatError}`) : "";
  renderTab();
}

export function mount() {
  try {
    // Shown unless this device turned them off.
    update({ chatShowSpectators: window.localStorage.getItem("dragonstones.chat_spectators") !== "0" });
  } catch {
    update({ chatShowSpectators: true });
  }
  const phone = window.matchMedia("(max-width: 760px)");
  const onPhone = () => { document.body.classList.toggle("is-phone", phone.matches); renderTab(); };
  phone.addEventListener("change", onPhone);
  document.body.classList.toggle("is-phone", phone.matches);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      chatInView = entries.some((e) => e.isIntersecting);
      renderTab();
    }).observe($("#chat-form"));
  }
  $("#chat-tab").addEventListener("click", () => {
    $("#chat-area").scrollIntoView({ block: "end" });
    $("#chat-input").focus({ preventScroll: true });
    seenId = Math.max(seenId, ...visibleLines().map((x) => x.id));
    renderTab();
  });
  const input = $("#chat-input");
  input.maxLength = MAX_CHARS;
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (sendChat(text.slice(0, MAX_CHARS))) input.value = "";
    else update({ chatError: "chat_offline" });
  });
  $("#spectator-name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("#spectator-name").value.trim();
    if (name && !sendSpectatorName(name)) update({ chatError: "chat_offline" });
  });
  $("#chat-show-spectators").addEventListener("change", (ev) => showSpectatorsChat(ev.target.checked));
  subscribe((changed) => {
    if (changed.size === 0 || ["chat", "chatError", "chatShowSpectators", "viewerName", "page", "hello", "table"].some((k) => changed.has(k))) render();
  });
}
