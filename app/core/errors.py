"""Error codes in one enum, the refused-request exception, and the edge that maps codes to HTTP.

Inside the server a refusal is a `ServiceError` carrying a stable code; nothing below the edge knows
about HTTP. Routes answer `{"detail": {"code", "message"}}` with the status mapped here; sockets send
the code itself in an `error` message. The engine's own codes (`not_your_turn`, `unaffordable`...)
pass through unchanged and answer 400.
"""

from __future__ import annotations

import logging
from enum import StrEnum

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

log = logging.getLogger("dragonstones.errors")


def _short(exc: BaseException) -> str:
    """One line about a failure, for the log (no traceback: an outage is not a bug)."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]


class Code(StrEnum):
    """Every code the server itself answers with (the engine adds its own)."""

    NOT_FOUND = "not_found"
    NO_BOT = "no_bot"
    GAME_NOT_FOUND = "game_not_found"
    MISSING_TOKEN = "missing_token"
    INVALID_TOKEN = "invalid_token"
    NOT_SEATED = "not_seated"
    TABLE_FULL = "table_full"
    ALREADY_STARTED = "already_started"
    NOT_STARTED = "not_started"
    NOT_OVER = "not_over"
    NOT_ENOUGH_SEATS = "not_enough_seats"
    SEATS_EMPTY = "seats_empty"
    NAME_TAKEN = "name_taken"
    CONFLICT = "conflict"
    DUPLICATE_ACTION_ID = "duplicate_action_id"
    UNAVAILABLE = "unavailable"
    INTERNAL_ERROR = "internal_error"
    INVALID_REQUEST = "invalid_request"
    INVALID_SINCE = "invalid_since"
    SPECTATOR = "spectator"
    RATE_LIMITED = "rate_limited"
    MESSAGE_TOO_LARGE = "message_too_large"
    MALFORMED_JSON = "malformed_json"
    MALFORMED = "malformed"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_MESSAGE = "invalid_message"
    BODY_TOO_LARGE = "body_too_large"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    UNAUTHORIZED = "unauthorized"
    HTTP_ERROR = "http_error"
    TOO_MANY_SOCKETS = "too_many_sockets"
    # -- timers and absent players (issue 8) --
    GAME_OVER = "game_over"
    SEAT_ONLINE = "seat_online"
    TOO_EARLY = "too_early"
    OWN_SEAT = "own_seat"
    NOT_A_PERSON = "not_a_person"
    ALREADY_STAND_IN = "already_stand_in"
    NO_STAND_IN = "no_stand_in"
    NOT_YOUR_SEAT = "not_your_seat"
    # --- matchmaking queue (issue 8) ---
    TICKET_NOT_FOUND = "ticket_not_found"
    ALREADY_MATCHED = "already_matched"
    LEFT_QUEUE = "left_queue"
    BOTS_NOT_YET = "bots_not_yet"
    TOO_MANY_TICKETS = "too_many_tickets"
    # Table chat (issue 8): answered on the socket, which stays open.
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_CHANNEL = "chat_channel"
    CHAT_RATE_LIMITED = "chat_rate_limited"
    # -- hosts, presence and rematch (issue 8, lobby) --
    NOT_HOST = "not_host"
    NO_SEAT = "no_seat"
    TABLE_CLOSED = "table_closed"
    REMOVED = "removed"


STATUS: dict[str, int] = {
    Code.NOT_FOUND: 404,
    Code.NO_BOT: 404,
    Code.GAME_NOT_FOUND: 404,
    Code.MISSING_TOKEN: 401,
    Code.INVALID_TOKEN: 401,
    Code.NOT_SEATED: 403,
    Code.TABLE_FULL: 409,
    Code.ALREADY_STARTED: 409,
    Code.NOT_STARTED: 409,
    Code.NOT_OVER: 409,
    Code.NOT_ENOUGH_SEATS: 409,
    Code.SEATS_EMPTY: 409,
    Code.NAME_TAKEN: 409,
    Code.CONFLICT: 409,
    Code.DUPLICATE_ACTION_ID: 409,
    Code.RATE_LIMITED: 429,
    Code.UNAVAILABLE: 503,
    Code.INTERNAL_ERROR: 500,
    # -- timers and absent players (issue 8) --
    Code.GAME_OVER: 409,
    Code.SEAT_ONLINE: 409,
    Code.TOO_EARLY: 409,
    Code.OWN_SEAT: 409,
    Code.NOT_A_PERSON: 409,
    Code.ALREADY_STAND_IN: 409,
    Code.NO_STAND_IN: 409,
    Code.NOT_YOUR_SEAT: 403,
    # --- matchmaking queue (issue 8) ---
    Code.TICKET_NOT_FOUND: 404,
    Code.ALREADY_MATCHED: 409,
    Code.LEFT_QUEUE: 409,
    Code.BOTS_NOT_YET: 409,
    Code.TOO_MANY_TICKETS: 429,
    # -- hosts, presence and rematch (issue 8, lobby) --
    Code.NOT_HOST: 403,
    Code.NO_SEAT: 404,
    Code.TABLE_CLOSED: 410,
}

# The code of an HTTP error raised by the framework itself (unknown route, wrong method).
_FRAMEWORK_CODES = {404: Code.NOT_FOUND, 405: Code.METHOD_NOT_ALLOWED, 401: Code.UNAUTHORIZED}


class ServiceError(Exception):
    """A refused request: nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)


# The database (or the network to it) failing, through SQLAlchemy or asyncpg used directly: the
# request may be retried, nothing is known to have changed. Answered 503 `unavailable`, never 500
# with a traceback.
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    SQLAlchemyError,
    OSError,
    TimeoutError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)
UNAVAILABLE_MESSAGE = "the database did not answer; try again shortly"


def is_outage(exc: BaseException) -> bool:
    return isinstance(exc, DATABASE_ERRORS)


def unavailable() -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, UNAVAILABLE_MESSAGE)


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"detail": {"code": str(code), "message": message}}


def install(app: FastAPI) -> None:
    """Answer every refusal, ours or the framework's, with the same JSON body."""

    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        return JSONResponse(error_body(Code.INVALID_REQUEST, problems), status_code=422)

    async def _outage(_request: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable: %s", _short(exc))
        return JSONResponse(
            error_body(Code.UNAVAILABLE, UNAVAILABLE_MESSAGE),
            status_code=503,
            headers={"Retry-After": "2"},
        )

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, _outage)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail: object = exc.detail
        if not isinstance(detail, dict):
            code = _FRAMEWORK_CODES.get(exc.status_code, Code.HTTP_ERROR)
            detail = {"code": str(code), "message": str(exc.detail)}
        headers = exc.headers
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(app, request))}
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=headers)


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route serves at this path (the framework names only the first
    route's: `OPTIONS /api/tables` would say POST and forget GET)."""
    return [
        method
        for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL
            for route in app.router.routes
        )
    ]
