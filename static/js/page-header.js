// The header every page shares, built here once into the page's placeholder, <header
// class="topbar">: a link to skip it (the first thing a keyboard reaches), the brand (home;
// "back to the lobby" on the pages of a game and the rules), the page's own items (a table's
// turn banner and clock) left where they are, the links to the rules and to the player's games,
// and the language switch. The placeholder says what the page wants:
//   data-header-brand="back"              the brand reads "Back to the lobby"
//   data-header-links="rules me"          the rules link, the player's games link (with its badge);
//                                         "rules-aside" opens the rules in a new tab (a game stays)
// Every page loads it as its first module (modules run in their order in the page): the header
// is whole before the page's own module looks for its switch and badge; its texts are filled with
// the rest of the page's static texts (i18n.js applyStatic, in the page's language).

const GEMS = '<span class="brand-stones" aria-hidden="true"><i class="gem red"></i><i class="gem blue"></i><i class="gem yellow"></i></span>';

const BRAND = {
  home: `<a class="brand" href="/" data-i18n-attr="aria-label:app.title">${GEMS}<span data-i18n="app.title">Dragonstones Online</span></a>`,
  back: `<a class="brand" href="/" data-i18n-attr="title:table.back,aria-label:table.back">${GEMS}<span data-i18n="app.title">Dragonstones Online</span></a>`,
};

const LINKS = {
  rules: '<a class="rules-link" href="/rules" data-i18n="rules.link">Rules</a>',
  "rules-aside": '<a class="rules-link" href="/rules" target="_blank" rel="noopener" data-i18n="rules.link">Rules</a>',
  me: '<a class="me-link" href="/me"><span data-i18n="me.link">My games</span> <span class="count-badge" data-awaiting-badge hidden></span></a>',
};

// Skipping moves the focus into the page's <main> without touching the address: the players'
// page reads a sign-in code and a league's invite from the address's #fragment.
const SKIP = '<a class="skip-link" href="#main" data-i18n="app.skip">Skip to the content</a>';

function skipToMain(ev) {
  const main = document.querySelector("main");
  if (!main) return;
  ev.preventDefault();
  if (!main.hasAttribute("tabindex")) main.setAttribute("tabindex", "-1");
  main.focus();
}

const LANG_SWITCH = `<div class="lang-switch" role="group" data-i18n-attr="aria-label:lang.label">
  <button type="button" data-lang-button="en" lang="en" aria-label="English">EN</button>
  <button type="button" data-lang-button="fr" lang="fr" aria-label="Français">FR</button>
</div>`;

/** Fill a page's header placeholder (once: a header already built is left alone). */
export function buildHeader(header) {
  if (!header || header.querySelector(".brand")) return;
  const links = (header.dataset.headerLinks || "").split(/\s+/).filter(Boolean);
  header.insertAdjacentHTML("afterbegin", BRAND[header.dataset.headerBrand === "back" ? "back" : "home"]);
  header.insertAdjacentHTML("beforeend", links.map((name) => LINKS[name] || "").join("") + LANG_SWITCH);
  header.insertAdjacentHTML("beforebegin", SKIP);
  header.previousElementSibling.addEventListener("click", skipToMain);
}

if (typeof document !== "undefined") buildHeader(document.querySelector("header.topbar"));
