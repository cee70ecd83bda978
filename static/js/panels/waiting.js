// Before the game: the join form (an invite link in a fresh browser), the notice that a game has
// already started (with the way to watch it), and the waiting room (seats, invite and spectator
// links, bots, start, leave).

import { h, $, fill, api, ApiError, savedName, saveName, saveSeat, copyText, absoluteUrl, formatSeconds, iso, setText, tableTitle } from "../common.js";
import { t, getLang, listNames } from "../i18n.js";
import { state, subscribe, update, mySeat, playerInfo } from "../store.js";
import { connect, stop } from "../socket.js";

const tablePath = () => `/api/tables/${encodeURIComponent(state.tableId)}`;

/** The table's time limits and stand-ins in one sentence (waiting room, join page). */
export function limitsText(table) {
  const grace = formatSeconds(table.grace_seconds || 0);
  if (!table.turn_seconds && !table.choose_seconds) return t("table.no_limits", { grace });
  return [
    table.turn_seconds ? t("table.timer", { t: formatSeconds(table.turn_seconds) }) : "",
    table.choose_seconds ? t("table.choose_timer", { t: formatSeconds(table.choose_seconds) }) : "",
    t("table.grace", { grace }),
  ].filter(Boolean).join(" ");
}

function renderJoin() {
  const table = state.table;
  // The table's name, its host, who sits there and its settings; not a raw id.
  $("#join-title").textContent = table ? `${t("table.join_title")} — ` : t("table.join_title");
  if (table) $("#join-title").append(...h("span", {}, tableTitle(table, state.tableId)).childNodes);
  const info = $("#join-table-info");
  if (table) {
    const host = (table.players || []).find((p) => p.seat === table.host && !p.bot);
    const people = (table.players || []).map((p) => iso(p.name));
    fill(info,
      h("span", { class: "join-host" }, host
        ? t("table.join_info", { host: iso(host.name), taken: table.taken, seats: table.seats })
        : t("table.join_nobody", { taken: table.taken, seats: table.seats })),
      people.length ? h("span", { class: "join-seated" }, t("table.join_seated", { names: listNames(people) })) : null,
      h("span", { class: "join-limits" }, limitsText(table)));
  } else {
    fill(info);
  }
  $("#join-watch").href = `/t/${encodeURIComponent(state.tableId)}?watch=1`;
  const full = table && table.taken >= table.seats;
  $("#join-button").disabled = Boolean(full);
  const err = $("#join-error");
  if (full) {
    err.textContent = t("table.full");
    err.hidden = false;
  }
}

function renderStarted() {
  const table = state.table;
  const over = table && table.status === "over";
  $("#started-text").textContent = over ? t("table.started_over") : t("table.started");
  $("#started-watch").href = `/t/${encodeURIComponent(state.tableId)}?watch=1`;
  const replay = $("#started-replay");
  replay.hidden = !(over && table.game_id);
  if (over && table.game_id) replay.href = `/replay/${encodeURIComponent(table.game_id)}`;
  // Its players opened a new table to play again: point there.
  let again = $("#started-rematch");
  if (table && table.rematch_id) {
    if (!again) {
      again = h("a", { class: "btn", id: "started-rematch" });
      replay.after(again);
    }
    again.href = table.rematch_path || `/t/${encodeURIComponent(table.rematch_id)}`;
    again.textContent = t("end.again_go");
  } else if (again) {
    again.remove();
  }
}

/** The host's × beside a seat: a bot leaves, a person is removed (their token stops working),
 *  once the host confirms. */
function removeButton(p) {
  const path = p.bot ? `${tablePath()}/bots/${p.seat}` : `${tablePath()}/seats/${p.seat}`;
  return h("button", {
    type: "button", class: "btn subtle remove-seat", dataset: { remove: p.seat },
    "aria-label": t("table.remove_seat", { name: p.name }), title: t("table.remove_seat", { name: p.name }),
    onclick: (ev) => {
      if (!p.bot && !window.confirm(t("table.confirm_remove", { name: p.name }))) return;
      waitingAction(ev.currentTarget, () => api("DELETE", path, { token: state.seat.token }));
    },
  }, "×");
}

function presenceTitle(p) {
  if (p.connected || p.bot) return t("table.connected");
  if (!p.away_since) return t("table.disconnected");
  const time = new Intl.DateTimeFormat(getLang(), { timeStyle: "short" }).format(new Date(p.away_since));
  return `${t("table.disconnected")} (${t("table.away_since", { time })})`;
}

