// The rules page (/rules): the goal, a turn, sealed bids, the Silver tie-break, how stones score,
// the end and every card, all from the card catalogue (catalogue.js), in the page's language.

import { h, fill, $, setupLanguageSwitch } from "./common.js";
import { t, getLang } from "./i18n.js";
import { CATALOGUE, guide, cardText } from "./catalogue.js";
import { cardEl } from "./cards.js";

function cardItem(entry) {
  const text = cardText(entry.id, getLang());
  return h("li", { class: "rules-card", dataset: { card: entry.id } },
    cardEl(entry.id, { size: "small" }),
    h("div", {},
      h("h4", {}, text.name),
      h("p", {}, h("strong", {}, text.power)),
      h("p", {}, text.rules),
      entry.copies > 1 ? h("p", { class: "hint" }, t("rules.copies", { n: entry.copies })) : null));
}

function scoringList() {
  return h("ul", { class: "scoring-list" }, CATALOGUE.scoring.map((id) => {
    const text = cardText(id, getLang());
    return h("li", {}, h("strong", {}, text.name), " — ", text.power);
  }));
}

function render() {
  document.title = t("rules.page_title");
  if (!CATALOGUE.cards.length) {
    fill($("#rules"), h("p", { role: "alert" }, t("rules.unavailable")));
    return;
  }
  const sections = guide(getLang()).map((section) => {
    const slug = `rules-${section.id}`;
    const extra = [];
    if (section.id === "scoring") extra.push(scoringList());
    if (section.id === "cards") {
      extra.push(
        h("h3", {}, t("rules.standard")),
        h("ul", { class: "rules-cards" }, CATALOGUE.cards.filter((c) => !c.special).map(cardItem)),
        h("h3", {}, t("rules.special")),
        h("ul", { class: "rules-cards" }, CATALOGUE.cards.filter((c) => c.special).map(cardItem)));
    }
    return h("section", { class: "rules-section panel", "aria-labelledby": slug },
      h("h2", { id: slug }, section.title),
      section.paragraphs.map((p) => h("p", {}, p)),
      extra);
  });
  fill($("#rules"), sections);
}

setupLanguageSwitch(render);
render();
