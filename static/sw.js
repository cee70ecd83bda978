// The service worker (served at /sw.js, so that its scope is the whole site): it makes the site
// an installable app that opens without network, and shows the notifications pushed to a closed
// tab (Web Push).
//
// The shell (the pages, the scripts, the stylesheet, the icons and the card catalogue) is kept in
// a cache and answered from it only when the network fails; a page opened without network shows
// the app's own "no connection, retrying" page. Game state never passes through here: the table
// socket is not a fetch, and no other /api/ answer is cached or answered from a cache.
//
// Updates: the server writes a digest of the client's files into VERSION, so a new release is a
// new worker. It installs beside the old one and waits (no skipWaiting on its own: a page never
// changes worker mid-game); the page announces it, and on the next load asks it to take over
// (static/js/app-shell.js).

const VERSION = "dev";
const SHELL = `shell-${VERSION}`;
const OFFLINE = "/static/offline.html";
// Fetched at install: what the offline page needs, and the pages a player opens first.
const PRECACHE = [
  OFFLINE,
  "/static/js/offline.js",
  "/static/css/app.css",
  "/static/favicon.svg",
  "/static/icons/icon-192.png",
  "/manifest.webmanifest",
  "/",
  "/me",
  "/rules",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(PRECACHE)));
});

// The caches of older versions (again at each page opened: the old worker's last answers may
// have refilled its own after it was deleted).
async function sweep() {
  for (const name of await caches.keys()) {
    if (name !== SHELL) await caches.delete(name);
  }
}

self.addEventListener("activate", (event) => {
  event.waitUntil(sweep().then(() => self.clients.claim()));
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "take-over") self.skipWaiting();
  if (data.type === "version" && event.ports[0]) event.ports[0].postMessage(VERSION);
});

// -- the network, and the shell when it fails ---------------------------------------------------

function isShell(url) {
  return (
    url.pathname.startsWith("/static/") ||
    url.pathname === "/api/cards" ||
    url.pathname === "/manifest.webmanifest"
  );
}

// An old worker still answering the last requests of a page must not refill its deleted cache.
function current() {
  return !self.serviceWorker || self.registration.active === self.serviceWorker;
}

async function fromNetwork(request, keep) {
  const response = await fetch(request);
  if (keep && response.ok && response.type === "basic" && current()) {
    const copy = response.clone();
    caches.open(SHELL).then((cache) => cache.put(request, copy)).catch(() => {});
  }
  return response;
}

async function page(request) {
  try {
    return await fromNetwork(request, false);
  } catch {
    // No network: the app's own page, which says so and tries again.
    return (await caches.match(OFFLINE)) || Response.error();
  }
}

async function shellFile(request) {
  try {
    return await fromNetwork(request, true);
  } catch {
    return (await caches.match(request)) || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
    event.waitUntil(sweep().catch(() => {}));
  } else if (isShell(url)) {
    event.respondWith(shellFile(request));
  }
  // Anything else (the API, game state) goes to the network as without a worker.
});

// -- notifications pushed to a closed tab -------------------------------------------------------

const WORDS = {
  en: {
    your_turn: ["Your turn", (table) => `Your turn at ${table}`],
    ended: ["Game over", (table) => `The game at ${table} ended`],
    stand_in: ["A stand-in plays for you", (table) => `You were handed to a stand-in at ${table}`],
    table: (host) => (host ? `${host}'s table` : "your table"),
  },
  fr: {
    your_turn: ["À vous de jouer", (table) => `À vous de jouer à ${table}`],
    ended: ["Partie terminée", (table) => `La partie à ${table} est terminée`],
    stand_in: ["Un remplaçant joue pour vous", (table) => `Un remplaçant a pris votre place à ${table}`],
    table: (host) => (host ? `la table de ${host}` : "votre table"),
  },
};

function words(push) {
  const lang = (self.navigator.language || "en").slice(0, 2).toLowerCase();
  const w = WORDS[lang] || WORDS.en;
  const said = w[push.kind];
  if (!said) return [push.title || "Dragonstones", push.body || ""];
  return [said[0], said[1](w.table(push.host))];
}

// Only a page of this site, and only a table's: a push never sends anyone elsewhere.
function tableUrl(url) {
  const target = new URL(url || "/", self.location.origin);
  const ok = target.origin === self.location.origin && /^\/t\/[A-Za-z0-9_-]+$/.test(target.pathname);
  return ok ? target.href : new URL("/me", self.location.origin).href;
}

self.addEventListener("push", (event) => {
  let push = {};
  try {
    push = event.data ? event.data.json() : {};
  } catch {
    push = {};
  }
  const [title, body] = words(push);
  event.waitUntil(
    self.registration.showNotification(title, {
      body,
      tag: `table-${push.table_id || "none"}-${push.kind || "push"}`,
      icon: "/static/icons/icon-192.png",
      data: { url: tableUrl(push.url), table_id: push.table_id || null, kind: push.kind || null },
    }),
  );
});

// The table's page: focused if open, else an open page of the site taken there, else a new one.
async function openNotification(notification) {
  notification.close();
  const url = tableUrl(notification.data && notification.data.url);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const there = windows.find((w) => w.url === url);
  if (there) return there.focus();
  const other = windows.find((w) => "navigate" in w);
  if (other) {
    const moved = await other.navigate(url);
    if (moved) return moved.focus().catch(() => moved);
  }
  return self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  const opened = openNotification(event.notification);
  try {
    event.waitUntil(opened); // the worker lives until the table is open
  } catch {
    // an event dispatched by script may not wait (the browser test clicks so): it opens all the same
  }
});
