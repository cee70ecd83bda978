// "Learn to play": a real table (the real engine and server) for the newcomer and two easy bots,
// without time limits, started at once; the table page then shows a hint at each step
// (panels/hints.js) until the game ends. The table is remembered like any other: leave it and come
// back from "Your tables" to resume.

import { api, saveSeat } from "./common.js";

const KEY = "dragonstones.learn.";

/** Whether this table is a "learn to play" table of this browser. */
export function isLearning(tableId) {
  try {
    return window.localStorage.getItem(KEY + tableId) === "1";
  } catch {
    return false;
  }
}

/** Stop showing the hints at this table. */
export function stopLearning(tableId) {
  try {
    window.localStorage.removeItem(KEY + tableId);
  } catch {
    /* storage disabled: the hints go with the page */
  }
}

/** Open the table, sit, add the bots, start, and go there. */
export async function startLearning(name) {
  const table = await api("POST", "/api/tables", {
    body: { seats: 3, public: false, turn_seconds: null, choose_seconds: null },
  });
  const id = encodeURIComponent(table.id);
  const seat = await api("POST", `/api/tables/${id}/join`, { body: { name } });
  saveSeat(table.id, { seat: seat.seat, token: seat.token, name });
  await api("POST", `/api/tables/${id}/bots`, { body: { count: 2, kind: "random" }, token: seat.token });
  await api("POST", `/api/tables/${id}/start`, { token: seat.token });
  try {
    window.localStorage.setItem(KEY + table.id, "1");
  } catch {
    /* storage disabled: the game is played without hints */
  }
  window.location.assign(`/t/${id}`);
}
