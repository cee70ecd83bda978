"""GET /readyz: 200 only while the database answers, 503 otherwise (a readiness probe).

`/healthz` says the process is up; `/readyz` says it can serve games. The route asks the store's
`Health` in `app.state.health` (set by the application's lifespan).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.store.ports import Health

router = APIRouter(include_in_schema=False)

# A probe must answer quickly even when the database hangs instead of refusing.
PROBE_TIMEOUT_SECONDS = 2.0


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    health: Health = request.app.state.health
    problem = await health.problem(PROBE_TIMEOUT_SECONDS)
    if problem is not None:
        return JSONResponse(
            {
                "status": "unavailable",
                "detail": {"code": "database_unavailable", "message": problem},
            },
            status_code=503,
        )
    return JSONResponse({"status": "ready"})
