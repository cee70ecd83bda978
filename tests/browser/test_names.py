"""A name written as markup shows as text everywhere a page shows names: the lobby
(open tables and games to watch), the seats, the game log and the game-over screen. Two people called `<img src=x onerror=...>` and
`<script>...</script>` play a game (scripted over real sockets) while a spectator's page and the
lobby page watch; nothing they wrote runs, and their names read exactly as typed."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from typing import Any

from tests.browser.conftest import HAVE_PLAYWRIGHT, NewPage, Server
from tests.server.harness import SeatClient, bot_strategy

if HAVE_PLAYWRIGHT:
    from playwright.sync_api import Page, expect
else:  # collected all the same: the `browser` fixture then skips (or fails under CI) saying why
    Page = expect = None  # type: ignore[assignment,misc]

IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=2</script>"
NAMES = (IMG, SCRIPT)


def _api(server: Server, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(
        server.url + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _shows_as_text(page: Page, selector: str) -> None:
    area = page.locator(selector)
    for name in NAMES:
        expect(area).to_contain_text(name)
    assert page.locator(f"{selector} img, {selector} script").count() == 0
    assert page.evaluate("window.__xss") is None


def _play(server: Server, table_id: str, seats: list[dict[str, Any]], errors: list[str]) -> None:
    """The two people play the game over real sockets, deciding like the engine's bots."""

    async def main() -> None:
        base = server.url.replace("http://", "ws://")
        clients = [
            SeatClient(base, table_id, s["token"], s["seat"], bot_strategy("heuristic", 7 + i))
            for i, s in enumerate(seats)
        ]
        for c in clients:
            await c.connect()
        await asyncio.gather(*(c.play_until_over(120) for c in clients))
        for c in clients:
            await c.close()

    try:
        asyncio.run(main())
    except Exception as exc:  # reported by the test, which is on another thread
        errors.append(repr(exc))


def test_names_written_as_markup_show_as_text_everywhere(server: Server, new_page: NewPage) -> None:
    table = _api(server, "POST", "/api/tables", {"seats": 3})
    table_id = table["id"]
    seats = [_api(server, "POST", f"/api/tables/{table_id}/join", {"name": n}) for n in NAMES]

    lobby = new_page("lobby")
    lobby.goto(server.url + "/")
    expect(lobby.locator("#open-tables .table-row")).to_have_count(1)
    _shows_as_text(lobby, "#open-tables")

    spectator = new_page("spectator")
    spectator.goto(server.url + table["watch_path"])
    expect(spectator.locator("#waiting-view")).to_be_visible()
    _shows_as_text(spectator, "#waiting-seats")

    _api(server, "POST", f"/api/tables/{table_id}/bots", {"count": 1}, seats[0]["token"])
    _api(server, "POST", f"/api/tables/{table_id}/start", None, seats[0]["token"])
    expect(spectator.locator("#game-view")).to_be_visible()
    _shows_as_text(spectator, "#seats")
    # The lobby's list of games to watch, with the scores beside the names.
    lobby.reload()
    expect(lobby.locator("#watch-tables .table-row")).to_have_count(1)
    _shows_as_text(lobby, "#watch-tables")

    errors: list[str] = []
    players = threading.Thread(target=_play, args=(server, table_id, seats, errors))
    players.start()
    players.join(150)
    assert not players.is_alive() and not errors, errors

    expect(spectator.locator("#end-view")).to_be_visible(timeout=30_000)
    _shows_as_text(spectator, "#log")
    _shows_as_text(spectator, "#end-view")
    lobby.reload()
    expect(lobby.locator("#open-tables")).to_be_visible()
    assert lobby.evaluate("window.__xss") is None
