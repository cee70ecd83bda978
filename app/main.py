"""The FastAPI application: lobby routes, the table socket, the static client."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import logs, migrate, replay
from app.api import api, pages
from app.config import Settings, get_settings
from app.db import make_engine, make_sessionmaker
from app.limits import BodyLimit
from app.service import GameService, ServiceError
from app.ws import router as ws_router

log = logging.getLogger("dragonstones")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logs.install()
        if settings.auto_migrate:
            # Alembic's env runs its own event loop: give it a thread.
            await asyncio.to_thread(migrate.upgrade, "head", settings)
        db = make_engine(settings)
        service = GameService(
            settings, make_sessionmaker(db), single_writer=db.dialect.name == "sqlite"
        )
        app.state.service = service
        await service.resume()
        syncing = asyncio.create_task(service.sync_with_other_processes())
        try:
            yield
        finally:
            syncing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await syncing
            await service.close()
            await db.dispose()

    app = FastAPI(
        title="Dragonstones Online",
        version="0.1.0",
        summary="Server for Fist of Dragonstones: lobby over HTTP, games over WebSockets.",
        lifespan=lifespan,
    )
    app.state.settings = settings

    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(
            {"detail": {"code": exc.code, "message": exc.message}}, status_code=exc.status
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        return JSONResponse(
            {"detail": {"code": "invalid_request", "message": problems}}, status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail: object = exc.detail
        if not isinstance(detail, dict):
            detail = {"code": _code_for(exc.status_code), "message": str(exc.detail)}
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)

    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.include_router(api)
    app.include_router(ws_router)
    app.include_router(pages)
    app.include_router(replay.router)
    static_dir = settings.static_dir
    # check_dir=False: the server runs without the client files (an API-only deployment).
    app.mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static")
    return app


def _code_for(status: int) -> str:
    return {404: "not_found", 405: "method_not_allowed", 401: "unauthorized"}.get(
        status, "http_error"
    )
