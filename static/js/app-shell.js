// Every page: the header every page shares (page-header.js, built before the page's own module
// runs), and the service worker that makes the site an installable app (static/sw.js, served at
// /sw.js). A browser without one, or one that refuses it (a private window), plays as before.

import "./page-header.js";

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
