// Friends' leagues on the players' page (static/me.html): my leagues and a new one (/me), a
// league's page (/leagues/<id>: invite link, a table for the league, standings, head-to-head,
// last games) and joining by an invite link (/leagues/join#<code>).

import { $, h, fill, api, ApiError, saveSeat } from "./common.js";
import { t } from "./i18n.js";

function message(text) {
  $("#league-message").textContent = text;
}

// Why joining failed, said again in another language (the link is not tried a second time).
let joinError = null;

export function joinText() {
  return joinError ? errorText(joinError) : "";
}

function errorText(e) {
  if (!(e instanceof ApiError)) return String(e.message || e);
  const key = `league.${e.code}`;
  return t(key) !== key ? t(key) : e.message;
}

export async function myLeagues() {
  $("#leagues-view").hidden = false;
  const leagues = await api("GET", "/api/leagues");
  fill(
    $("#my-leagues"),
    leagues.length
      ? leagues.map((l) => h("li", {}, h("a", { href: `/leagues/${encodeURIComponent(l.id)}` }, l.name)))
      : h("li", { class: "hint" }, t("league.none")),
  );
}

$("#league-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = $("#league-error");
  try {
    const league = await api("POST", "/api/leagues", { body: { name: $("#league-name").value } });
    window.location.assign(`/leagues/${encodeURIComponent(league.id)}`);
  } catch (e) {
    error.textContent = errorText(e);
    error.hidden = false;
  }
});

function standing(s) {
  const name = s.key.startsWith("bot:") ? t("league.bot", { kind: s.key.slice(4) }) : s.name || "?";
  const who = s.key.startsWith("bot:") ? name : h("a", { href: `/players/${encodeURIComponent(s.key)}` }, name);
  return h("li", {}, who, " — ", t("me.rating", { shown: s.rating.shown.toFixed(1), sigma: s.rating.sigma.toFixed(1), n: s.rating.games, wins: s.rating.wins }));
}

export async function leaguePage(id, renderGame) {
  $("#league-view").hidden = false;
  try {
    const page = await api("GET", `/api/leagues/${encodeURIComponent(id)}`);
    $("#league-title").textContent = page.league.name;
    $("#league-invite").value = new URL(page.league.invite_path, window.location.origin).href;
    const names = Object.fromEntries(page.members.map((m) => [m.id, m.name || "?"]));
    fill($("#league-standings"), page.standings.length ? page.standings.map(standing) : h("li", { class: "hint" }, t("league.no_games")));
    fill(
      $("#league-pairs"),
      page.head_to_head.length
        ? page.head_to_head.map((p) => h("li", {}, t("league.pair", { a: names[p.a], b: names[p.b], n: p.games, a_ahead: p.a_ahead, b_ahead: p.b_ahead })))
        : h("li", { class: "hint" }, t("league.no_games")),
    );
    fill($("#league-games"), page.games.map((g) => renderGame(g)));
    $("#league-body").hidden = false;
    $("#league-table").onclick = async () => {
      const table = await api("POST", `/api/leagues/${encodeURIComponent(id)}/tables`, { body: { seats: 4 } });
      saveSeat(table.id, null);
      window.location.assign(`/t/${encodeURIComponent(table.id)}`);
    };
  } catch (e) {
    $("#league-title").textContent = t("league.title");
    message(errorText(e));
  }
}

export async function joinLeague() {
  $("#league-view").hidden = false;
  $("#league-title").textContent = t("league.title");
  const code = window.location.hash.slice(1);
  try {
    const league = await api("POST", "/api/me/leagues", { body: { code } });
    window.location.replace(`/leagues/${encodeURIComponent(league.id)}`);
  } catch (e) {
    joinError = e;
    message(errorText(e));
  }
}
