// Every page: the service worker that makes the site an installable app (static/sw.js, served
// at /sw.js). A browser without one, or one that refuses it (a private window), plays as before.
//
// Updates: a new worker (a new release) installs and waits; the page says a new version is ready,
// and the next load hands over to it (one quick reload at the start of a page, never mid-game).

const WORDS = {
  en: "A new version of Dragonstones is ready: it is used from the next time a page is opened.",
  fr: "Une nouvelle version de Dragonstones est prête : elle servira dès la prochaine page ouverte.",
};

function announce() {
  if (document.getElementById("update-notice")) return;
  const lang = (document.documentElement.lang || "en").slice(0, 2);
  const note = document.createElement("p");
  note.id = "update-notice";
  note.className = "update-notice";
  note.setAttribute("role", "status");
  note.textContent = WORDS[lang] || WORDS.en;
  document.body.append(note);
}

function watch(worker) {
  if (!worker) return;
  const check = () => {
    if (worker.state === "installed" && navigator.serviceWorker.controller) announce();
  };
  worker.addEventListener("statechange", check);
  check();
}

async function start() {
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  if (registration.waiting && navigator.serviceWorker.controller) {
    // A new version waited for this load: it takes over, and the page opens again under it.
    navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), {
      once: true,
    });
    registration.waiting.postMessage({ type: "take-over" });
    return;
  }
  watch(registration.installing);
  registration.addEventListener("updatefound", () => watch(registration.installing));
}

if ("serviceWorker" in navigator) {
  start().catch(() => {});
}
