"""PUBLIC_URL: the lobby's answers carry invite and watch links on it; without it, none. On
https, a player's cookie is Secure."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.harness import Database, ServerProcess, create_table


async def test_tables_carry_links_on_public_url(sqlite_db: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(sqlite_db, PUBLIC_URL="https://dragons.example.org/")
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        for table in (
            (await http.get(f"/api/tables/{table_id}")).json(),
            *(await http.get("/api/tables")).json(),
        ):
            assert table["invite_url"] == f"https://dragons.example.org/t/{table_id}"
            assert table["watch_url"] == f"https://dragons.example.org/t/{table_id}?watch=1"
        # Served over https: a player's cookie is sent back over https only.
        cookie = (await http.get("/api/me")).headers["set-cookie"].lower()
        assert "secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie


async def test_tables_have_no_links_without_public_url(
    shared_server: ServerProcess, http: httpx.AsyncClient
) -> None:
    table_id = await create_table(http, 3)
    table = (await http.get(f"/api/tables/{table_id}")).json()
    assert table["invite_url"] is None and table["watch_url"] is None
    assert table["invite_path"] == f"/t/{table_id}"
