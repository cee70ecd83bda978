// The action panel: the sealed bid, the Silver tie-break, and any `choose` prompt. A choose prompt
// is always shown generically (its question and one button per option), so a new character needs
// no client change; colours, players, cards and stones get nicer buttons from the options' data.

import { h } from "./common.js";
import { t } from "./i18n.js";
import { charName, theCard, charText } from "./characters.js";
import { linkCards } from "./popover.js";
import { promptQuestion, optionLabel } from "./prompt-text.js";
import { cardEl, gemRow } from "./cards.js";
import { describeBid } from "./events.js";

/** A stepper: − [n] + for one kind of coin, limited to 0..max. */
function stepper(kind, labelText, max, onChange) {
  const id = `step-${kind}`;
  const input = h("input", {
    id, type: "number", inputmode: "numeric", min: "0", max: String(max), value: "0", step: "1",
    name: kind, dataset: { stepper: kind },
  });
  const pile = h("span", { class: "pile", "aria-hidden": "true" });
  const less = h("button", {
    type: "button", class: "step-btn", "aria-label": t("prompt.less", { coin: labelText }),
    dataset: { less: kind },
  }, "−");
  const more = h("button", {
    type: "button", class: "step-btn", "aria-label": t("prompt.more", { coin: labelText }),
    dataset: { more: kind },
  }, "+");
  const get = () => {
    const n = Math.floor(Number(input.value));
    return Number.isFinite(n) ? Math.max(0, Math.min(max, n)) : 0;
  };
  const set = (n) => {
    input.value = String(Math.max(0, Math.min(max, n)));
    refresh();
    onChange();
  };
  const refresh = () => {
    const n = get();
    // A button that disables itself under the keyboard's focus would drop the focus to the page,
    // where Enter no longer submits: the focus moves to the field instead.
    const stranded = (document.activeElement === more && n >= max) || (document.activeElement === less && n <= 0);
    less.disabled = n <= 0;
    more.disabled = n >= max;
    if (stranded) input.focus({ preventScroll: true });
    pile.replaceChildren(...Array.from({ length: Math.min(n, 8) }, () => h("i", { class: `coin ${kind}` })));
  };
  less.addEventListener("click", () => set(get() - 1));
  more.addEventListener("click", () => set(get() + 1));
  input.addEventListener("input", () => { refresh(); onChange(); });
  input.addEventListener("change", () => set(get()));
  refresh();
  const row = h("div", { class: "stepper", dataset: { kind } },
    h("i", { class: `coin ${kind}`, "aria-hidden": "true" }),
    h("span", { class: "stepper-label" }, h("label", { for: id }, labelText), pile),
    h("span", { class: "step-controls" }, less, input, more),
    h("span", { class: "of" }, t("prompt.of", { n: max })));
  return { row, get, set, clear: () => set(0) };
}

function toggle(kind, labelText, onChange) {
  const input = h("input", { type: "checkbox", name: kind, dataset: { toggle: kind } });
  input.addEventListener("change", onChange);
  const row = h("label", { class: "toggle" }, input, h("i", { class: `coin ${kind}`, "aria-hidden": "true" }), h("span", {}, labelText));
  return {
    row, get: () => input.checked,
    clear: () => { input.checked = false; onChange(); },
  };
}

/** The sealed bid form. send(action) sends it. */
export function bidPanel(prompt, send) {
  const max = prompt.max || {};
  const steppers = [];
  const toggles = {};
  const value = h("p", { class: "bid-value", "aria-live": "polite" });
  const update = () => {
    const fg = fairy ? fairy.get() : 0;
    const cg = common ? common.get() : 0;
    let v = fg + cg;
    if (toggles.amulet && toggles.amulet.get()) v *= 2;
    value.textContent = t("prompt.value", { n: v });
  };
  const fairy = stepper("fairy_gold", t("prompt.fairy_gold"), max.fairy_gold || 0, update);
  const common = stepper("common_gold", t("prompt.common_gold"), max.common_gold || 0, update);
  steppers.push(fairy.row, common.row);
  if (max.amulet) toggles.amulet = toggle("amulet", t("prompt.amulet"), update);
  if (max.black_magic) toggles.black_magic = toggle("black_magic", t("prompt.black_magic"), update);
  update();
  const submit = (empty) => send({
    type: "bid",
    fairy_gold: empty ? 0 : fairy.get(),
    common_gold: empty ? 0 : common.get(),
    amulet: empty ? false : Boolean(toggles.amulet && toggles.amulet.get()),
    black_magic: empty ? false : Boolean(toggles.black_magic && toggles.black_magic.get()),
  });
  const form = h("form", { class: "bid-form", dataset: { prompt: "bid", character: prompt.character } },
    h("div", { class: "bid-head" },
      // The card and its power here too: on a phone the card up for auction is off screen.
      h("div", { class: "bid-card" }, cardEl(prompt.character, { size: "mini" })),
      h("div", {},
        h("h2", {}, t("prompt.bid_title", { card: charName(prompt.character), the_card: theCard(prompt.character) })),
        h("p", { class: "bid-card-power", dataset: { cardHelp: prompt.character } }, charText(prompt.character)))),
    h("p", { class: "hint" }, t("prompt.bid_hint")),
    steppers,
    toggles.amulet ? toggles.amulet.row : null,
    toggles.black_magic ? toggles.black_magic.row : null,
    value,
    h("div", { class: "prompt-buttons" },
      h("button", { type: "submit", class: "btn primary big", dataset: { submitBid: "1" } }, t("prompt.submit")),
      h("button", { type: "button", class: "btn", dataset: { bidNothing: "1" }, onclick: () => submit(true) }, t("prompt.nothing"))),
    h("p", { class: "hint keys" }, t("prompt.keys_bid")));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); submit(false); });
  withKeys(form, [fairy, common, ...Object.values(toggles)]);
  return form;
}

