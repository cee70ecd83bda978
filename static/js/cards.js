// Visual pieces shared by the pages: character cards, coins and stones as tokens.

import { h } from "./common.js";
import { t } from "./i18n.js";
import { CHARACTERS, charName, charText, charGlyph } from "./characters.js";
import "./popover.js";

const STANDARD = new Set([
  "witch", "red_dragon", "blue_dragon", "yellow_dragon", "magician", "wizard", "sorcerer", "thief",
]);

/** A character card. size: "big" (the card under auction), "small" (lists), "mini". With `help`
 *  (the default) it is focusable and shows its power in the card-help popover (popover.js); a card
 *  inside a button or a hidden decoration leaves that to its container. */
export function cardEl(id, { size = "small", extra = null, label = null, help = true } = {}) {
  const special = !STANDARD.has(id);
  const colour = (CHARACTERS[id] && CHARACTERS[id].colour) || "";
  return h(
    "div",
    {
      class: `card ${size} ${special ? "special" : "standard"} ${colour ? "tint-" + colour : ""}`,
      dataset: help ? { character: id, cardHelp: id } : { character: id },
      tabindex: help ? "0" : null,
      role: "img",
      // The name and the power: the card's text is inside a picture for assistive technology.
      "aria-label": label || [charName(id), charText(id)].filter(Boolean).join(": "),
    },
    h("div", { class: `card-name ${charName(id).length > (size === "mini" ? 8 : 11) ? "long" : ""}` }, charName(id)),
    h("div", { class: "card-art", "aria-hidden": "true" }, h("span", { class: "glyph" }, charGlyph(id))),
    size === "mini" ? null : h("div", { class: "card-text" }, charText(id)),
    extra,
  );
}

/** A pile of coin tokens with a count, e.g. coinStack("fairy_gold", 5). */
export function coinStack(kind, count, { label = null, privateField = false } = {}) {
  const shown = Math.min(count, 6);
  const tokens = [];
  for (let i = 0; i < shown; i++) tokens.push(h("i", { class: `coin ${kind}`, style: { "--i": i } }));
  const name = label || t(`coin.${kind}`);
  return h(
    "div",
    {
      class: `coin-stack ${count === 0 ? "empty" : ""}`,
      dataset: privateField ? { coin: kind, private: "1" } : { coin: kind },
      title: name,
    },
    h("span", { class: "tokens", "aria-hidden": "true" }, tokens.length ? tokens : h("i", { class: `coin ${kind} ghost` })),
    h("span", { class: "count" }, String(count)),
    h("span", { class: "coin-name" }, name),
  );
}

/** Stones by colour as coloured gems: {red, blue, yellow}. */
export function stonesEl(stones, { compact = false } = {}) {
  const parts = [];
  for (const colour of ["red", "blue", "yellow"]) {
    const n = (stones && stones[colour]) || 0;
    const gems = [];
    for (let i = 0; i < Math.min(n, compact ? 4 : 12); i++) gems.push(h("i", { class: `gem ${colour}` }));
    // None of a colour still shows its gem, faded, so a bare "0" never stands alone.
    if (!n) gems.push(h("i", { class: `gem ${colour} ghost` }));
    parts.push(
      h(
        "span",
        {
          class: `stone-group ${n === 0 ? "none" : ""}`,
          dataset: { colour },
          title: `${n} ${t("stone." + colour)}`,
        },
        h("span", { class: "gems", "aria-hidden": "true" }, gems),
        h("span", { class: "count" }, String(n)),
        h("span", { class: "sr-only" }, t("stone." + colour)),
      ),
    );
  }
  return h("div", { class: "stones" }, parts);
}

/** Just the gems, in one row, for a handful of stones (e.g. the stones an option pays). */
export function gemRow(stones) {
  const gems = [];
  for (const colour of ["red", "blue", "yellow"]) {
    const n = (stones && stones[colour]) || 0;
    for (let i = 0; i < Math.min(n, 12); i++) gems.push(h("i", { class: `gem ${colour}` }));
  }
  return h("span", { class: "gem-row", "aria-hidden": "true" }, gems.length ? gems : "–");
}
