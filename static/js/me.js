// The players' pages (static/me.html): /me (my name, my rating, my games, my other devices),
// /me/claim#<code> (a one-time link opened on another device) and /players/<id> (a public page).

import { $, h, fill, api, ApiError, saveName, setupLanguageSwitch } from "./common.js";
import { t, getLang } from "./i18n.js";
import { joinLeague, joinText, leaguePage, myLeagues } from "./leagues.js";
import { showAwaiting } from "./players.js";

const path = window.location.pathname;
let me = null;
let before = null;
// The claim's answer, said again in another language (the code is spent: no second try).
let claimText = () => "";
let claimMade = null;
// The page as it is drawn now, drawn again when the language changes.
let render = () => {};

function show(id) {
  $("#" + id).hidden = false;
}

function notice(text) {
  const el = $("#me-notice");
  el.textContent = text;
  el.hidden = !text;
}

function when(iso) {
  return new Date(iso).toLocaleString(getLang(), { dateStyle: "medium", timeStyle: "short" });
}

function ratingText(rating) {
  if (!rating) return t("me.unrated");
  return t("me.rating", {
    shown: rating.shown.toFixed(1),
    sigma: rating.sigma.toFixed(1),
    n: rating.games,
    wins: rating.wins,
  });
}

function placeName(p) {
  const who = p.bot_kind ? t("me.bot", { name: p.name, kind: p.bot_kind }) : p.name;
  const left = p.left ? ` (${t("me.left")})` : "";
  const named = p.player_id ? h("a", { href: `/players/${encodeURIComponent(p.player_id)}` }, who) : who;
  return h("li", {}, t("me.place", { place: p.place, score: p.score }), " ", named, left);
}

function finishedItem(game, playerId) {
  const mine = game.placements.find((p) => p.player_id === playerId);
  const title = mine ? t("me.my_place", { place: mine.place, n: game.placements.length }) : "";
  return h(
    "li",
    { class: "game-item" },
    h("p", {}, h("strong", {}, when(game.finished_at)), " · ", title, " · ", h("a", { href: game.replay }, t("me.replay"))),
    h("ol", { class: "placements" }, game.placements.map(placeName)),
  );
}

/** "being played · turn 3 · your move, until 21:04" */
function currentText(g) {
  const parts = [t("me.status_" + g.status)];
  if (g.turn) parts.push(t("me.turn", { turn: g.turn }));
  if (g.your_move) {
    // The date too: at a slow table the deadline is a day or more away.
    parts.push(g.deadline ? t("me.your_move_until", { time: when(g.deadline) }) : t("me.your_move"));
  }
  return parts.join(" · ");
}

async function loadGames(more) {
  const query = new URLSearchParams({ limit: "10" });
  if (more && before) query.set("before", String(before));
  const games = await api("GET", `/api/me/games?${query}`);
  if (!more) {
    fill(
      $("#current-games"),
      games.current.length
        ? games.current.map((g) => h("li", g.your_move ? { class: "awaiting" } : {}, h("a", { href: `/t/${encodeURIComponent(g.table_id)}` }, t("me.table", { name: g.name, seat: g.seat + 1 })), ` · ${currentText(g)}`))
        : h("li", { class: "hint" }, t("me.none_current")),
    );
    fill($("#finished-games"));
    // The server lists the games waiting for me first and counts them.
    showAwaiting(games.awaiting || 0);
  }
  const list = $("#finished-games");
  for (const g of games.finished) list.append(finishedItem(g, me.id));
  if (!list.children.length) list.append(h("li", { class: "hint" }, t("me.none_finished")));
  before = games.before;
  $("#more-games").hidden = !before;
}

async function profile() {
  me = await api("GET", "/api/me");
  if (me.notice === "new_player") notice(t("me.new_player"));
  $("#me-name").value = me.name || "";
  $("#me-public").href = `/players/${encodeURIComponent(me.id)}`;
  const page = await api("GET", `/api/players/${encodeURIComponent(me.id)}`);
  $("#me-rating").textContent = ratingText(page.rating);
  for (const id of ["profile-view", "devices-view", "games-view"]) show(id);
  await loadGames(false);
  await myLeagues();
}

