"""The matchmaking queue's HTTP routes and its socket `/ws/queue?ticket=<id>&token=<secret>`; the
loop that keeps the queue moving and tells the sockets is app.lobby.queue_service's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from typing import Annotated

from fastapi import APIRouter, Request, WebSocket
from fastapi import Path as PathParam
from pydantic import ValidationError

from app.core.errors import Code, ServiceError, is_outage
from app.core.messages import (
    QUEUE_CLIENT_TYPES,
    ErrorOut,
    PingIn,
    PongOut,
    QueueBotsIn,
    queue_client_message,
)
from app.core.metrics import Metrics
from app.core.schemas import ID_PATTERN, AcceptBots, JoinQueue, TicketOut
from app.edge.api import ERRORS
from app.edge.deps import Token
from app.edge.ratelimit import client_address, parse_proxies
from app.edge.sockets import admit, refuse
from app.edge.ws import BROKEN_FRAMING, protocol_error
from app.lobby.queue_service import QueueService
from app.wire.buckets import TokenBucket
from app.wire.codes import CLOSE_NORMAL, CLOSE_NOT_FOUND, CLOSE_POLICY, CLOSE_TOO_BIG
from app.wire.frames import frame_budget
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.queue")

TicketId = Annotated[str, PathParam(pattern=ID_PATTERN, description="a queue ticket's id")]
_TICKET_ID = re.compile(ID_PATTERN)
# With nobody waiting, a full matching pass only every this many seconds.
_FULL_PASS_SECONDS = 30.0
# The database away: the loop's failures are logged once per this many seconds.
_OUTAGE_LOG_SECONDS = 30.0

router = APIRouter(tags=["queue"], responses=ERRORS)


def _service(request: Request | WebSocket) -> QueueService:
    return request.app.state.queue  # type: ignore[no-any-return]


# -- HTTP ---------------------------------------------------------------------------------------


@router.post("/api/queue", status_code=201, response_model=TicketOut)
async def join_queue(body: JoinQueue, request: Request) -> TicketOut:
    """Wait for a table of the size asked ("any": 3 to 6). The answer's `token` is the ticket's
    secret, shown once. When enough players wait, a table is formed, everyone is seated and the
    game starts; `GET /api/queue/{ticket}` (or the queue socket) then gives the seat."""
    service = _service(request)
    address = client_address(request.scope, parse_proxies(service.settings.trusted_proxies))
    out = await service.matchmaker.join(
        name=body.name,
        size=None if body.size == "any" else body.size,
        bots_after=body.bots_after,
        address=address,
    )
    service.wake()
    return out


@router.get("/api/queue/{ticket}", response_model=TicketOut)
async def read_ticket(ticket: TicketId, request: Request, token: Token) -> TicketOut:
    """The ticket's state: waiting (with the table being gathered), matched (with the table,
    the seat and the seat's token, as join answers them), or left."""
    return await _service(request).matchmaker.ticket(ticket, token)


@router.delete("/api/queue/{ticket}", response_model=TicketOut)
async def leave_queue(ticket: TicketId, request: Request, token: Token) -> TicketOut:
    """Leave the queue: this ticket is never seated. 409 `already_matched` if it was first."""
    service = _service(request)
    out = await service.matchmaker.leave(ticket, token)
    service.wake()
    return out


@router.post("/api/queue/{ticket}/bots", response_model=TicketOut)
async def accept_bots(
    ticket: TicketId, request: Request, token: Token, body: AcceptBots | None = None
) -> TicketOut:
    """After the wait the player picked: a table of their size (any: 4) now, with the waiting
    players who fit and bots in the other seats; the game starts. The body is optional:
    `{"kind": "hard"}` seats hard bots (default: the normal, heuristic bot)."""
    service = _service(request)
    out = await service.matchmaker.accept_bots(
        ticket, token, kind=body.kind if body else "heuristic"
    )
    service.wake()
    return out


# -- the socket ---------------------------------------------------------------------------------


@router.websocket("/ws/queue")
async def queue_socket(ws: WebSocket) -> None:
    service = _service(ws)
    await admit(ws, "queue", spectator=False, serve=lambda: _serve(ws, service))


