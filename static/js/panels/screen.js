// Behind your screen: this seat's coins. While a sealed bid or tie-break is in, it shows what is
// committed ("in your fist") and what remains; spectators get no such field on the page at all.

import { h, $, fill } from "../common.js";
import { t } from "../i18n.js";
import { coinStack } from "../cards.js";
import { describeBid } from "../events.js";
import { state, subscribe, mySeat } from "../store.js";

const KINDS = ["fairy_gold", "common_gold", "silver", "amulets", "black_magic"];

/** The coins a sealed bid or tie-break holds, by the screen's coin names. */
function committed(me, phase) {
  const out = { fairy_gold: 0, common_gold: 0, silver: 0, amulets: 0, black_magic: 0 };
  const bid = phase === "bid" ? me.bid : null;
  const tb = phase === "tiebreak" ? me.tiebreak : null;
  if (bid) {
    out.fairy_gold = bid.fairy_gold;
    out.common_gold = bid.common_gold;
    out.amulets = bid.amulet ? 1 : 0;
    out.black_magic = bid.black_magic ? 1 : 0;
  }
  if (tb) {
    out.silver = tb.silver;
    out.amulets = tb.amulet ? 1 : 0;
  }
  return { coins: out, what: bid || tb };
}

function render() {
  const area = $("#me-area");
  const me = state.view && state.view.me;
  if (!me || mySeat() === null) {
    area.hidden = true;
    fill(area);
    return;
  }
  area.hidden = false;
  const { coins, what } = committed(me, state.view.phase);
  const left = (kind) => Math.max(0, me.coins[kind] - coins[kind]);
  fill(area,
    h("h2", {}, t("table.my_screen")),
    h("p", { class: "hint" }, t("table.my_screen_hint")),
    what ? h("p", { class: "in-fist", dataset: { committed: "1" } }, t("table.in_fist", { what: describeBid(what) })) : null,
    what ? h("p", { class: "hint" }, t("table.left_behind")) : null,
    h("div", { class: "me-coins", id: "my-coins" },
      KINDS.map((kind) => coinStack(kind, left(kind), { privateField: true }))));
}

export function mount() {
  subscribe((changed) => {
    if (["view", "hello", "seat"].some((k) => changed.has(k)) || changed.size === 0) render();
  });
}
