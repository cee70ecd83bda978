// When a bot plays for this browser's seat, the page says so and offers to take the seat
// back; when the seat has just been given back, it says that too.

import { h, $, fill, api, ApiError } from "../common.js";
import { t } from "../i18n.js";
import { state, subscribe, update, mySeat, playerInfo, isOver } from "../store.js";

const SHOW_BACK_MS = 10000;

function render() {
  const box = $("#standin-note");
  if (!box) return;
  const me = mySeat();
  const info = me === null ? null : playerInfo(me);
  if (info && info.stand_in && !isOver()) {
    const error = h("span", { class: "form-error", role: "alert", hidden: true });
    const button = h("button", {
      type: "button", class: "btn small primary", dataset: { takeBack: "1" },
      onclick: async () => {
        button.disabled = true;
        try {
          await api("DELETE", `/api/tables/${encodeURIComponent(state.tableId)}/seats/${me}/standin`, { token: state.seat.token });
        } catch (e) {
          error.textContent = e instanceof ApiError ? e.message : String(e);
          error.hidden = false;
          button.disabled = false;
        }
      },
    }, t("table.take_back"));
    box.hidden = false;
    box.dataset.state = "stand-in";
    return fill(box, h("span", {}, t("table.you_stand_in")), button, error);
  }
  if (state.seatBack && Date.now() - state.seatBack < SHOW_BACK_MS) {
    box.hidden = false;
    box.dataset.state = "back";
    return fill(box, h("span", {}, t("table.seat_back")));
  }
  box.hidden = true;
  fill(box);
}

export function mount() {
  subscribe((changed) => {
    if (changed.has("seatBack") && state.seatBack) {
      window.setTimeout(() => update({ seatBack: null }), SHOW_BACK_MS);
    }
    if (["table", "hello", "seatBack", "view"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