async def _serve(ws: WebSocket, service: QueueService) -> None:
    ticket = ws.query_params.get("ticket") or ""
    token = ws.query_params.get("token")
    if not _TICKET_ID.fullmatch(ticket):
        await refuse(ws, Code.TICKET_NOT_FOUND, "there is no such ticket", CLOSE_NOT_FOUND)
        return
    matchmaker = service.matchmaker
    try:
        await matchmaker.ticket(ticket, token)
    except ServiceError as exc:
        close = CLOSE_NOT_FOUND if exc.code == Code.TICKET_NOT_FOUND else CLOSE_POLICY
        await refuse(ws, exc.code, exc.message, close)
        return
    settings = service.settings
    conn = Connection(
        ws=ws,
        table_id=f"queue:{ticket}",
        seat=None,
        name=None,
        queue_limit=settings.send_queue_limit,
        send_timeout=settings.send_timeout_seconds,
    )
    conn.address = client_address(ws.scope, ws.app.state.trusted_proxies)
    writer = asyncio.create_task(conn.run_writer())
    # The bucket the socket's control frames spend too (app.wire.frames), when served so.
    limiter = frame_budget(ws.scope) or TokenBucket(settings.rate_per_second, settings.rate_burst)
    service.add(ticket, conn)
    try:
        await service.socket_opened(ticket)
        await service.tell([ticket])
        while not conn.closing:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                broken = BROKEN_FRAMING.get(frame.get("code") or 0)
                if broken:
                    protocol_error(ws.app.state.metrics, conn, broken)
                break
            raw = frame.get("text")
            if raw is None:
                raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
            if not limiter.allow():
                ws.app.state.metrics.refused(Code.RATE_LIMITED, address=conn.address, queue=ticket)
                conn.send(ErrorOut(code=Code.RATE_LIMITED, message="too many messages; slow down"))
                conn.close(CLOSE_POLICY, "rate limit exceeded")
                break
            if len(raw.encode("utf-8")) > settings.max_message_bytes:
                conn.send(ErrorOut(code=Code.MESSAGE_TOO_LARGE, message="message too large"))
                conn.close(CLOSE_TOO_BIG, "message too large")
                break
            await _handle(service, conn, ticket, token, raw, ws.app.state.metrics)
    except Exception as exc:
        if is_outage(exc):
            log.warning("queue socket of %s: database unavailable: %r", ticket, exc)
        elif not isinstance(exc, RuntimeError):
            log.exception("queue socket of %s failed", ticket)
    finally:
        if service.remove(ticket, conn) and not service.closed:
            with contextlib.suppress(Exception):
                await service.socket_closed(ticket)
        conn.close(CLOSE_NORMAL)
        try:
            await asyncio.wait_for(writer, timeout=5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


async def _handle(
    service: QueueService,
    conn: Connection,
    ticket: str,
    token: str | None,
    raw: str,
    metrics: Metrics,
) -> None:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        protocol_error(metrics, conn, Code.MALFORMED_JSON)
        conn.send(ErrorOut(code=Code.MALFORMED_JSON, message="a message is one JSON object"))
        return
    kind = data.get("type") if isinstance(data, dict) else None
    if kind not in QUEUE_CLIENT_TYPES:
        protocol_error(metrics, conn, Code.UNKNOWN_TYPE)
        conn.send(
            ErrorOut(
                code=Code.UNKNOWN_TYPE,
                message=f"unknown message type {kind!r}; send one of "
                f"{', '.join(QUEUE_CLIENT_TYPES)}",
            )
        )
        return
    try:
        message = queue_client_message.validate_python(data)
    except ValidationError as exc:
        protocol_error(metrics, conn, Code.INVALID_MESSAGE)
        conn.send(ErrorOut(code=Code.INVALID_MESSAGE, message=str(exc.errors()[0]["msg"])[:300]))
        return
    if isinstance(message, PingIn):
        conn.send(PongOut())
        return
    try:
        if isinstance(message, QueueBotsIn):
            await service.matchmaker.accept_bots(ticket, token, kind=message.kind)
        else:
            await service.matchmaker.leave(ticket, token)
    except ServiceError as exc:
        conn.send(ErrorOut(code=exc.code, message=exc.message))
    # Matched or left: this socket (and any other of the ticket) is told, then closed.
    service.wake()
    await service.tell([ticket])
