// The table page: which view shows (join form, a game already started, waiting room, the game),
// and the start. State lives in store.js; the socket in socket.js; each panel renders itself.

import { $, api, ApiError, savedSeat, saveSeat, setupLanguageSwitch } from "./common.js";
import { linkSeat, seatBack } from "./players.js";
import { t } from "./i18n.js";
import { state, subscribe, update, refreshAll } from "./store.js";
import { connect } from "./socket.js";
import * as waiting from "./panels/waiting.js";
import * as topbar from "./panels/topbar.js";
import * as seats from "./panels/seats.js";
import * as auction from "./panels/auction.js";
import * as screen from "./panels/screen.js";
import * as prompts from "./panels/prompts.js";
import * as log from "./panels/log.js";
import * as gameover from "./panels/gameover.js";
import * as standin from "./panels/standin.js";
import * as chat from "./panels/chat.js";
import * as moretime from "./panels/moretime.js";
import * as hints from "./panels/hints.js";

const VIEWS = { loading: "loading-view", notfound: "notfound-view", join: "join-view", started: "started-view", waiting: "waiting-view", game: "game-view" };

function showPage() {
  for (const [page, id] of Object.entries(VIEWS)) $("#" + id).hidden = page !== state.page;
  if (state.page !== "game") document.title = `${t("table.title", { id: state.tableId })} — Dragonstones`;
}

// A seat's page moves on by itself: the first state shows the game, a table message the waiting
// room. The join form and the "already started" notice stay until the person acts.
subscribe((changed) => {
  let page = state.page;
  if (["waiting", "game", "loading"].includes(page) && state.view) page = "game";
  else if (page === "loading" && state.table && state.table.status === "open") page = "waiting";
  if (page !== state.page) update({ page });
  else if (changed.has("page") || changed.size === 0) showPage();
});

for (const panel of [waiting, topbar, seats, auction, screen, prompts, log, gameover, chat, standin, moretime, hints]) panel.mount();

async function boot() {
  // A language switch re-renders the page that is showing, and nothing else: it never changes it.
  setupLanguageSwitch(refreshAll);
  if (!state.tableId) return update({ page: "notfound" });
  let table = null;
  try {
    table = await api("GET", `/api/tables/${encodeURIComponent(state.tableId)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return update({ page: "notfound" });
    update({ offline: true }); // unreachable: keep trying through the socket, with the banner up
  }
  // A table closed for idleness says so instead of offering a seat.
  if (table && table.status === "closed") return update({ table, page: "notfound", notice: t("table.closed") });
  // A seat this player took on another device is given back here (static/js/players.js).
  let seat = state.watchOnly ? null : savedSeat(state.tableId);
  if (!seat && !state.watchOnly && table && table.status !== "closed") {
    seat = await seatBack(state.tableId);
    if (seat) saveSeat(state.tableId, seat);
  } else if (seat) {
    linkSeat(state.tableId, seat.token, seat.name); // the lobby may have left before linking
  }
  update({ table, seat });
  if (!seat && !state.watchOnly && table) {
    // An invite link in a fresh browser: a seat to take, or a game that started without us.
    return update({ page: table.status === "open" ? "join" : "started" });
  }
  showPage();
  connect();
}

boot();
