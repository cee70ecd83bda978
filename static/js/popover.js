// Card help: every element marked data-card-help="<card id>" shows that card's name and power in
// one popover, on hover, on keyboard focus and on tap, in the page's language. The popover is a
// role="tooltip" named by the trigger's aria-describedby, so a screen reader reads the power with
// the card; Escape closes it. One popover per page, found by event delegation: a panel only marks
// its cards (cardEl does it, `linkCards` does it for card names inside a sentence).

import { getLang } from "./i18n.js";
import { CATALOGUE, cardText } from "./catalogue.js";

const ID = "card-popover";
let popover = null;
let current = null; // the trigger shown
let pinned = false; // opened by a tap or a click: stays until tapped again, Escape or elsewhere

function ensure() {
  if (popover && popover.isConnected) return popover;
  popover = document.createElement("div");
  popover.id = ID;
  popover.className = "card-popover";
  popover.setAttribute("role", "tooltip");
  popover.hidden = true;
  document.body.append(popover);
  return popover;
}

function place(trigger) {
  const box = trigger.getBoundingClientRect();
  const pop = ensure();
  const width = pop.offsetWidth;
  const height = pop.offsetHeight;
  const left = Math.max(8, Math.min(box.left + box.width / 2 - width / 2, window.innerWidth - width - 8));
  // Below the card when it fits, else above it.
  const below = box.bottom + 8;
  const top = below + height < window.innerHeight - 8 ? below : Math.max(8, box.top - height - 8);
  pop.style.left = `${Math.round(left)}px`;
  pop.style.top = `${Math.round(top)}px`;
}

function show(trigger, pin) {
  const id = trigger.dataset.cardHelp;
  const text = cardText(id, getLang());
  if (!text) return;
  const pop = ensure();
  if (current && current !== trigger) current.removeAttribute("aria-describedby");
  pop.replaceChildren();
  const name = document.createElement("strong");
  name.className = "popover-name";
  name.textContent = text.name;
  const power = document.createElement("span");
  power.className = "popover-power";
  power.textContent = text.power;
  pop.append(name, " ", power);
  pop.dataset.card = id;
  pop.hidden = false;
  current = trigger;
  pinned = pin;
  trigger.setAttribute("aria-describedby", ID);
  place(trigger);
}

/** Close the popover (Escape, a tap elsewhere, the pointer or the focus leaving its card). */
export function hideCardHelp() {
  if (current) current.removeAttribute("aria-describedby");
  current = null;
  pinned = false;
  if (popover) popover.hidden = true;
}

function triggerOf(target) {
  return target instanceof Element ? target.closest("[data-card-help]") : null;
}

function install() {
  document.addEventListener("mouseover", (ev) => {
    const trigger = triggerOf(ev.target);
    if (trigger && trigger !== current && !pinned) show(trigger, false);
  });
  document.addEventListener("mouseout", (ev) => {
    const trigger = triggerOf(ev.target);
    if (trigger && trigger === current && !pinned && !trigger.contains(ev.relatedTarget)) hideCardHelp();
  });
  document.addEventListener("focusin", (ev) => {
    const trigger = triggerOf(ev.target);
    if (trigger) show(trigger, false);
    else if (!pinned) hideCardHelp();
  });
  document.addEventListener("focusout", (ev) => {
    if (current && ev.target === current && !pinned && !current.contains(ev.relatedTarget)) hideCardHelp();
  });
  document.addEventListener("click", (ev) => {
    const trigger = triggerOf(ev.target);
    if (!trigger) {
      if (current && !(popover && popover.contains(ev.target))) hideCardHelp();
      return;
    }
    // A button (an option naming a card) does its own job on click: its help follows the focus.
    if (trigger.closest("button")) return;
    if (trigger === current && pinned) hideCardHelp();
    else show(trigger, true);
  });
  // Capture: Escape closes the popover before a form's own Escape (clear the bid) hears it.
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && popover && !popover.hidden) {
      hideCardHelp();
      ev.stopPropagation();
      ev.preventDefault();
    }
  }, true);
  // Scrolling (focus brings a card into view) moves the popover with its card.
  const follow = () => { if (current && popover && !popover.hidden) place(current); };
  window.addEventListener("scroll", follow, true);
  window.addEventListener("resize", follow);
  // A panel drawn again replaces its cards: the popover of a card no longer on the page goes.
  window.setInterval(() => { if (current && !current.isConnected) hideCardHelp(); }, 400);
}

if (typeof document !== "undefined") install();

// Every name of every card in a language, longest first ("Dragon à deux têtes" before "Dragon").
function namesOf(lang) {
  const names = [];
  for (const entry of CATALOGUE.cards) {
    const text = entry.text[lang] || entry.text.en;
    if (text) names.push([text.name, entry.id]);
  }
  return names.sort((a, b) => b[0].length - a[0].length);
}

const patterns = {};
function patternOf(lang) {
  if (!patterns[lang]) {
    const names = namesOf(lang);
    const escaped = names.map(([n]) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    patterns[lang] = {
      ids: Object.fromEntries(names),
      // A whole name, not inside a word ("fées" is not the Fairy), not "Fairy Gold" (a coin).
      re: escaped.length ? new RegExp(`(?<![\\p{L}])(${escaped.join("|")})(?![\\p{L}])(?! Gold)`, "gu") : null,
    };
  }
  return patterns[lang];
}

/** Mark every card name written inside `root` (a log line, a question) as a card-help trigger:
 *  the name becomes a focusable span that shows its power. Returns `root`. */
export function linkCards(root) {
  const { ids, re } = patternOf(getLang());
  if (!re) return root;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    if (node.parentElement && node.parentElement.closest("[data-card-help], button, a")) continue;
    const text = node.nodeValue;
    re.lastIndex = 0;
    if (!re.test(text)) continue;
    re.lastIndex = 0;
    const parts = [];
    let at = 0;
    for (const m of text.matchAll(re)) {
      if (m.index > at) parts.push(text.slice(at, m.index));
      const span = document.createElement("span");
      span.className = "card-ref";
      span.dataset.cardHelp = ids[m[1]];
      span.tabIndex = 0;
      span.textContent = m[1];
      parts.push(span);
      at = m.index + m[1].length;
    }
    if (at < text.length) parts.push(text.slice(at));
    node.replaceWith(...parts);
  }
  return root;
}