/** Show a limit in its select, adding it when the table has one the list lacks (set
 *  through the API), so that saving the other settings keeps it. */
function setSeconds(select, seconds) {
  const value = seconds ? String(seconds) : "";
  if (value && ![...select.options].some((o) => o.value === value)) {
    select.append(h("option", { value }, formatSeconds(seconds)));
  }
  select.value = value;
}

/** Who hosts; the host's buttons and settings, the others' "waiting for <host>". */
function renderHost(table, me) {
  const host = table.host === null || table.host === undefined ? null : playerInfo(table.host);
  const iHost = me !== null && table.host === me;
  const hint = $("#host-hint");
  hint.hidden = !host;
  if (host) {
    setText(hint, iHost ? t("table.you_host")
      : me !== null ? t("table.waiting_host", { name: iso(host.name) }) : t("table.hosted_by", { name: iso(host.name) }));
  }
  $("#add-bot").hidden = !iHost;
  $("#bot-kind").hidden = !iHost; // easy / normal / hard
  $("#start-game").hidden = !iHost;
  const settings = $("#table-settings");
  settings.hidden = !iHost;
  if (iHost && !settings.open) {
    $("#settings-public").checked = Boolean(table.public);
    setSeconds($("#settings-timer"), table.turn_seconds);
    setSeconds($("#settings-choose-timer"), table.choose_seconds);
    $("#settings-stand-in").value = table.stand_in_kind === "hard" ? "hard" : "heuristic";
  }
  return iHost;
}

function renderWaiting() {
  const table = state.table;
  if (!table) return;
  const me = mySeat();
  const iHost = me !== null && table.host === me;
  fill($("#waiting-seats"), Array.from({ length: table.seats }, (_, seat) => {
    const p = playerInfo(seat);
    if (!p) return h("li", { class: "empty" }, t("table.empty_seat"));
    return h("li", { dataset: { seat } },
      h("span", { class: `presence ${p.connected || p.bot ? "on" : ""}`, title: presenceTitle(p) }),
      h("strong", { class: "name", title: p.name }, iso(p.name)),
      p.bot ? h("span", { class: "tag" }, t("table.bot")) : null,
      p.bot && p.bot_kind ? h("span", { class: "bot-kind" }, t(`table.bot_kind.${p.bot_kind}`)) : null,
      seat === table.host ? h("span", { class: "tag host-tag" }, t("table.host")) : null,
      seat === me ? h("span", { class: "tag" }, t("table.you")) : null,
      iHost && seat !== me ? removeButton(p) : null);
  }));
  renderHost(table, me);
  // PUBLIC_URL, when the server has one, is the address friends can reach (a proxy, a tunnel).
  $("#invite-link").value = table.invite_url || absoluteUrl(table.invite_path || `/t/${state.tableId}`);
  $("#watch-link").value = table.watch_url || absoluteUrl(table.watch_path || `/t/${state.tableId}?watch=1`);
  localOnlyNote($("#invite-link").value);
  // A spectator of a full table has nobody to invite: only the spectator link.
  $("#invite-link").closest(".field").hidden = me === null && table.taken >= table.seats;
  const seated = me !== null;
  const full = table.taken >= table.seats;
  $("#waiting-actions").hidden = !seated;
  $("#add-bot").disabled = full;
  $("#bot-kind").disabled = full;
  $("#start-game").disabled = !full;
  $("#start-hint").hidden = !iHost || full;
  const timerHint = $("#timer-hint");
  timerHint.hidden = false; // the time limits (or their absence) are always said
  timerHint.textContent = limitsText(table);
  $("#waiting-spectator").hidden = seated;
}

async function join(ev) {
  ev.preventDefault();
  const name = $("#join-name").value.trim();
  const err = $("#join-error");
  if (!name) {
    err.textContent = t("lobby.need_name");
    err.hidden = false;
    return;
  }
  saveName(name);
  $("#join-button").disabled = true;
  try {
    const answer = await api("POST", `${tablePath()}/join`, { body: { name } });
    const seat = { seat: answer.seat, token: answer.token, name };
    saveSeat(state.tableId, seat);
    update({ seat, page: "waiting" });
    connect();
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : String(e);
    err.hidden = false;
    $("#join-button").disabled = false;
  }
}