/** Keys on a sealed form: Enter submits it from any field or stepper button, Escape clears it. */
function withKeys(form, parts) {
  form.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") {
      ev.preventDefault();
      for (const part of parts) part.clear();
    } else if (ev.key === "Enter" && !ev.target.matches("[type=submit], [data-bid-nothing]")) {
      ev.preventDefault();
      form.requestSubmit();
    }
  });
}

/** The Silver tie-break form. */
export function tiebreakPanel(prompt, send, tiedNames) {
  const max = prompt.max || {};
  const value = h("p", { class: "bid-value", "aria-live": "polite" });
  let amulet = null;
  const update = () => {
    let v = silver.get();
    if (amulet && amulet.get()) v *= 2;
    value.textContent = t("prompt.value", { n: v });
  };
  const silver = stepper("silver", t("prompt.silver"), max.silver || 0, update);
  if (max.amulet) amulet = toggle("amulet", t("prompt.amulet"), update);
  update();
  const form = h("form", { class: "bid-form tiebreak", dataset: { prompt: "tiebreak", character: prompt.character } },
    h("h2", {}, t("prompt.tiebreak_title", { card: charName(prompt.character), the_card: theCard(prompt.character) })),
    h("p", { class: "bid-card-power", dataset: { cardHelp: prompt.character } }, charText(prompt.character)),
    h("p", { class: "hint" }, t("prompt.tiebreak_hint")),
    tiedNames ? h("p", { class: "muted" }, t("prompt.tiebreak_others", { names: tiedNames })) : null,
    silver.row,
    amulet ? amulet.row : null,
    value,
    h("div", { class: "prompt-buttons" },
      h("button", { type: "submit", class: "btn primary big", dataset: { submitTiebreak: "1" } }, t("prompt.tiebreak_submit")),
      h("button", {
        type: "button", class: "btn", dataset: { bidNothing: "1" },
        onclick: () => send({ type: "tiebreak", silver: 0, amulet: false }),
      }, t("prompt.nothing"))),
    h("p", { class: "hint keys" }, t("prompt.keys_bid")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "tiebreak", silver: silver.get(), amulet: Boolean(amulet && amulet.get()) });
  });
  withKeys(form, amulet ? [silver, amulet] : [silver]);
  return form;
}

/** The decoration of an option button, from the option's data (none for unknown shapes). */
function optionArt(option, ctx) {
  if (typeof option.card === "string") return cardEl(option.card, { size: "mini", help: false });
  if (option.stones && typeof option.stones === "object") return gemRow(option.stones);
  if (typeof option.colour === "string") {
    return h("span", { class: "art", "aria-hidden": "true" },
      h("i", { class: `gem ${option.colour}` }),
      option.coin ? h("i", { class: `coin ${option.coin}` }) : null);
  }
  if (typeof option.seat === "number" && ctx.players) {
    const p = ctx.players[option.seat];
    return p ? gemRow(p.stones) : null;
  }
  return null;
}

/** A choose prompt: its question and one real button per option. */
export function choosePanel(prompt, send, ctx) {
  const options = Array.isArray(prompt.options) ? prompt.options : [];
  const allColours = options.length > 0 && options.every((o) => typeof o.colour === "string" && !o.coin);
  const list = h("div", { class: `options ${allColours ? "colours" : ""}`, role: "group" });
  for (const [i, option] of options.entries()) {
    list.append(h("button", {
      type: "button", class: "option-btn",
      dataset: { optionId: option.id, key: i < 9 ? String(i + 1) : "", ...(typeof option.card === "string" ? { cardHelp: option.card } : {}) },
      onclick: () => send({ type: "choose", option: option.id }),
    }, i < 9 ? h("kbd", { class: "key", "aria-hidden": "true" }, String(i + 1)) : null,
    optionArt(option, ctx), h("span", { class: "option-label" }, optionLabel(prompt, option, ctx.nameOf),
      // A card offered (Ghost, Imp, Goblin...) says what it does, on a phone too.
      typeof option.card === "string" ? h("span", { class: "option-power" }, charText(option.card)) : null)));
  }
  // The heading names the card once; the question under it no longer repeats it.
  return h("div", { class: "choose", dataset: { prompt: "choose", character: prompt.character, step: prompt.step || "" } },
    linkCards(h("h2", {}, t("prompt.choose_title", { card: charName(prompt.character) }))),
    h("p", { class: "prompt-question", id: "prompt-question" }, promptQuestion(prompt)),
    list,
    options.length > 1 ? h("p", { class: "hint keys" }, t("prompt.keys_choose", { n: Math.min(options.length, 9) })) : null);
}

/** What the panel shows once this seat's sealed bid is in. */
export function sentPanel(kind, character, mine) {
  const bid = kind === "tiebreak" ? mine && mine.tiebreak : mine && mine.bid;
  return h("div", { class: "sent", dataset: { sent: kind } },
    h("h2", {}, t(kind === "tiebreak" ? "prompt.tiebreak_title" : "prompt.bid_title",
      { card: charName(character), the_card: theCard(character) })),
    bid ? h("p", {}, describeBid(bid)) : null,
    h("p", { class: "sent-note" }, t("prompt.sent")));
}
