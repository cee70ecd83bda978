// Alerts on this device (Web Push): a player turns them on with a click (the browser asks for
// permission only then), and gets "your turn", "the game ended" and "a stand-in took your seat"
// with every tab closed. Where the server or the browser cannot push, the page says that alerts
// need the tab open. The section is #alerts-view of /me; the server's side: app/edge/push_api.py.

import { getLang, onLangChange } from "./i18n.js";

const WORDS = {
  en: {
    title: "Alerts",
    on: "Turn on alerts on this device",
    off: "Turn off alerts on this device",
    is_on: "Alerts are on for this device: you are told when it is your turn, even with the tab closed.",
    is_off: "Get told on this device when it is your turn, even with the tab closed.",
    missing: "Alerts need the tab open: this server or this browser cannot send them to a closed tab.",
    blocked: "Notifications are blocked for this site in the browser's settings: alerts need the tab open.",
    failed: "Alerts could not be turned on: they need the tab open.",
  },
  fr: {
    title: "Alertes",
    on: "Activer les alertes sur cet appareil",
    off: "Désactiver les alertes sur cet appareil",
    is_on: "Les alertes sont activées sur cet appareil : vous êtes prévenu quand c'est à vous, même onglet fermé.",
    is_off: "Soyez prévenu sur cet appareil quand c'est à vous, même onglet fermé.",
    missing: "Les alertes demandent l'onglet ouvert : ce serveur ou ce navigateur ne peut pas les envoyer à un onglet fermé.",
    blocked: "Les notifications sont bloquées pour ce site dans les réglages du navigateur : les alertes demandent l'onglet ouvert.",
    failed: "Les alertes n'ont pas pu être activées : elles demandent l'onglet ouvert.",
  },
};

const section = document.getElementById("alerts-view");
let said = ["is_off", null]; // what the section says, and whether this device is subscribed
let key = null;

function w(name) {
  return (WORDS[getLang()] || WORDS.en)[name];
}

function show(status, subscribed) {
  said = [status, subscribed];
  section.hidden = false;
  document.getElementById("alerts-title").textContent = w("title");
  document.getElementById("alerts-status").textContent = w(status);
  const on = document.getElementById("alerts-on");
  const off = document.getElementById("alerts-off");
  on.textContent = w("on");
  off.textContent = w("off");
  on.hidden = subscribed !== false;
  off.hidden = subscribed !== true;
}

function decodeKey(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function send(method, body) {
  const response = await fetch("/api/me/push", {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`alerts: ${response.status}`);
}

async function turnOn() {
  try {
    if ((await Notification.requestPermission()) !== "granted") {
      show("blocked", null);
      return;
    }
    const registration = await navigator.serviceWorker.ready;
    const sub = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: decodeKey(key),
    });
    await send("POST", sub.toJSON());
    show("is_on", true);
  } catch {
    show("failed", false);
  }
}

async function turnOff() {
  const registration = await navigator.serviceWorker.ready;
  const sub = await registration.pushManager.getSubscription();
  if (sub) {
    await send("DELETE", { endpoint: sub.endpoint }).catch(() => {});
    await sub.unsubscribe().catch(() => {});
  }
  show("is_off", false);
}

async function start() {
  const canPush = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  let info = { available: false };
  try {
    info = await (await fetch("/api/push")).json();
  } catch {
    info = { available: false };
  }
  if (!canPush || !info.available) {
    show("missing", null);
    return;
  }
  key = info.public_key;
  if (Notification.permission === "denied") {
    show("blocked", null);
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  const sub = await registration.pushManager.getSubscription();
  if (sub) {
    // Said again: the server may have dropped it, or this browser may now be another player's.
    await send("POST", sub.toJSON()).catch(() => {});
    show("is_on", true);
  } else {
    show("is_off", false);
  }
}

if (section && window.location.pathname === "/me") {
  document.getElementById("alerts-on").addEventListener("click", turnOn);
  document.getElementById("alerts-off").addEventListener("click", turnOff);
  onLangChange(() => show(...said));
  start().catch(() => show("missing", null));
}
