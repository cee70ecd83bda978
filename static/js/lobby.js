// The lobby: your name, a new table, the list of open tables, quick play, games to watch.

import {
  h, $, api, savedName, saveName, saveSeat, savedSeat, setupLanguageSwitch, ApiError, formatSeconds, iso, tableTitle,
} from "./common.js";
import { t, getLang } from "./i18n.js";
import { cardEl } from "./cards.js";
import { startLearning } from "./learn.js";
import { setupQueue, renderQueue } from "./queue.js";
import { syncLobbyName, refreshAwaiting } from "./players.js";
import { loadMyTables, renderMyTables } from "./my-tables.js";

const nameInput = $("#player-name");
const nameError = $("#name-error");
let openTables = [];
let playingTables = [];

function currentName() {
  return nameInput.value.trim();
}

function requireName() {
  const name = currentName();
  if (!name) {
    nameError.textContent = t("lobby.need_name");
    nameError.hidden = false;
    nameInput.focus();
    return null;
  }
  nameError.hidden = true;
  saveName(name);
  return name;
}

function showError(err) {
  nameError.textContent = err instanceof ApiError ? err.message : t("error.generic", { message: String(err) });
  nameError.hidden = false;
}

async function joinAndGo(tableId, name) {
  const seat = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { body: { name } });
  saveSeat(tableId, { seat: seat.seat, token: seat.token, name });
  window.location.assign(`/t/${encodeURIComponent(tableId)}`);
}

function renderSeatPicker() {
  const box = $("#seat-options");
  const chosen = box.querySelector("input:checked");
  const value = chosen ? chosen.value : "3";
  box.replaceChildren();
  for (let n = 3; n <= 6; n++) {
    box.append(
      h("label", { class: "seat-option" },
        h("input", { type: "radio", name: "seats", value: String(n), checked: String(n) === value }),
        h("span", {}, String(n))),
    );
  }
}

/** The seated players' names, each isolated (a right-to-left name stays in its place). */
function playerNames(table) {
  return (table.players || []).map((p) => p.name).filter(Boolean).map(iso);
}

/** "2 of 3 online · active 3 min ago": seated people online, and the table's last activity. */
function presenceText(table) {
  const people = (table.players || []).filter((p) => !p.bot).length;
  if (!people || !table.last_active) return null;
  const minutes = Math.max(0, Math.floor((Date.now() - Date.parse(table.last_active)) / 60000));
  const age = minutes < 1 ? t("lobby.age_now")
    : minutes < 60 ? t("lobby.age_min", { n: minutes }) : t("lobby.age_h", { n: Math.floor(minutes / 60) });
  return t("lobby.online_age", { online: table.online ?? 0, people, age });
}

function renderTables() {
  const list = $("#open-tables");
  list.replaceChildren();
  if (!openTables.length) {
    list.append(h("li", { class: "empty" }, t("lobby.no_tables")));
    return;
  }
  for (const table of openTables) {
    const names = playerNames(table);
    const mine = savedSeat(table.id);
    list.append(
      h("li", { class: "table-row", dataset: { tableId: table.id } },
        h("div", { class: "table-info" },
          h("strong", {}, tableTitle(table, table.id)),
          h("span", { class: "seat-dots", "aria-label": t("lobby.seats_taken", { taken: table.taken, seats: table.seats }) },
            Array.from({ length: table.seats }, (_, i) => h("i", { class: i < table.taken ? "dot taken" : "dot" }))),
          h("span", { class: "muted" }, t("lobby.seats_taken", { taken: table.taken, seats: table.seats })),
          table.turn_seconds ? h("span", { class: "tag timer-tag" }, formatSeconds(table.turn_seconds)) : null,
          table.choose_seconds ? h("span", { class: "tag timer-tag choose-timer-tag", title: t("lobby.choose_timer") }, `⚡ ${formatSeconds(table.choose_seconds)}`) : null,
          names.length ? h("span", { class: "muted names" }, names.join(", ")) : null,
          presenceText(table) ? h("span", { class: "muted presence-age" }, presenceText(table)) : null),
        h("div", { class: "row-actions" },
          mine
            ? h("a", { class: "btn primary", href: `/t/${encodeURIComponent(table.id)}` }, t("lobby.rejoin"))
            : h("button", {
                type: "button", class: "btn primary", dataset: { join: table.id },
                onclick: async () => {
                  const name = requireName();
                  if (!name) return;
                  try { await joinAndGo(table.id, name); } catch (err) { showError(err); refresh(); }
                },
              }, t("lobby.join")),
          h("a", { class: "btn", href: table.watch_path || `/t/${encodeURIComponent(table.id)}?watch=1` }, t("lobby.watch")))),
    );
  }
}