async function claim() {
  show("claim-view");
  const code = window.location.hash.slice(1);
  // The code leaves the address bar at once: it is spent, and no one should copy it from there.
  history.replaceState(null, "", "/me/claim");
  try {
    const out = await api("POST", "/api/claims", { body: { code } });
    if (out.name) saveName(out.name);
    claimText = () => t("me.claimed", { name: out.name || t("me.no_name") });
  } catch (e) {
    const key = e instanceof ApiError ? `me.${e.code}` : "";
    claimText = () => (e instanceof ApiError && t(key) !== key ? t(key) : String(e.message || e));
  }
  $("#claim-result").textContent = claimText();
}

async function publicPage(id) {
  show("player-view");
  try {
    const page = await api("GET", `/api/players/${encodeURIComponent(id)}`);
    $("#player-title").textContent = page.name || t("me.no_name");
    $("#player-rating").textContent = ratingText(page.rating);
    fill($("#player-games"), page.last_games.map((g) => finishedItem(g, id)));
  } catch (e) {
    $("#player-title").textContent = e instanceof ApiError ? e.message : String(e);
  }
}

$("#rename-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = $("#rename-error");
  try {
    me = await api("PATCH", "/api/me", { body: { name: $("#me-name").value } });
    saveName(me.name);
    error.hidden = true;
  } catch (e) {
    error.textContent = e instanceof ApiError ? e.message : String(e);
    error.hidden = false;
  }
});

/** The one-time link last made here, said again in another language. */
function claimBox() {
  const out = claimMade;
  if (!out) return;
  $("#claim-link").value = new URL(out.path, window.location.origin).href;
  $("#claim-qr").src = "data:image/svg+xml;base64," + btoa(out.qr_svg);
  $("#claim-qr").alt = t("me.qr");
  $("#claim-expiry").textContent = t("me.claim_expiry", { time: new Date(out.expires_at).toLocaleTimeString(getLang()) });
  $("#claim-box").hidden = false;
}

$("#claim-button").addEventListener("click", async () => {
  claimMade = await api("POST", "/api/me/claims");
  claimBox();
});

$("#signout-button").addEventListener("click", async () => {
  await api("POST", "/api/me/signout");
  window.location.assign("/");
});

$("#signout-all-button").addEventListener("click", async () => {
  await api("POST", "/api/me/signout-everywhere");
  notice(t("me.signed_out_all"));
});

$("#more-games").addEventListener("click", () => loadGames(true));

setupLanguageSwitch(() => render());

/** A league's pages need this browser's player (made on a first visit). */
async function currentThen(fn) {
  me = await api("GET", "/api/me");
  await fn();
}

// Another link opened in this same tab changes only the part after "#": no new page.
window.addEventListener("hashchange", () => {
  if (window.location.pathname === "/me/claim" && window.location.hash.length > 1) claim();
});

const leagueId = decodeURIComponent(path.slice("/leagues/".length));
const playerId = decodeURIComponent(path.slice("/players/".length));
if (path === "/me/claim") {
  render = () => ($("#claim-result").textContent = claimText());
} else if (path === "/leagues/join") {
  render = () => {
    $("#league-title").textContent = t("league.title");
    $("#league-message").textContent = joinText();
  };
} else if (path.startsWith("/leagues/")) {
  render = () => currentThen(() => leaguePage(leagueId, (g) => finishedItem(g, me && me.id)));
} else if (path.startsWith("/players/")) {
  render = () => publicPage(playerId);
} else {
  render = () => {
    claimBox();
    // The server gone mid-load (a restart, no network): said on the page, not thrown away.
    return profile().catch((e) => notice(e instanceof ApiError ? e.message : String(e.message || e)));
  };
}

if (path === "/me/claim") claim();
else if (path === "/leagues/join") currentThen(joinLeague);
else render();
