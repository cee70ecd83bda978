"""The static client pages, the health check, the OpenAPI description, and a clean shutdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.server.harness import (
    REPO,
    Database,
    SeatClient,
    ServerProcess,
    create_table,
    join,
    start,
)


async def test_pages_health_and_openapi(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    spec = (await http.get("/openapi.json")).json()
    for path in (
        "/api/tables",
        "/api/tables/{table_id}/join",
        "/api/tables/{table_id}/bots",
        "/api/tables/{table_id}/start",
        "/api/tables/{table_id}/leave",
        "/api/games/{game_id}",
    ):
        assert path in spec["paths"], path
    # The API's page is under /api (a newcomer took /docs for the rules); no notes for
    # contributors are served as pages.
    assert (await http.get("/api/docs")).status_code == 200
    assert (await http.get("/docs")).status_code == 404
    assert (await http.get("/redoc")).status_code == 404
    assert (await http.get("/static/README.md")).status_code == 404
    assert (await http.get("/rules")).status_code == 200
    static = REPO / "static"
    for url, name in (("/", "index.html"), ("/t/abc123", "table.html")):
        r = await http.get(url)
        if (static / name).is_file():
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            assert r.text == (static / name).read_text()
        else:
            assert r.status_code == 404 and r.json()["detail"]["code"] == "not_found"
    r = await http.get("/static/../app/config.py")
    assert r.status_code == 404
    assert (await http.get("/nope")).json()["detail"]["code"] == "not_found"


async def test_static_dir_is_a_setting(
    sqlite_db: Database, server_factory: Any, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<h1>lobby</h1>")
    (site / "table.html").write_text("<h1>table</h1>")
    (site / "app.js").write_text("export {};")
    server: ServerProcess = server_factory(sqlite_db, STATIC_DIR=str(site))
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/")).text == "<h1>lobby</h1>"
        assert (await http.get("/t/xyz")).text == "<h1>table</h1>"
        assert (await http.get("/static/app.js")).text == "export {};"


async def test_a_stopping_server_closes_sockets_with_1012(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http) as http:
        table_id = await create_table(http, 3)
        seats = [await join(http, table_id, n) for n in ("Ann", "Bob", "Cat")]
        await start(http, seats[0])
    client = SeatClient(server.ws, table_id, seats[0].token, seats[0].seat)
    await client.connect()
    await client.wait_for(lambda m: m["type"] == "state")
    server.stop()
    assert await client.wait_closed() == 1012