async function waitingAction(button, fn) {
  const err = $("#waiting-error");
  err.hidden = true;
  button.disabled = true;
  try {
    const table = await fn();
    if (table && table.id) update({ table });
  } catch (e) {
    err.textContent = e instanceof ApiError ? e.message : String(e);
    err.hidden = false;
  } finally {
    renderWaiting();
  }
}

async function saveSettings(ev) {
  ev.preventDefault();
  const timer = $("#settings-timer").value;
  const body = { public: $("#settings-public").checked, turn_seconds: timer ? Number(timer) : null };
  const chooseTimer = $("#settings-choose-timer").value; // time for power decisions
  body.choose_seconds = chooseTimer ? Number(chooseTimer) : null;
  body.stand_in_kind = $("#settings-stand-in").value; // normal unless the host picks hard
  await waitingAction($("#settings-save"), () => api("PATCH", tablePath(), { body, token: state.seat.token }));
  $("#table-settings").open = false;
  renderWaiting();
}

/** Removed by the host, or the table closed: say so on the page instead of the table. */
function renderNotice() {
  const notice = state.notice;
  $("#notice-text").hidden = !notice;
  $("#notice-text").textContent = notice || "";
  $("#notfound-text").hidden = Boolean(notice);
}

function wireCopy(buttonSel, inputSel) {
  $(buttonSel).addEventListener("click", async (ev) => {
    const button = ev.currentTarget;
    const ok = await copyText($(inputSel).value, $(inputSel));
    if (ok) {
      button.textContent = t("table.copied");
      window.setTimeout(() => { button.textContent = t("table.copy"); }, 1500);
    }
  });
}

export function mount() {
  const joinName = $("#join-name");
  if (!joinName.value.trim()) joinName.value = savedName(); // keep what was typed before this ran
  $("#join-form").addEventListener("submit", join);
  // Disabled in the page until now: a click before this module ran (it waits for the card
  // catalogue) submitted the form natively, and the page reloaded without the name.
  $("#join-button").disabled = false;
  const token = () => state.seat.token;
  $("#add-bot").addEventListener("click", (ev) => waitingAction(ev.currentTarget, () =>
    api("POST", `${tablePath()}/bots`, { body: { count: 1, kind: $("#bot-kind").value }, token: token() })));
  $("#start-game").addEventListener("click", (ev) => waitingAction(ev.currentTarget, () =>
    api("POST", `${tablePath()}/start`, { token: token() })));
  $("#leave-table").addEventListener("click", (ev) => window.confirm(t("table.confirm_leave")) && waitingAction(ev.currentTarget, async () => {
    await api("POST", `${tablePath()}/leave`, { token: token() });
    saveSeat(state.tableId, null);
    stop();
    window.location.assign("/");
    return null;
  }));
  $("#settings-form").addEventListener("submit", saveSettings);
  wireCopy("#copy-invite", "#invite-link");
  wireCopy("#copy-watch", "#watch-link");
  if (typeof navigator.share === "function") {
    // Phones offer their own share sheet (messages, mail...): the easiest way to invite friends.
    const share = $("#share-invite");
    share.hidden = false;
    share.addEventListener("click", () => {
      navigator.share({ title: t("app.title"), text: t("table.share_text"), url: $("#invite-link").value })
        .catch(() => { /* the person closed the share sheet */ });
    });
  }
  subscribe((changed) => {
    if (changed.has("notice") || changed.size === 0) renderNotice();
    if (state.page === "join") renderJoin();
    else if (state.page === "started") renderStarted();
    else if (state.page === "waiting" && (changed.has("table") || changed.has("hello") || changed.has("page") || changed.size === 0)) renderWaiting();
  });
}

/** A link to this machine only (127.0.0.1, localhost) reaches nobody else: say so where the link
 *  is shown, with the one line that fixes it. */
function localOnlyNote(link) {
  let host = "";
  try {
    host = new URL(link).hostname;
  } catch {
    host = "";
  }
  const local = host === "localhost" || host === "[::1]" || host.startsWith("127.");
  let note = $("#local-only-note");
  if (!note) {
    note = h("p", { id: "local-only-note", class: "hint local-only" });
    $(".link-box").append(note);
  }
  note.hidden = !local;
  if (local) fill(note, t("table.local_only"), " ", h("code", {}, "--host 0.0.0.0"), " ", t("table.local_only_fix"));
}
