"""/readyz answers 200 while the database answers and 503 when it does not (app/edge/readiness.py).

In process until the lead wires the router into app/main.py; then the compose test stops and
starts the db container around it (see the deploy branch's report)."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI

from app.core.config import Settings
from app.edge.readiness import router
from app.store.db import make_engine
from app.store.health import SqlHealth
from tests.server.harness import free_port


async def readiness(url: str) -> httpx.Response:
    app = FastAPI()
    app.include_router(router)
    engine = make_engine(Settings(database_url=url), url)
    app.state.health = SqlHealth(engine)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.get("/readyz")
    finally:
        await engine.dispose()


async def test_ready_while_the_database_answers(tmp_path: Path) -> None:
    r = await readiness(f"sqlite+aiosqlite:///{tmp_path / 'ready.sqlite3'}")
    assert (r.status_code, r.json()) == (200, {"status": "ready"})


async def test_not_ready_when_the_database_is_gone() -> None:
    # Nothing listens on this port: the connection is refused at once.
    refused = await readiness(f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/none")
    assert refused.status_code == 503
    assert refused.json()["detail"]["code"] == "database_unavailable"
