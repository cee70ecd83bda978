// "Learn to play": a real table (the real engine and server) for the newcomer and two easy bots,
// without time limits, dealt the tutorial's fixed game (app/lobby/tutorial.py), started at once;
// the table page then shows a hint at each step (panels/hints.js) until the game ends. The table is remembered like any other: leave it and come
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

/** The server opens the tutorial's table (its fixed deal, two easy bots, started); go there. */
export async function startLearning(name) {
  const seat = await api("POST", "/api/learn", { body: { name } });
  const id = encodeURIComponent(seat.table_id);
  saveSeat(seat.table_id, { seat: seat.seat, token: seat.token, name });
  try {
    window.localStorage.setItem(KEY + seat.table_id, "1");
  } catch {
    /* storage disabled: the game is played without hints */
  }
  window.location.assign(`/t/${id}`);
}
