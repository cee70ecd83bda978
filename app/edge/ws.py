"""The table socket: `/ws/tables/{id}?token=...&since=...` (no token: a spectator).

Table chat on the same socket (app.table.feed): `chat_since=<last line id seen>` replays the lines
missed, `viewer=<key>` keeps a spectator's label across reconnections.

The socket tier is thin: it parses each frame into a typed message, answers anything else with an
`error` (never crashing the socket), enforces the limits and hands actions to the table's room.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app.core.errors import Code, ServiceError, is_outage
from app.core.messages import (
    CHAT_TYPES,
    CLIENT_TYPES,
    ActionIn,
    ErrorOut,
    PingIn,
    PongOut,
    client_message,
)
from app.core.metrics import Metrics
from app.core.schemas import ID_PATTERN
from app.edge.ratelimit import client_address
from app.edge.sockets import admit, refuse
from app.edge.ws_frames import frame_budget
from app.store import arrivals
from app.store.arrivals import Arrival
from app.store.ports import ReadModel
from app.store.records import utcnow
from app.table.connections import (
    CLOSE_NORMAL,
    CLOSE_NOT_FOUND,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
    Connection,
    RateLimiter,
)
from app.table.hub import Hub
from app.table.room import Room

log = logging.getLogger("dragonstones.ws")
router = APIRouter()

# Close codes the WebSocket layer gives a client that broke the framing: a protocol error,
# text that is not UTF-8, a frame beyond its size cap.
BROKEN_FRAMING = {1002: "protocol_error", 1007: "invalid_utf8", 1009: "frame_too_large"}
# Error codes of frames that are not messages of the protocol (counted as protocol errors).
MALFORMED_CODES = frozenset({"malformed_json", "malformed", "unknown_type", "invalid_message"})
MAX_SINCE = 2**31 - 1
_TABLE_ID = re.compile(ID_PATTERN)
_SINCE = re.compile(r"-?[0-9]{1,10}")


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    token = ws.query_params.get("token")
    await admit(ws, table_id, spectator=token is None, serve=lambda: _serve(ws, table_id, token))


async def _serve(ws: WebSocket, table_id: str, token: str | None) -> None:
    hub: Hub = ws.app.state.hub
    reads: ReadModel = ws.app.state.reads
    settings = hub.settings
    # Identifiers are checked before anything reaches the database.
    if not _TABLE_ID.fullmatch(table_id):
        await refuse(ws, Code.NOT_FOUND, "there is no table with such an id", CLOSE_NOT_FOUND)
        return
    since: int | None = None
    since_raw = ws.query_params.get("since")
    if since_raw is not None:
        since = _since(since_raw)
        if since is None:
            await refuse(
                ws, Code.INVALID_SINCE, "since must be the last version you saw", CLOSE_POLICY
            )
            return
    # Table chat: the last line seen, validated like `since`.
    chat_since: int | None = None
    chat_since_raw = ws.query_params.get("chat_since")
    if chat_since_raw is not None:
        chat_since = _since(chat_since_raw)
        if chat_since is None:
            await refuse(
                ws, Code.INVALID_SINCE, "chat_since must be the last chat line id you saw",
                CLOSE_POLICY,
            )  # fmt: skip
            return
    arrival: Arrival | None = None
    try:
        seat_id: int | None = None
        if not hub.store.db.sqlite and (token is not None or not _held(hub, table_id)):
            # Postgres: one statement (app.store.arrivals); the table only if not in memory.
            held = hub.peek(table_id)
            want = held is None or not held.audience.rows_fresh()
            arrival = (
                await arrivals.arrive(
                    hub.store, table_id, token, utcnow(), want,
                    held.audience.tell() if held else f"{table_id}:@{hub.bus.origin}",
                    time.monotonic(),
                    # the feed's last lines, unless its memory has them
                    0 if held is not None and held.feed.last is not None
                    else settings.chat_replay_lines,
                )
                if token is not None
                else await arrivals.look(hub.store, table_id, time.monotonic())
            )  # fmt: skip
            seat, name, seat_id = arrival.seat, arrival.name, arrival.seat_id
            if token is None and arrival.rows is not None and arrival.rows.table.status == "closed":
                raise ServiceError(
                    Code.TABLE_CLOSED, "this table closed: nobody was connected to it"
                )
        elif token is not None:
            seat_row = await reads.seat_for_token(table_id, token)
            seat, name, seat_id = seat_row.seat, seat_row.name, seat_row.id
        elif _held(hub, table_id):
            # A spectator of a table held in memory: no database read.
            if hub.rooms[table_id].audience.table_status == "closed":
                raise ServiceError(
                    Code.TABLE_CLOSED, "this table closed: nobody was connected to it"
                )
            seat, name = None, None
        else:
            if (await reads.table(table_id)).table.status == "closed":
                raise ServiceError(
                    Code.TABLE_CLOSED, "this table closed: nobody was connected to it"
                )
            seat, name = None, None
        # A seat's socket at a closed table is told and closed by the room (Room.connect).
    except ServiceError as exc:
        close_code = CLOSE_NOT_FOUND if exc.code == "not_found" else CLOSE_POLICY
        await refuse(ws, exc.code, exc.message, close_code)
        return
    except Exception as exc:
        if not is_outage(exc):
            raise
        log.warning("socket of table %s refused, database unavailable: %r", table_id, exc)
        await refuse(
            ws, Code.UNAVAILABLE, "the database did not answer; reconnect shortly", CLOSE_TRY_AGAIN
        )
        return

    conn = Connection(
        ws=ws,
        table_id=table_id,
        seat=seat,
        name=name,
        queue_limit=settings.send_queue_limit,
        send_timeout=settings.send_timeout_seconds,
        seat_row=seat_id,
    )
    conn.address = address = client_address(ws.scope, ws.app.state.trusted_proxies)
    conn.cap_kernel_buffer(settings.socket_send_buffer_bytes)
    room = hub.room(table_id)
    writer = asyncio.create_task(conn.run_writer())
    # The bucket the socket's control frames spend too (app.edge.ws_frames), when served so.
    limiter = frame_budget(ws.scope) or RateLimiter(settings.rate_per_second, settings.rate_burst)
    try:
        await room.connect(conn, since, arrival)
        await room.feed.join(
            conn,
            chat_since,
            ws.query_params.get("viewer"),
            address,
            arrival.chat_last if arrival is not None else None,
            arrival.chat if arrival is not None else None,
        )
        while not conn.closing:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                broken = BROKEN_FRAMING.get(frame.get("code") or 0)
                if broken:
                    protocol_error(hub.metrics, conn, broken)
                break
            raw = frame.get("text")
            if raw is None:
                raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
            if not limiter.allow():
                hub.metrics.refused(Code.RATE_LIMITED, address=address, table=table_id)
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
        if is_outage(exc):
            # The database failed while the room loaded: the client reconnects with `since`.
            log.warning("socket of table %s closed, database unavailable: %r", table_id, exc)
            conn.send(ErrorOut(code=Code.UNAVAILABLE, message="the database did not answer"))
            conn.close(CLOSE_TRY_AGAIN, "database unavailable; reconnect shortly")
        elif ws.client_state == WebSocketState.CONNECTED and not isinstance(exc, RuntimeError):
            log.exception("socket of table %s failed", table_id)
    finally:
        room.feed.leave(conn)
        await room.disconnect(conn)
        conn.close(CLOSE_NORMAL)
        try:
            await asyncio.wait_for(writer, timeout=5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


def _held(hub: Hub, table_id: str) -> bool:
    """The table's room holds its table, fresh, in memory (a spectator needs no read)."""
    room = hub.peek(table_id)
    return room is not None and room.audience.table_frame is not None and room.audience.rows_fresh()


