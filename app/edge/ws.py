"""The table socket: `/ws/tables/{id}?token=...&since=...` (no token: a spectator); `deltas=1`
asks for `delta` frames after the first `state` (app.table.live_game).

Table chat on the same socket (app.table.chat): `chat_since=<last line id seen>` replays the lines
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
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app.core.errors import Code, ServiceError, StoreError
from app.core.messages import (
    CHAT_TYPES,
    CLIENT_TYPES,
    ActionIn,
    ErrorOut,
    PingIn,
    PongOut,
    SyncIn,
    client_message,
)
from app.core.metrics import Metrics
from app.core.schemas import ID_PATTERN
from app.core.security import hash_token
from app.edge.ratelimit import client_address
from app.edge.sockets import admit, refuse
from app.store.records import Arrival, Noted, utcnow
from app.table import extra_time
from app.table.hub import Hub
from app.table.room import Room
from app.wire.buckets import TokenBucket
from app.wire.codes import (
    CLOSE_NORMAL,
    CLOSE_NOT_FOUND,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
)
from app.wire.frames import frame_budget
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.ws")
router = APIRouter()

# Close codes the WebSocket layer gives a client that broke the framing: a protocol error,
# text that is not UTF-8, a frame beyond its size cap.
BROKEN_FRAMING = {1002: "protocol_error", 1007: "invalid_utf8", 1009: "frame_too_large"}
# Error codes of frames that are not messages of the protocol (counted as protocol errors).
MALFORMED_CODES = frozenset({"malformed_json", "malformed", "unknown_type", "invalid_message"})
MAX_SINCE = 2**31 - 1
SPECTATORS_CANNOT_ACT = "spectators cannot act; join the table to play"
_TABLE_ID = re.compile(ID_PATTERN)
_SINCE = re.compile(r"-?[0-9]{1,10}")


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    token = ws.query_params.get("token")
    await admit(ws, table_id, spectator=token is None, serve=lambda: _serve(ws, table_id, token))


async def _serve(ws: WebSocket, table_id: str, token: str | None) -> None:
    hub: Hub = ws.app.state.hub
    asked = await _asked(ws, table_id)
    if asked is None:
        return  # refused
    since, chat_since = asked
    try:
        arrival = await _arrive(hub, table_id, token)
    except ServiceError as exc:
        close_code = CLOSE_NOT_FOUND if exc.code == "not_found" else CLOSE_POLICY
        await refuse(ws, exc.code, exc.message, close_code)
        return
    except StoreError as exc:
        log.warning("socket of table %s refused, database unavailable: %r", table_id, exc)
        await refuse(
            ws, Code.UNAVAILABLE, "the database did not answer; reconnect shortly", CLOSE_TRY_AGAIN
        )
        return
    # A seat's socket at a closed table is told and closed by the room (Room.connect).
    settings = hub.settings
    conn = Connection(
        ws=ws,
        table_id=table_id,
        seat=arrival.seat if arrival else None,
        name=arrival.name if arrival else None,
        queue_limit=settings.send_queue_limit,
        send_timeout=settings.send_timeout_seconds,
        seat_row=arrival.seat_id if arrival else None,
    )
    conn.address = client_address(ws.scope, ws.app.state.trusted_proxies)
    conn.deltas = ws.query_params.get("deltas") == "1"
    conn.cap_kernel_buffer(settings.socket_send_buffer_bytes)
    room = hub.room(table_id)
    writer = asyncio.create_task(conn.run_writer())
    try:
        await room.connect(conn, since, arrival)
        await room.feed.join(
            conn,
            chat_since,
            ws.query_params.get("viewer"),
            conn.address,
            arrival.chat_last if arrival is not None else None,
            arrival.chat if arrival is not None else None,
        )
        await _receive(ws, room, conn)
    except Exception as exc:  # the peer vanished mid-receive, or a bug: never leave the room dirty
        if isinstance(exc, StoreError):
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


async def _asked(ws: WebSocket, table_id: str) -> tuple[int | None, int | None] | None:
    """The socket's `since` and `chat_since`, checked before anything reaches the database; None
    once the socket is refused."""
    if not _TABLE_ID.fullmatch(table_id):
        await refuse(ws, Code.NOT_FOUND, "there is no table with such an id", CLOSE_NOT_FOUND)
        return None
    asked: list[int | None] = []
    for key, what in (
        ("since", "the last version you saw"),
        ("chat_since", "the last chat line id you saw"),
    ):
        raw = ws.query_params.get(key)
        value = None if raw is None else _since(raw)
        if raw is not None and value is None:
            await refuse(ws, Code.INVALID_SINCE, f"{key} must be {what}", CLOSE_POLICY)
            return None
        asked.append(value)
    return asked[0], asked[1]


async def _arrive(hub: Hub, table_id: str, token: str | None) -> Arrival | None:
    """Who arrives, in one call to the store (app.store.arrivals): a seat (its token checked, its
    presence written, the other processes told) or a spectator, with what the room does not hold
    in memory of the table and its feed. None: a spectator of a table held here (no read)."""
    held = hub.peek(table_id)
    fresh = held is not None and held.audience.rows_fresh()
    if token is None:
        if held is not None and fresh and held.audience.table_frame is not None:
            closed = held.audience.table_status == "closed"
            arrival = None
        else:
            arrival = await hub.arrivals.look(table_id, time.monotonic())
            closed = arrival.rows is not None and arrival.rows.table.status == "closed"
        if closed:
            raise ServiceError(Code.TABLE_CLOSED, "this table closed: nobody was connected to it")
        return arrival
    if held is not None and fresh:
        remembered = await _remembered(hub, held, table_id, token)
        if remembered is not None:
            return remembered
    return await hub.arrivals.arrive(
        table_id,
        token,
        utcnow(),
        want_table=not fresh,
        tell=held.audience.tell() if held else hub.bus.tell(table_id),
        read_at=time.monotonic(),
        # the feed's last lines, unless its memory has them
        chat_lines=0
        if held is not None and held.feed.last is not None
        else hub.settings.chat_replay_lines,
    )


async def _remembered(hub: Hub, room: Room, table_id: str, token: str) -> Arrival | None:
    """A seat found by its token in the table's rows the room holds (their seats' token hashes),
    its token checked and its presence written together with the other arrivals of the moment
    (app.store.arrival_batch): no read of the table, no round trip of its own. None: ask the
    database alone (the token is unknown here, or no longer holds that seat)."""
    rows = room.audience.table_rows
    digest = hash_token(token)
    seat_id = rows.tokens.get(digest) if rows is not None else None
    seat = next((s for s in rows.seats if s.id == seat_id), None) if rows and seat_id else None
    if rows is None or seat is None:
        return None
    if not await hub.arrivals.noted(Noted(table_id, seat.id, digest, room.audience.tell())):
        return None
    has_game = room.game is not None or rows.game is not None
    return Arrival(seat.id, seat.seat, seat.name, has_game, None)


async def _receive(ws: WebSocket, room: Room, conn: Connection) -> None:
    """Read the socket's frames until it closes: each within the limits, then handled."""
    hub, settings = room.hub, room.hub.settings
    # The bucket the socket's control frames spend too (app.wire.frames), when served so.
    limiter = frame_budget(ws.scope) or TokenBucket(settings.rate_per_second, settings.rate_burst)
    while not conn.closing:
        frame = await ws.receive()
        if frame["type"] == "websocket.disconnect":
            broken = BROKEN_FRAMING.get(frame.get("code") or 0)
            if broken:
                protocol_error(hub.metrics, conn, broken)
            return
        raw = frame.get("text")
        if raw is None:
            raw = (frame.get("bytes") or b"").decode("utf-8", errors="replace")
        if not limiter.allow():
            hub.metrics.refused(Code.RATE_LIMITED, address=conn.address, table=conn.table_id)
            conn.send(ErrorOut(code="rate_limited", message="too many messages; slow down"))
            conn.close(CLOSE_POLICY, "rate limit exceeded")
            return
        if len(raw.encode("utf-8")) > settings.max_message_bytes:
            conn.send(
                ErrorOut(
                    code="message_too_large",
                    message=f"a message may hold {settings.max_message_bytes} bytes at most",
                )
            )
            conn.close(CLOSE_TOO_BIG, "message too large")
            return
        await _handle(room, conn, raw)


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


