// The service worker (served at /sw.js, so that its scope is the whole site): it makes the site
// an installable app. It never answers a game frame or an API call from a cache: it has no fetch
// handler yet, so every request goes to the network as without it.
// A new version waits for the next load (no skipWaiting): a page never changes worker mid-game.

self.addEventListener("install", () => {});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});
