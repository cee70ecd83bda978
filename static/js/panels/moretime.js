// "+30 s" (WCAG 2.2.1 Timing Adjustable): beside the countdown, a seated player asks for more time
// for the open decision, theirs or another player's, a few times a game (the server counts and
// refuses more: `no_more_time`). Everyone sees the clock move and, in the log, who asked.

import { h, $ } from "../common.js";
import { t } from "../i18n.js";
import { state, subscribe, mySeat, isOver } from "../store.js";
import { sendMoreTime } from "../socket.js";

const KIND = "time_added";

/** What this seat's own notices say: how many requests it has left (null: none asked yet). */
function left() {
  const seat = mySeat();
  const mine = state.notices.filter((n) => n.kind === KIND && n.seat === seat && n.data);
  if (state.moreTimeError === "no_more_time") return 0;
  return mine.length ? Math.min(...mine.map((n) => Number(n.data.left))) : null;
}

function seconds() {
  const any = state.notices.find((n) => n.kind === KIND && n.data && n.data.seconds);
  return any ? Number(any.data.seconds) : 30;
}

function render() {
  const button = $("#more-time");
  if (!button) return;
  const n = left();
  const shown = mySeat() !== null && state.deadline !== null && Boolean(state.view) && !isOver() && n !== 0;
  button.hidden = !shown;
  if (!shown) return;
  button.textContent = t("time.more", { s: seconds() });
  const label = n === null ? t("time.more_label", { s: seconds() }) : t("time.more_left", { s: seconds(), n });
  button.setAttribute("aria-label", label);
  button.title = label;
}

export function mount() {
  const countdown = $("#countdown");
  if (!countdown || $("#more-time")) return;
  countdown.after(h("button", {
    type: "button", class: "btn small more-time", id: "more-time", hidden: true,
    onclick: () => sendMoreTime(),
  }, "+30 s"));
  subscribe((changed) => {
    if (["deadline", "view", "notices", "moreTimeError", "hello", "table"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
  render();
}
