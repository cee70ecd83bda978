"""GET /readyz: 200 only while the database answers, 503 otherwise (a readiness probe).

`/healthz` says the process is up; `/readyz` says it can serve games. The route reads the engine
from `app.state.db` (set by the application's lifespan).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

router = APIRouter(include_in_schema=False)

# A probe must answer quickly even when the database hangs instead of refusing.
PROBE_TIMEOUT_SECONDS = 2.0


async def database_problem(db: AsyncEngine, timeout: float = PROBE_TIMEOUT_SECONDS) -> str | None:
    """None when `SELECT 1` succeeds within `timeout`, else what went wrong, in a few words."""
    try:
        async with asyncio.timeout(timeout), db.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except Exception as exc:  # any failure to reach the database means not ready
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".strip()
    return None


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    problem = await database_problem(request.app.state.db)
    if problem is not None:
        return JSONResponse(
            {
                "status": "unavailable",
                "detail": {"code": "database_unavailable", "message": problem},
            },
            status_code=503,
        )
    return JSONResponse({"status": "ready"})