def _since(raw: str) -> int | None:
    """The version a client saw: -1 (none) to 2**31 - 1; None for anything else."""
    if not _SINCE.fullmatch(raw):
        return None
    value = int(raw)
    return value if -1 <= value <= MAX_SINCE else None


def protocol_error(metrics: Metrics, conn: Connection, code: str) -> None:
    """Count a frame (or a socket) that broke the protocol; log the first of each socket."""
    conn.protocol_errors += 1
    metrics.protocol_error(
        code, first=conn.protocol_errors == 1, table=conn.table_id, address=conn.address,
        note="later ones on this socket are counted, not logged",
    )  # fmt: skip


def _send_error(room: Room, conn: Connection, error: ErrorOut) -> None:
    if error.code in MALFORMED_CODES:
        protocol_error(room.hub.metrics, conn, error.code)
    conn.send(error)


async def _handle(room: Room, conn: Connection, raw: str) -> None:
    try:
        # The standard parser, not orjson: big integers and NaN must reach validation and
        # the engine, which answer them with precise codes.
        data = json.loads(raw)
    except (ValueError, RecursionError):
        _send_error(
            room, conn, ErrorOut(code="malformed_json", message="a message is one JSON object")
        )
        return
    if not isinstance(data, dict):
        _send_error(
            room, conn, ErrorOut(code="malformed", message="a message is a JSON object with a type")
        )
        return
    action_id = data.get("action_id") if isinstance(data.get("action_id"), str) else None
    kind = data.get("type")
    if kind in CHAT_TYPES:
        await room.feed.handle(conn, data)
        return
    if kind not in CLIENT_TYPES:
        known = ", ".join((*CLIENT_TYPES, *CHAT_TYPES))
        _send_error(
            room,
            conn,
            ErrorOut(
                code="unknown_type",
                message=f"unknown message type {kind!r}; send one of {known}",
                action_id=action_id,
            ),
        )
        return
    try:
        message = client_message.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'message'}: {err['msg']}"
            for err in exc.errors()
        )
        _send_error(
            room,
            conn,
            ErrorOut(code="invalid_message", message=problems[:500], action_id=action_id),
        )
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
        ack = await room.submit(seat=conn.seat, action=message.action, action_id=message.action_id)
    except ServiceError as exc:
        conn.send(ErrorOut(code=exc.code, message=exc.message, action_id=message.action_id))
        return
    conn.send(ack)
