"""The table socket: `/ws/tables/{id}?token=...&since=...` (no token: a spectator).

The socket tier is thin: it parses each frame into a typed message, answers anything else with an
`error` (never crashing the socket), enforces the limits and hands actions to the table's room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app.connections import (
    CLOSE_NORMAL,
    CLOSE_NOT_FOUND,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
    Connection,
    RateLimiter,
)
from app.errors import DATABASE_ERRORS, UNAVAILABLE_MESSAGE, Code, ServiceError
from app.game.hub import Hub
from app.game.room import Room
from app.messages import CLIENT_TYPES, ActionIn, ErrorOut, PingIn, PongOut, client_message
from app.queries import Queries

log = logging.getLogger("dragonstones.ws")
router = APIRouter()


async def _refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    """Refuse a connection before it joins the table: say why, then close."""
    with contextlib.suppress(Exception):
        await ws.send_text(ErrorOut(code=code, message=message).model_dump_json())
        await ws.close(code=close_code, reason=code)


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    hub: Hub = ws.app.state.hub
    queries: Queries = ws.app.state.queries
    settings = hub.settings
    await ws.accept()

    token = ws.query_params.get("token")
    since: int | None = None
    since_raw = ws.query_params.get("since")
    if since_raw is not None:
        try:
            since = int(since_raw)
        except ValueError:
            await _refuse(
                ws, "invalid_since", "since must be the last version you saw", CLOSE_POLICY
            )
            return
    try:
        if token is not None:
            seat_row = await queries.seat_for_token(table_id, token)
            seat, name = seat_row.seat, seat_row.name
        else:
            await queries.table(table_id)
            seat, name = None, None
    except ServiceError as exc:
        close_code = CLOSE_NOT_FOUND if exc.code == "not_found" else CLOSE_POLICY
        await _refuse(ws, exc.code, exc.message, close_code)
        return
    except DATABASE_ERRORS:
        await _refuse(ws, Code.UNAVAILABLE, UNAVAILABLE_MESSAGE, CLOSE_TRY_AGAIN)
        return

    conn = Connection(
        ws=ws,
        table_id=table_id,
        seat=seat,
        name=name,
        queue_limit=settings.send_queue_limit,
        send_timeout=settings.send_timeout_seconds,
    )
    room = hub.room(table_id)
    writer = asyncio.create_task(conn.run_writer())
    limiter = RateLimiter(settings.rate_per_second, settings.rate_burst)
    try:
        try:
            await room.connect(conn, since)
        except DATABASE_ERRORS:
            conn.send(ErrorOut(code=Code.UNAVAILABLE, message=UNAVAILABLE_MESSAGE))
            conn.close(CLOSE_TRY_AGAIN, "the database does not answer; reconnect in a moment")
        while not conn.closing:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
            if not limiter.allow():
                conn.send(ErrorOut(code="rate_limited", message="too many messages; slow down"))
                conn.close(CLOSE_POLICY, "rate limit exceeded")
                break
            if len(raw.encode("utf-8")) > settings.max_message_bytes:
                conn.send(
                    ErrorOut(
                        code="message_too_large",
                        message=f"a message may hold {settings.max_message_bytes} bytes at most",
                    )
                )
                conn.close(CLOSE_TOO_BIG, "message too large")
                break
            await _handle(room, conn, raw)
    except Exception as exc:  # the peer vanished mid-receive, or a bug: never leave the room dirty
        if ws.client_state == WebSocketState.CONNECTED and not isinstance(exc, RuntimeError):
            log.exception("socket of table %s failed", table_id)
    finally:
        await room.disconnect(conn)
        conn.close(CLOSE_NORMAL)
        try:
            await asyncio.wait_for(writer, timeout=5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


async def _handle(room: Room, conn: Connection, raw: str) -> None:
    try:
        # The standard parser, not orjson: big integers and NaN must reach validation and
        # the engine, which answer them with precise codes.
        data = json.loads(raw)
    except (ValueError, RecursionError):
        conn.send(ErrorOut(code="malformed_json", message="a message is one JSON object"))
        return
    if not isinstance(data, dict):
        conn.send(ErrorOut(code="malformed", message="a message is a JSON object with a type"))
        return
    action_id = data.get("action_id") if isinstance(data.get("action_id"), str) else None
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        conn.send(
            ErrorOut(
                code="unknown_type",
                message=f"unknown message type {kind!r}; send one of {', '.join(CLIENT_TYPES)}",
                action_id=action_id,
            )
        )
        return
    try:
        message = client_message.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'message'}: {err['msg']}"
            for err in exc.errors()
        )
        conn.send(ErrorOut(code="invalid_message", message=problems[:500], action_id=action_id))
        return
    if isinstance(message, PingIn):
        conn.send(PongOut())
        return
    assert isinstance(message, ActionIn)
    if conn.seat is None:
        conn.send(
            ErrorOut(
                code="spectator",
                message="spectators cannot act; join the table to play",
                action_id=message.action_id,
            )
        )
        return
    try:
        ack = await room.submit(
            seat=conn.seat, action=message.action, action_id=message.action_id
        )
    except ServiceError as exc:
        conn.send(ErrorOut(code=exc.code, message=exc.message, action_id=message.action_id))
        return
    conn.send(ack)
