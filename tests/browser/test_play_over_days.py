"""The installable app between games: its service worker controls the pages, a page opened
without network shows the app's own "no connection, retrying" page and comes back by itself, a
push delivered to the worker (Chromium's DevTools protocol, `ServiceWorker.deliverPushMessage`)
shows a notification that opens its table, a new release is announced and taken on the next
load, and /me offers alerts, or says that they need the tab open where push is missing.

The full browser, not the headless shell: the shell has no notifications (the browser fixture
reads FULL_CHROMIUM). The manifest's fields are checked by tests/browser/test_installable.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ROOT, ConsoleWatch, NewPage, Server
from tests.browser.helpers import Page, expect

pytestmark = pytest.mark.browser

FULL_CHROMIUM = True

READY = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return registration.active.scriptURL;
}"""

VERSION = """async () => {
  const worker = navigator.serviceWorker.controller;
  if (!worker) return null;
  const channel = new MessageChannel();
  const answer = new Promise((done) => { channel.port1.onmessage = (e) => done(e.data); });
  worker.postMessage({ type: "version" }, [channel.port2]);
  return answer;
}"""

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  const shown = await registration.getNotifications();
  return shown.map((n) => ({ title: n.title, body: n.body, data: n.data }));
}"""

# Run inside the service worker, a click: the worker's own `notificationclick` listener gets the
# event (dispatched by script, as no DevTools call clicks a notification; the listener opens the
# table without waiting on it).
CLICK = """async () => {
  const [notification] = await self.registration.getNotifications();
  return self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
}"""


# Every path the worker's cache holds.
CACHED = """async () => {
  const paths = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) {
      paths.push(new URL(request.url).pathname);
    }
  }
  return paths;
}"""
SHELL_PAGES = {"/", "/me", "/rules", "/manifest.webmanifest", "/api/cards"}


def _controlled(page: Page, server: Server, path: str) -> None:
    """Open `path` once the worker is active, so that it controls the page."""
    page.goto(server.url + path)
    assert page.evaluate(READY) == server.url + "/sw.js"
    page.reload()
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")


def _new_table(page: Page, server: Server) -> str:
    response = page.request.post(server.url + "/api/tables", data={"seats": 3})
    assert response.status == 201, response.text()
    table_id: str = response.json()["id"]
    return table_id


def _registration_id(page: Page, cdp: Any, server: Server) -> str:
    found: dict[str, str] = {}

    def heard(event: dict[str, Any]) -> None:
        for r in event["registrations"]:
            if r["scopeURL"] == server.url + "/" and not r.get("isDeleted"):
                found["id"] = r["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", heard)
    cdp.send("ServiceWorker.enable")
    for _ in range(600):  # the events arrive while Playwright waits (at most 30 s)
        if "id" in found:
            break
        page.wait_for_timeout(50)
    assert "id" in found, "the worker's registration was not reported"
    return found["id"]


def test_offline_reload_and_a_pushed_notification_opening_its_table(
    server: Server, new_page: NewPage, console: ConsoleWatch
) -> None:
    page = new_page("ann")
    page.context.grant_permissions(["notifications"], origin=server.url)
    _controlled(page, server, "/me")
    expect(page.locator("#profile-view")).to_be_visible()

    # The server goes away: a reload shows the app's own page, which tries again by itself.
    console.tolerated += ["ERR_CONNECTION_REFUSED", "Failed to fetch", "Failed to load resource"]
    server.stop()
    page.reload()
    expect(page.locator("#offline-title")).to_have_text("No connection, retrying…")
    assert page.url == server.url + "/me"
    server.start()
    expect(page.locator("#profile-view")).to_be_visible()  # back at /me, from the network

    # A push, as the push service would deliver it (its payload as app.table.push makes it).
    table_id = _new_table(page, server)
    push = {
        "kind": "your_turn",
        "table_id": table_id,
        "host": "Ann",
        "url": f"/t/{table_id}",
        "title": "Your turn",
        "body": "Your turn at Ann's table",
    }
    cdp = page.context.new_cdp_session(page)
    registration = _registration_id(page, cdp, server)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": server.url, "registrationId": registration, "data": json.dumps(push)},
    )
    page.wait_for_function(
        "async () => (await (await navigator.serviceWorker.ready).getNotifications()).length > 0"
    )
    shown = page.evaluate(NOTIFICATIONS)
    assert [(n["title"], n["body"]) for n in shown] == [("Your turn", "Your turn at Ann's table")]
    assert shown[0]["data"]["url"] == f"{server.url}/t/{table_id}"

    # Its click opens the table (the open page of the site is taken there).
    worker = next(w for w in page.context.service_workers if w.url == server.url + "/sw.js")
    assert worker.evaluate(CLICK)
    page.wait_for_url(f"{server.url}/t/{table_id}")
    assert page.evaluate(NOTIFICATIONS) == []  # the click closed it

    # The table's page loaded its table over the API: none of it is in the cache, only the shell.
    expect(page.get_by_role("heading", name=f"Take a seat — Table {table_id}")).to_be_visible()
    kept = page.evaluate(CACHED)
    assert "/static/js/app-shell.js" in kept and "/api/cards" in kept, kept
    assert [p for p in kept if p.startswith("/api/") and p != "/api/cards"] == [], kept
    assert all(p.startswith("/static/") or p in SHELL_PAGES for p in kept), kept


def test_a_new_version_is_announced_and_taken_on_the_next_load(
    server: Server, new_page: NewPage, tmp_path: Path
) -> None:
    # The server reads the client from a copy, which the test then changes (a new release).
    static = tmp_path / "static"
    shutil.copytree(ROOT / "static", static)
    server.stop()
    server.env["STATIC_DIR"] = str(static)
    server.start()

    page = new_page("bea")
    _controlled(page, server, "/")
    first = page.evaluate(VERSION)
    assert first and first != "dev", first

    stylesheet = static / "css" / "app.css"
    stylesheet.write_text(stylesheet.read_text() + "\n/* the next release */\n")
    page.evaluate("async () => { await (await navigator.serviceWorker.ready).update(); }")
    notice = page.locator("#update-notice")
    expect(notice).to_contain_text("A new version of Dragonstones is ready")
    assert page.evaluate(VERSION) == first  # this page keeps the worker it has

    page.reload()  # the next load: the new version takes over
    page.wait_for_function(
        "async (old) => { const w = navigator.serviceWorker.controller;"
        " if (!w) return false; const c = new MessageChannel();"
        " const v = new Promise((d) => { c.port1.onmessage = (e) => d(e.data); });"
        " w.postMessage({ type: 'version' }, [c.port2]); return (await v) !== old; }",
        arg=first,
    )
    expect(page.locator("#update-notice")).to_have_count(0)
    # The old version's cache is deleted.
    page.wait_for_function(
        "async (name) => JSON.stringify(await caches.keys()) === JSON.stringify([name])",
        arg=f"shell-{page.evaluate(VERSION)}",
    )


def test_me_offers_alerts_on_this_device(server: Server, new_page: NewPage) -> None:
    page = new_page("cid")
    page.goto(server.url + "/me")
    expect(page.locator("#alerts-view")).to_be_visible()
    expect(page.locator("#alerts-on")).to_have_text("Turn on alerts on this device")
    expect(page.locator("#alerts-status")).to_contain_text("even with the tab closed")


@pytest.mark.server_env(PUSH_ENABLED="false")
def test_without_push_me_says_alerts_need_the_tab_open(server: Server, new_page: NewPage) -> None:
    page = new_page("dan", locale="fr-FR")
    page.goto(server.url + "/me")
    expect(page.locator("#alerts-status")).to_contain_text("Les alertes demandent l'onglet ouvert")
    expect(page.locator("#alerts-on")).to_be_hidden()