def _bad_action(room: Room, conn: Connection, data: dict[str, Any], exc: ValidationError) -> bool:
    """Answer a well-formed action message whose action has no known shape (an object all the
    same) as the engine would: `malformed`, counted as a refused action; a spectator is told it
    cannot act first. False: the message itself is at fault (`invalid_message`)."""
    errors = exc.errors()  # located from the message's kind: ("action", "action", ...)
    if not isinstance(data.get("action"), dict) or any(
        e["loc"][:2] != ("action", "action") for e in errors
    ):
        return False
    action_id = data["action_id"]  # valid: no error is outside the action
    if conn.seat is None:
        error = ErrorOut(code=Code.SPECTATOR, message=SPECTATORS_CANNOT_ACT, action_id=action_id)
    else:
        room.hub.metrics.refused(Code.MALFORMED, table=room.table_id, seat=conn.seat)
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][3:]) or 'type'}: {e['msg']}" for e in errors
        )
        error = ErrorOut(code=Code.MALFORMED, message=problems[:500], action_id=action_id)
    conn.send(error)
    return True


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
    if kind == "more_time":
        await extra_time.handle(room, conn, data)
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
        if _bad_action(room, conn, data, exc):
            return
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
    if isinstance(message, SyncIn):
        room.audience.resync(conn, message.since)
        return
    assert isinstance(message, ActionIn)
    if conn.seat is None:
        conn.send(
            ErrorOut(code="spectator", message=SPECTATORS_CANNOT_ACT, action_id=message.action_id)
        )
        return
    try:
        ack = await room.submit(
            seat=conn.seat, action=message.action.engine_action(), action_id=message.action_id
        )
    except ServiceError as exc:
        conn.send(ErrorOut(code=exc.code, message=exc.message, action_id=message.action_id))
        return
    conn.send(ack)
