"""What the two sockets (the table's, app.edge.ws, and the queue's, app.edge.queue_api) share:
accepting a socket within this process's limits on sockets (app.edge.admission), and refusing one
with a reason before it joins anything.

A socket refused by those limits writes one log line at most (`refused`, within its address's
budget, app.core.refusals) and is counted in `dragonstones_errors_total{code}`; uvicorn's line for
its handshake is not written (app.core.logs)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

from fastapi import WebSocket

from app.core.logs import REFUSING_HANDSHAKE
from app.core.messages import ErrorOut
from app.core.metrics import Metrics
from app.core.refusals import REFUSALS, address_key
from app.edge.admission import Admission, Refused
from app.edge.ratelimit import client_address, parse_proxies
from app.edge.socket_path import ACCEPT_HEADERS
from app.wire.buckets import Buckets
from app.wire.codes import CLOSE_TOO_MANY

log = logging.getLogger("dragonstones.ws")


def _admission(ws: WebSocket) -> Admission:
    """This process's socket counters (made with the first socket)."""
    state = ws.app.state
    admission: Admission | None = getattr(state, "admission", None)
    if admission is None:
        settings = state.hub.settings
        admission = Admission(
            per_address=settings.max_sockets_per_address,
            per_table_spectators=settings.max_spectators_per_table,
            total=settings.max_sockets,
            arrivals=Buckets(settings.socket_rate_per_second, settings.socket_rate_burst)
            if settings.socket_rate_burst > 0
            else None,
        )
        state.admission = admission
        state.trusted_proxies = parse_proxies(settings.trusted_proxies)
    return admission


async def admit(
    ws: WebSocket, place: str, *, spectator: bool, serve: Callable[[], Awaitable[None]]
) -> None:
    """Accept the socket and `serve` it while it counts against this process's limits (sockets
    from its address, spectators at `place`, sockets in all, new sockets from its address per
    second); beyond one, refuse it (`too_many_sockets` or `socket_rate_limited`, 4429) without
    serving it."""
    admission = _admission(ws)
    address = client_address(ws.scope, ws.app.state.trusted_proxies)
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(admission.hold(address, place, spectator=spectator))
        except Refused as exc:
            metrics: Metrics = ws.app.state.metrics
            metrics.errors.labels(exc.code).inc()
            if REFUSALS.take(address_key(address)):
                log.info("socket of %.40r from %s refused: %s", place, address, exc.message)
            # The handshake is accepted to say why, but uvicorn does not log it as accepted.
            REFUSING_HANDSHAKE.set(True)
            await ws.accept(headers=ws.scope.get(ACCEPT_HEADERS))
            await refuse(ws, exc.code, exc.message, CLOSE_TOO_MANY)
            return
        await ws.accept(headers=ws.scope.get(ACCEPT_HEADERS))
        await serve()


async def refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    """Refuse a connection before it joins the table or the queue: say why, then close."""
    with contextlib.suppress(Exception):
        await ws.send_text(ErrorOut(code=code, message=message).model_dump_json())
        await ws.close(code=close_code, reason=code)
