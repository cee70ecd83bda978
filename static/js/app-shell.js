// Every page: the service worker that makes the site an installable app (static/sw.js, served
// at /sw.js). A browser without one, or one that refuses it (a private window), plays as before.

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
