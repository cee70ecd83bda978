// The replay page: a finished game version by version as a spectator saw it, from
// GET /api/games/{id}/replay, drawn by the table's own panels (seats, auction, log) through the
// store; and the proof of the shuffle: the browser hashes the revealed seed itself (WebCrypto)
// and compares it with the commitment published at the start.

import { h, $, fill, api, setupLanguageSwitch, setText, plain, tableTitle } from "./common.js";
import { t } from "./i18n.js";
import { eventSentence } from "./events.js";
import { state, update, subscribe, refreshAll, nameOf, latestReveal } from "./store.js";
import * as seats from "./panels/seats.js";
import * as auction from "./panels/auction.js";
import * as log from "./panels/log.js";
import { mountAfterGame } from "./analysis.js";
import { sha256Hex } from "./sha256.js";
import { linkCards } from "./popover.js";

let replay = null;
let logs = []; // logs[i]: every public event up to version i
let reveals = []; // reveals[i]: the last reveal seen at version i (kept across turns)

/** The same text the engine hashed: sha256("dragonstones:<seed>"), in hex (engine/rng.py). */
export async function commitmentOf(seed) {
  // sha256.js where WebCrypto is absent (plain http on a home network is not a secure context).
  return sha256Hex(new TextEncoder().encode(`dragonstones:${seed}`));
}

async function checkSeed() {
  const status = $("#proof-status");
  const seed = $("#seed-input").value.trim();
  const ok = (await commitmentOf(seed)) === replay.seed_commitment;
  if (seed !== $("#seed-input").value.trim()) return; // typed on meanwhile: a newer check runs
  status.dataset.verified = ok ? "yes" : "no";
  status.textContent = (ok ? "✓ " : "✗ ") + t(ok ? "replay.verified" : "replay.mismatch");
}

function show(i) {
  const n = replay.versions.length - 1;
  const index = Math.max(0, Math.min(n, i));
  const v = replay.versions[index];
  $("#version-slider").value = String(index);
  update({ version: v.version, view: v.view, prompts: v.prompts, log: logs[index], lastReveal: reveals[index] });
}

function renderStep() {
  if (!replay) return;
  const index = Number($("#version-slider").value);
  const v = replay.versions[index];
  $("#main").dataset.version = String(v.version);
  $("#version-label").textContent = t("replay.step", { v: index, n: replay.versions.length - 1 });
  const events = v.events; // a step by step replay shows who bid too
  fill($("#step-events"), index === 0 && !events.length ? h("li", {}, t("replay.start"))
    : events.map((e) => linkCards(h("li", { dataset: { type: e.type } }, eventSentence(e, nameOf)))));
  $("#first-step").disabled = $("#prev-step").disabled = index === 0;
  $("#next-step").disabled = $("#last-step").disabled = index === replay.versions.length - 1;
  const winner = v.view.winner;
  setText($("#turn-indicator"), winner !== null && winner !== undefined
    ? t("end.winner", { name: nameOf(winner) }) : t("table.turn", { n: v.view.turn }));
  const title = tableTitle(state.table, state.tableId);
  setText($("#replay-title"), t("replay.heading", { table: title }));
  document.title = plain(`${t("replay.title")} — ${title} — Dragonstones`);
}

function wire() {
  const slider = $("#version-slider");
  const at = () => Number(slider.value);
  slider.addEventListener("input", () => show(at()));
  $("#first-step").addEventListener("click", () => show(0));
  $("#prev-step").addEventListener("click", () => show(at() - 1));
  $("#next-step").addEventListener("click", () => show(at() + 1));
  $("#last-step").addEventListener("click", () => show(replay.versions.length - 1));
  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLElement && ev.target.matches("input:not([type=range]), textarea")) return;
    if (ev.key === "ArrowLeft" && ev.target !== slider) show(at() - 1);
    else if (ev.key === "ArrowRight" && ev.target !== slider) show(at() + 1);
    else if (ev.key === "Home") show(0);
    else if (ev.key === "End") show(replay.versions.length - 1);
  });
  $("#seed-input").addEventListener("input", checkSeed);
}

async function boot() {
  setupLanguageSwitch(refreshAll);
  for (const panel of [seats, auction, log]) panel.mount();
  subscribe(renderStep);
  const gameId = state.tableId; // the path's id: /replay/{game_id}
  try {
    replay = await api("GET", `/api/games/${encodeURIComponent(gameId)}/replay`);
  } catch {
    $("#loading-view").hidden = true;
    $("#notfound-view").hidden = false;
    return;
  }
  // Everyone is shown as the record names them; nobody is "you" here.
  const players = replay.players.map((p) => ({ ...p, connected: true }));
  update({ watchOnly: true, gameId: replay.id, table: { id: replay.table_id, seats: replay.seats, players, status: "over" } });
  let acc = [];
  let last = null;
  for (const v of replay.versions) {
    acc = acc.concat(v.events);
    logs.push(acc);
    last = latestReveal(v.view, acc) || last;
    reveals.push(last);
  }
  const slider = $("#version-slider");
  slider.max = String(replay.versions.length - 1);
  $("#commitment").value = replay.seed_commitment;
  $("#seed-input").value = replay.seed;
  wire();
  $("#loading-view").hidden = true;
  $("#replay-view").hidden = false;
  show(0);
  checkSeed();
  mountAfterGame(replay.id, replay.seats, (version) => show(replay.versions.findIndex((v) => v.version === version)));
}

boot();