function renderWatch() {
  // Public games being played, with their scores: the Watch link opens the spectator's view.
  const list = $("#watch-tables");
  list.replaceChildren();
  if (!playingTables.length) {
    list.append(h("li", { class: "empty" }, t("lobby.no_games")));
    return;
  }
  for (const table of playingTables) {
    const names = playerNames(table);
    const scored = (table.players || []).map((p) =>
      typeof p.score === "number" ? t("lobby.name_score", { name: iso(p.name), score: p.score }) : iso(p.name));
    // Two games of one host read alike: when each started tells them apart.
    const since = table.created_at ? new Intl.DateTimeFormat(getLang(), { timeStyle: "short" }).format(new Date(table.created_at)) : null;
    list.append(
      h("li", { class: "table-row", dataset: { tableId: table.id } },
        h("div", { class: "table-info" },
          h("strong", {}, tableTitle(table, table.id)),
          typeof table.turn === "number" ? h("span", { class: "tag" }, t("lobby.turn", { turn: table.turn })) : null,
          since ? h("span", { class: "muted started-at" }, t("lobby.started_at", { time: since })) : null,
          scored.length ? h("span", { class: "muted names" }, scored.join(", ")) : null),
        h("div", { class: "row-actions" },
          savedSeat(table.id)
            ? h("a", { class: "btn primary", href: `/t/${encodeURIComponent(table.id)}` }, t("lobby.rejoin"))
            : null,
          h("a", { class: "btn", href: table.watch_path || `/t/${encodeURIComponent(table.id)}?watch=1` }, t("lobby.watch")))),
    );
  }
}

async function refresh() {
  try {
    const [tables, playing] = await Promise.all([
      api("GET", "/api/tables"),
      api("GET", "/api/tables?status=playing"),
    ]);
    openTables = Array.isArray(tables) ? tables.filter((x) => x.taken < x.seats) : [];
    playingTables = Array.isArray(playing) ? playing : [];
  } catch (err) {
    openTables = [];
    playingTables = [];
    showError(err);
  }
  renderTables();
  renderWatch();
}

function renderHero() {
  const box = $("#hero-cards");
  box.replaceChildren(
    cardEl("witch", { size: "small", help: false }),
    cardEl("red_dragon", { size: "small", help: false }),
    cardEl("magician", { size: "small", help: false }),
    cardEl("rainbow_dragon", { size: "small", help: false }),
  );
}

function rerender() {
  renderSeatPicker();
  renderTables();
  renderWatch();
  renderMyTables();
  renderHero();
  renderQueue();
}

$("#create-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const name = requireName();
  if (!name) return;
  const button = $("#create-button");
  button.disabled = true;
  try {
    const seats = Number(new FormData(ev.target).get("seats") || 3);
    const body = { seats, public: $("#public").checked };
    // "No limit" is said explicitly: the server's default has limits.
    const seconds = Number($("#timer").value);
    body.turn_seconds = seconds > 0 ? seconds : null;
    const chooseSeconds = Number($("#choose-timer").value); // time for power decisions
    body.choose_seconds = chooseSeconds > 0 ? chooseSeconds : null;
    if ($("#relaxed").checked || $("#slow").checked) {
      // Relaxed: the server's limits times ten; slow: a day per decision (the server's
      // SLOW_DECISION_HOURS); either whatever the two lists say.
      body.pace = $("#slow").checked ? "slow" : "relaxed";
      delete body.turn_seconds;
      delete body.choose_seconds;
    }
    const table = await api("POST", "/api/tables", { body });
    await joinAndGo(table.id, name);
  } catch (err) {
    // Tables this address opened wait with nobody seated (the server's limit): say it in the
    // page's language.
    if (err instanceof ApiError && err.code === "too_many_tables") err.message = t("lobby.too_many_tables");
    showError(err);
    button.disabled = false;
  }
});

// "Learn to play": a guided game against two easy bots (learn.js).
$("#learn-button").addEventListener("click", (ev) => {
  ev.currentTarget.disabled = true;
  startLearning($("#player-name").value.trim() || t("learn.default_name")).catch((err) => {
    showError(err);
    $("#learn-button").disabled = false;
  });
});

// Quick play waits in the server's matchmaking queue (queue.js).
setupQueue(requireName, showError);

$("#refresh").addEventListener("click", refresh);
// The page shows the field before this module runs (it waits for the card catalogue): keep
// what was typed meanwhile.
if (!nameInput.value.trim()) nameInput.value = savedName();
nameInput.addEventListener("change", () => { if (currentName()) saveName(currentName()); });

setupLanguageSwitch(rerender);
rerender();
refresh();
loadMyTables();
// The name kept with this browser's player, and how many games wait for them (static/js/players.js).
syncLobbyName().then(refreshAwaiting);
window.setInterval(() => { if (!document.hidden) refresh(); }, 5000);
// Enabled only now that their handlers listen: the module waits for the card catalogue first,
// and a click before that submitted the form natively (the page reloaded and the name was lost).
$("#create-button").disabled = false;
$("#quick-play").disabled = false;
