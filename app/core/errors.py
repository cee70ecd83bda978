"""Error codes in one enum with the HTTP status each answers, the refused-request exception, and
the store's own errors (the database away, a write another writer got in first).

Inside the server a refusal is a `ServiceError` carrying a stable code; nothing below the edge knows
about HTTP. Routes answer `{"detail": {"code", "message"}}` with the status mapped here (the edge's
handlers, app.edge.http_errors); sockets send the code itself in an `error` message. The engine's own codes (`not_your_turn`, `unaffordable`...)
pass through unchanged and answer 400.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Every code the server itself answers with (the engine adds its own)."""

    NOT_FOUND = "not_found"
    NO_BOT = "no_bot"
    NO_OPEN_TABLE = "no_open_table"  # quick play with open_only: no open table fits
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
    INVALID_NAME = "invalid_name"
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
    FORBIDDEN = "forbidden"  # /metrics from an address outside METRICS_ALLOWED_NETWORKS
    HTTP_ERROR = "http_error"
    TOO_MANY_SOCKETS = "too_many_sockets"
    # -- timers and absent players --
    GAME_OVER = "game_over"
    SEAT_ONLINE = "seat_online"
    TOO_EARLY = "too_early"
    OWN_SEAT = "own_seat"
    NOT_A_PERSON = "not_a_person"
    ALREADY_STAND_IN = "already_stand_in"
    NO_STAND_IN = "no_stand_in"
    NOT_YOUR_SEAT = "not_your_seat"
    # --- matchmaking queue ---
    TICKET_NOT_FOUND = "ticket_not_found"
    ALREADY_MATCHED = "already_matched"
    LEFT_QUEUE = "left_queue"
    BOTS_NOT_YET = "bots_not_yet"
    TOO_MANY_TICKETS = "too_many_tickets"
    # Table chat: answered on the socket, which stays open.
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_CHANNEL = "chat_channel"
    CHAT_RATE_LIMITED = "chat_rate_limited"
    # -- hosts, presence and rematch --
    NOT_HOST = "not_host"
    NO_SEAT = "no_seat"
    TABLE_CLOSED = "table_closed"
    REMOVED = "removed"
    # -- the connection layer: answered before a request reaches the application --
    TOO_MANY_CONNECTIONS = "too_many_connections"
    REQUEST_TIMEOUT = "request_timeout"
    HEAD_TOO_LARGE = "head_too_large"
    # -- a table flood from one address --
    TOO_MANY_TABLES = "too_many_tables"
    # -- more time for a decision: answered on the socket, which stays open --
    NO_TIME_LIMIT = "no_time_limit"
    NO_MORE_TIME = "no_more_time"
    # -- players who come back: the browser's player and one-time sign-in links --
    NOT_SIGNED_IN = "not_signed_in"
    CLAIM_UNKNOWN = "claim_unknown"
    CLAIM_USED = "claim_used"
    CLAIM_EXPIRED = "claim_expired"
    PLAYER_NOT_FOUND = "player_not_found"
    NOT_MEMBER = "not_member"  # a friends' league's page asked by someone not in it


STATUS: dict[str, int] = {
    Code.NOT_FOUND: 404,
    Code.NO_BOT: 404,
    Code.NO_OPEN_TABLE: 404,
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
    Code.FORBIDDEN: 403,
    Code.UNAVAILABLE: 503,
    Code.INTERNAL_ERROR: 500,
    # -- timers and absent players --
    Code.GAME_OVER: 409,
    Code.SEAT_ONLINE: 409,
    Code.TOO_EARLY: 409,
    Code.OWN_SEAT: 409,
    Code.NOT_A_PERSON: 409,
    Code.ALREADY_STAND_IN: 409,
    Code.NO_STAND_IN: 409,
    Code.NOT_YOUR_SEAT: 403,
    # --- matchmaking queue ---
    Code.TICKET_NOT_FOUND: 404,
    Code.ALREADY_MATCHED: 409,
    Code.LEFT_QUEUE: 409,
    Code.BOTS_NOT_YET: 409,
    Code.TOO_MANY_TICKETS: 429,
    # -- hosts, presence and rematch --
    Code.NOT_HOST: 403,
    Code.NO_SEAT: 404,
    Code.TABLE_CLOSED: 410,
    # -- the connection layer --
    Code.TOO_MANY_CONNECTIONS: 429,
    Code.REQUEST_TIMEOUT: 408,
    Code.HEAD_TOO_LARGE: 431,
    # -- a table flood from one address --
    Code.TOO_MANY_TABLES: 429,
    Code.NO_TIME_LIMIT: 409,
    Code.NO_MORE_TIME: 409,
    # -- players who come back --
    Code.NOT_SIGNED_IN: 401,
    Code.CLAIM_UNKNOWN: 404,
    Code.CLAIM_USED: 410,
    Code.CLAIM_EXPIRED: 410,
    Code.PLAYER_NOT_FOUND: 404,
    Code.NOT_MEMBER: 403,
}


class ServiceError(Exception):
    """A refused request: nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)


class StoreError(Exception):
    """The store failed: it raises nothing else of the database's (app.store maps the driver's
    exceptions to these). Nothing is known to have changed; the request may be retried. Answered
    503 `unavailable`, never 500 with a traceback."""


class StoreUnavailable(StoreError):
    """The database (or the network to it) did not answer."""


class StoreConflict(StoreError):
    """Another writer got in first: a unique key or a guard refused the write, which changed
    nothing. Looking again and retrying may succeed."""


UNAVAILABLE_MESSAGE = "the database did not answer; try again shortly"


def is_outage(exc: BaseException) -> bool:
    """The database is away (or refused a write another writer got in first): the store said so."""
    return isinstance(exc, StoreError)


def unavailable() -> ServiceError:
    return ServiceError(Code.UNAVAILABLE, UNAVAILABLE_MESSAGE)
