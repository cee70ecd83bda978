"""/readyz follows the database: 200 while it answers, 503 while it is stopped, 200 once it is
back; /healthz (the process is up) stays 200 throughout. A private Postgres cluster is stopped,
never the machine's shared one."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.server.conftest import PrivatePostgres
from tests.server.harness import Database, ServerProcess


async def test_readyz_is_503_while_the_database_is_stopped(
    private_pg: PrivatePostgres, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(Database(url=private_pg.url))
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        assert (await http.get("/readyz")).status_code == 200
        await asyncio.to_thread(private_pg.stop, "fast")
        down = await http.get("/readyz")
        assert down.status_code == 503, down.text
        assert (await http.get("/healthz")).status_code == 200
        # A lobby call meanwhile is refused as unavailable, never a 500.
        lobby = await http.get("/api/tables")
        assert (lobby.status_code, lobby.json()["detail"]["code"]) == (503, "unavailable")
        await asyncio.to_thread(private_pg.start)
        for _ in range(50):
            if (await http.get("/readyz")).status_code == 200:
                break
            await asyncio.sleep(0.2)
        assert (await http.get("/readyz")).status_code == 200
        assert (await http.get("/api/tables")).status_code == 200
