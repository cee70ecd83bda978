// The page the service worker shows when a page is opened without network (static/offline.html):
// it says so, in the player's language, and tries the server again (sooner after a click), then
// opens the page that was asked for. Standalone: the app's other modules may not be cached yet.

const WORDS = {
  en: {
    title: "No connection, retrying…",
    body: "The server cannot be reached. This page tries again on its own and opens the game as soon as it answers.",
    retry: "Try now",
    trying: "Trying again…",
  },
  fr: {
    title: "Pas de connexion, nouvel essai…",
    body: "Le serveur ne répond pas. Cette page réessaie d'elle-même et ouvre le jeu dès qu'il répond.",
    retry: "Réessayer",
    trying: "Nouvel essai…",
  },
};

function language() {
  let saved = null;
  try {
    saved = localStorage.getItem("dragonstones.lang");
  } catch {
    saved = null;
  }
  const lang = (saved || navigator.language || "en").slice(0, 2).toLowerCase();
  return WORDS[lang] ? lang : "en";
}

const lang = language();
const words = WORDS[lang];
document.documentElement.lang = lang;
for (const el of document.querySelectorAll("[data-offline]")) {
  el.textContent = words[el.dataset.offline];
}

let wait = 2000;
let timer = null;

async function tryAgain() {
  clearTimeout(timer);
  document.getElementById("offline-status").textContent = words.trying;
  try {
    const response = await fetch("/healthz", { cache: "no-store" });
    if (response.ok) {
      location.reload();
      return;
    }
  } catch {
    // still no connection
  }
  document.getElementById("offline-status").textContent = words.body;
  wait = Math.min(wait * 2, 30000);
  timer = setTimeout(tryAgain, wait);
}

document.getElementById("offline-retry").addEventListener("click", () => {
  wait = 2000;
  tryAgain();
});
timer = setTimeout(tryAgain, wait);
