// The player this browser is signed in as (the server keeps it in an HttpOnly cookie, which no
// script reads): the lobby's name kept with the player, a seat linked to the player when it is
// taken, and a seat taken back on another device. A first visit makes the player (GET /api/me).

import { $, h, fill, api, saveName } from "./common.js";
import { t } from "./i18n.js";

let me = null;

/** This browser's player: {id, name, notice}; a first visit makes one. null when unreachable. */
export async function currentPlayer() {
  if (me) return me;
  try {
    me = await api("GET", "/api/me");
  } catch {
    me = null;
  }
  return me;
}

/** Show how many games wait for this player: the badges on the page, the page's title, and the
 *  installed app's icon where the browser has one (navigator.setAppBadge). */
export function showAwaiting(count) {
  for (const el of document.querySelectorAll("[data-awaiting-badge]")) {
    // The number for the eye, the sentence for a screen reader.
    const said = t("me.awaiting", { n: count });
    fill(el, h("span", { "aria-hidden": "true" }, String(count)), h("span", { class: "sr-only" }, said));
    el.title = said;
    el.hidden = !count;
  }
  const plain = document.title.replace(/^\(\d+\) /, "");
  document.title = count ? `(${count}) ${plain}` : plain;
  if (count && navigator.setAppBadge) navigator.setAppBadge(count).catch(() => {});
  else if (!count && navigator.clearAppBadge) navigator.clearAppBadge().catch(() => {});
}

/** Ask the server how many games wait for this player (the lobby's link shows it). */
export async function refreshAwaiting() {
  if (!(await currentPlayer())) return;
  try {
    const games = await api("GET", "/api/me/games?limit=1");
    showAwaiting(games.awaiting || 0);
  } catch {
    // Not signed in any more, or the server is away: no badge rather than an error.
  }
}

/** The lobby's name field starts from the player's name, chosen once, kept on the server. */
export async function syncLobbyName() {
  const input = $("#player-name");
  const player = await currentPlayer();
  if (player && player.notice === "new_player" && input) {
    // Signed out elsewhere, or a cookie that was not ours: say so rather than fail.
    input.closest("section").append(h("p", { class: "hint", role: "status" }, t("me.new_player")));
  }
  if (input && player && player.name && !input.value.trim()) {
    input.value = player.name;
    saveName(player.name);
  }
}

/** A seat this browser just took is the player's too: their other devices can take it back.
 *  The name the table accepted becomes the player's. */
export async function linkSeat(tableId, token, name) {
  const player = await currentPlayer();
  if (!player) return;
  try {
    await api("POST", "/api/me/seats", { body: { table_id: tableId, token } });
    if (name && name !== player.name) me = await api("PATCH", "/api/me", { body: { name } });
  } catch {
    /* offline, or the seat is another player's: it stays this browser's alone */
  }
}

/** The player's seat at this table, with a token for this browser; null when they hold none. */
export async function seatBack(tableId) {
  if (!(await currentPlayer())) return null;
  try {
    const out = await api("POST", `/api/me/tables/${encodeURIComponent(tableId)}/seat`);
    return out ? { seat: out.seat, token: out.token, name: me.name || "" } : null;
  } catch {
    return null;
  }
}
