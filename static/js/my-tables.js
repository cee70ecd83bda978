// "Your tables" in the lobby: the tables this browser holds a seat at (the seats it saved), as
// the server describes them, each with the way back to its game or to its replay, and forgetting
// them, one or every finished one.

import { h, $, api, saveSeat, ApiError, tableTitle } from "./common.js";
import { t, getLang } from "./i18n.js";

// Tables this browser holds a seat at, as the server last described them (undefined: not asked
// yet, null: the table is gone).
const myTables = new Map();

function savedTableIds() {
  const ids = [];
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      const key = window.localStorage.key(i);
      if (key && key.startsWith("dragonstones.seat.")) ids.push(key.slice("dragonstones.seat.".length));
    }
  } catch {
    /* storage disabled */
  }
  return ids;
}

export async function loadMyTables() {
  await Promise.all(savedTableIds().map(async (id) => {
    try {
      myTables.set(id, await api("GET", `/api/tables/${encodeURIComponent(id)}`));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) myTables.set(id, null);
    }
  }));
  renderMyTables();
}

function forget(ids) {
  for (const id of ids) {
    saveSeat(id, null);
    myTables.delete(id);
  }
  renderMyTables();
}

export function renderMyTables() {
  // A way back to a game in progress, and to the replay of a finished one.
  const ids = savedTableIds();
  const panel = $("#my-tables-panel");
  const list = $("#my-tables");
  list.replaceChildren();
  panel.hidden = ids.length === 0;
  const rows = ids.map((id) => ({ id, table: myTables.get(id) }))
    .sort((a, b) => String(b.table?.created_at ?? "").localeCompare(String(a.table?.created_at ?? "")));
  const date = new Intl.DateTimeFormat(getLang(), { dateStyle: "medium", timeStyle: "short" });
  for (const { id, table } of rows) {
    const status = table === null ? "gone" : table ? table.status : null;
    const name = tableTitle(table, id);
    list.append(h("li", { class: "table-row", dataset: { tableId: id, status: status || "" } },
      h("div", { class: "table-info" },
        h("strong", {}, name),
        status ? h("span", { class: `tag status-${status}` }, t(`lobby.status_${status}`)) : null,
        table ? h("span", { class: "muted" }, date.format(new Date(table.created_at))) : null),
      h("div", { class: "row-actions" },
        status === "over" && table.game_id
          ? h("a", { class: "btn primary", href: `/replay/${encodeURIComponent(table.game_id)}` }, t("lobby.replay"))
          : status !== "gone" && status !== "closed" ? h("a", { class: "btn", href: `/t/${encodeURIComponent(id)}` }, t("lobby.rejoin")) : null,
        h("button", {
          type: "button", class: "btn subtle", dataset: { forget: id }, "aria-label": t("lobby.forget_table", { name }),
          onclick: () => forget([id]),
        }, t("lobby.forget")))));
  }
  const finished = rows.filter((r) => r.table === null || (r.table && (r.table.status === "over" || r.table.status === "closed"))).map((r) => r.id);
  const clear = $("#clear-finished");
  clear.hidden = finished.length === 0;
  clear.onclick = () => forget(finished);
}
