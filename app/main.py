"""The FastAPI application: wires the database, the game hub, the lobby and the routes together,
and serves the static client."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles

from app.core import logs, names
from app.core.config import Settings, get_settings
from app.core.metrics import Metrics
from app.edge import (
    after_game,
    app_shell,
    catalogue_api,
    http_errors,
    leagues_api,
    metrics_access,
    players_api,
    push_api,
    queue_api,
    readiness,
    replay,
    test_clock,
)
from app.edge.api import api, pages
from app.edge.browser_headers import BrowserHeaders
from app.edge.limits import BodyLimit
from app.edge.ratelimit import HttpRateLimit
from app.edge.replay_cache import Published
from app.edge.replica import HEADER, ReplicaHeader, replica_name
from app.edge.socket_path import LeanSockets
from app.edge.ws import router as ws_router
from app.lobby.history import History
from app.lobby.leagues import Leagues
from app.lobby.players import Players
from app.lobby.queue_service import QueueService
from app.lobby.tables import Lobby
from app.store import migrate
from app.store.stores import open_stores
from app.table.analysis import Analyst
from app.table.hub import Hub

log = logging.getLogger("dragonstones")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logs.install(
            settings.log_format, settings.log_level,
            refusal_lines=settings.log_refusals_per_address,
            refusal_window=settings.log_refusals_window_seconds,
        )  # fmt: skip
        if settings.auto_migrate:
            # Alembic's env runs its own event loop: give it a thread.
            await asyncio.to_thread(migrate.upgrade, "head", settings)
        # The database's stores (Postgres's or SQLite's, as its URL says), then what uses them.
        stores = open_stores(settings, metrics.notifications.inc)
        hub = Hub(settings, stores, metrics)
        app.state.health = stores.health  # /readyz asks it
        app.state.hub = hub
        app.state.reads = stores.reads
        app.state.lobby = Lobby(stores.tables, stores.reads, hub)
        await hub.start()
        # The matchmaking queue: its loop runs in every process.
        app.state.queue = QueueService(settings, stores.queue, app.state.lobby)
        app.state.queue.start()
        # Finished games' analyses, in their own low-priority workers; unfinished ones resume.
        app.state.analyst = Analyst(
            stores.analyses, stores.reads, settings.analysis_worlds,
            settings.analysis_workers, settings.analysis_nice,
        )  # fmt: skip
        app.state.analyst.resume_soon()
        # Players who come back: who a browser is, and finished games into history and ratings.
        app.state.players = Players(stores.players, stores.games)
        app.state.history = History(stores.history)
        app.state.leagues = Leagues(stores.leagues, app.state.lobby)
        app.state.history.start()
        names.prepare()
        # What start-up made lives as long as the process: the collector need not walk it again
        # on every full collection (a socket storm's allocations set off several).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await app.state.history.close()
            await app.state.analyst.close()
            await app.state.queue.close()
            await hub.close()
            await stores.close()

    app = LeanSockets(
        title="Dragonstones Online",
        version="0.1.0",
        summary="Server for Fist of Dragonstones: lobby over HTTP, games over WebSockets.",
        lifespan=lifespan,
        # Under /api: at /docs a newcomer took the API's page for the game's rules (/rules).
        docs_url="/api/docs",
        redoc_url=None,
        # FastAPI's OpenTelemetry layer is off: nothing here configures a provider, and enabled it
        # looks the three providers up in the environment on every HTTP request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.published = Published(
        settings.replay_cache_bytes, lambda kind: metrics.documents.labels(kind).inc()
    )
    http_errors.install(app)

    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(BrowserHeaders, policy=settings.content_security_policy)
    if settings.gzip_minimum_bytes > 0:
        # Level 6, gzip's own default: nearly level 9's size at a fraction of its CPU. A finished
        # game's documents come compressed already (app.edge.replay_cache) and pass as they are.
        app.add_middleware(
            GZipMiddleware, minimum_size=settings.gzip_minimum_bytes, compresslevel=6
        )
    replica = replica_name(settings.replica_name)
    app.add_middleware(ReplicaHeader, name=replica)
    app.accept_headers = [(HEADER, replica.encode("latin-1", errors="replace"))]
    # Outermost: a flood is refused before its body is read.
    app.add_middleware(
        HttpRateLimit,
        rate=settings.http_rate_per_second,
        burst=settings.http_rate_burst,
        trusted_proxies=settings.trusted_proxies,
        read_rate=settings.read_rate_per_second,
        read_burst=settings.read_rate_burst,
    )
    app.include_router(api)
    app.include_router(ws_router)
    app.include_router(pages)
    app.include_router(app_shell.router)
    app.include_router(replay.router)
    app.include_router(after_game.router)
    app.include_router(readiness.router)
    app.include_router(metrics_access.router)
    app.include_router(queue_api.router)
    if settings.test_clock is not None:  # tests only: the route that moves the server's clock
        test_clock.enable(settings.test_clock)
        app.include_router(test_clock.router)
    app.include_router(catalogue_api.router)
    app.include_router(players_api.router)
    app.include_router(players_api.pages)
    app.include_router(leagues_api.router)
    app.include_router(push_api.router)
    # The table's and the queue's sockets skip the HTTP middlewares (app.edge.socket_path).
    app.lean(ws_router, queue_api.router)
    static_dir = settings.static_dir
    # check_dir=False: the server runs without the client files (an API-only deployment).
    app.mount("/static", StaticFiles(directory=static_dir, check_dir=False), name="static")
    return app
