"""Logging: one line per event (JSON with LOG_FORMAT=json), and seat tokens kept out of every line
(sockets carry them in the query string, which uvicorn's access log would print).

What a client can make the server write is bounded: every path, URL and field is cut short, the
refusals of one address are written within its budget (app.core.refusals: uvicorn's access lines
of 4xx answers included), and a refused socket's handshake writes no line of uvicorn's besides our
own `refused` line.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from contextvars import ContextVar
from typing import Any

from app.core.refusals import REFUSALS, address_key

# A spectator's viewer key is a credential too (it speaks under the spectator's label).
TOKEN_IN_QUERY = re.compile(r"((?:token|viewer)=)[^&\s\"']+")
_OURS = "dragonstones"
# The longest argument or field (a path, a URL, a name) written whole; longer ones are cut.
MAX_FIELD_CHARS = 200
# Set by the socket's task while it refuses a handshake (app.edge.sockets): uvicorn's line saying
# the socket was accepted is then not written (the refusal's own line says what happened).
REFUSING_HANDSHAKE: ContextVar[bool] = ContextVar("dragonstones_refusing", default=False)
_ACCEPTED = '%s - "WebSocket %s" [accepted]'
# websockets' own lines for every socket, which say nothing uvicorn's line does not.
_NOISE = frozenset({"connection open", "connection closed"})


events = logging.getLogger("dragonstones.events")


def event(name: str, **fields: Any) -> None:
    """One structured line: `LOG_FORMAT=json` turns it into one JSON object."""
    events.info(name, extra={"fields": fields})


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            text += " " + " ".join(f"{k}={v}" for k, v in fields.items())
        return text


class QuietProtocolErrors(logging.Filter):
    """uvicorn logs invalid UTF-8 from a client with a traceback; the socket then closes with
    1007, which the socket's own code counts and logs in one line (app.metrics.protocol_error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Invalid UTF-8 sequence received from client")


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return f"{value[:MAX_FIELD_CHARS]}...({len(value)} characters)"
    return value


class ShortFields(logging.Filter):
    """Cuts every argument and field of a line to MAX_FIELD_CHARS (a 7,000-character URL is
    written as its first 200)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_short", False):  # by the logger's filter, before the handler's
            return True
        setattr(record, "_short", True)  # noqa: B010
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(_short(a) for a in record.args)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            setattr(record, "fields", {k: _short(v) for k, v in fields.items()})  # noqa: B010
        return True


class RefusalBudget(logging.Filter):
    """uvicorn's lines a client can multiply: an access line of a 4xx answer is written within
    its address's budget; a warning about a client's request (an invalid request...) within the
    budget of its kind; the handshake line of a socket being refused, and websockets' own
    "connection open", not at all."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_budgeted", False):
            return True
        setattr(record, "_budgeted", True)  # noqa: B010
        args = record.args
        if record.name == "uvicorn.access":
            # uvicorn's access record: (client "host:port", method, path, version, status).
            status = args[4] if isinstance(args, tuple) and len(args) == 5 else None
            if isinstance(status, int) and 400 <= status < 500:
                host = str(args[0]).rsplit(":", 1)[0].strip("[]")  # type: ignore[index]
                return REFUSALS.take(address_key(host))
            return True
        if not isinstance(record.msg, str):
            return True
        if record.msg in _NOISE:
            return False
        if record.msg == _ACCEPTED and REFUSING_HANDSHAKE.get():
            return False
        if record.levelno == logging.WARNING and not args:
            return REFUSALS.take(f"clients ({record.msg[:60]})")
        return True


class HideTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message or "viewer=" in message:
            record.msg = TOKEN_IN_QUERY.sub(r"\1<hidden>", message)
            record.args = ()
        return True


def install(
    log_format: str = "text",
    level: str = "info",
    *,
    refusal_lines: int = 5,
    refusal_window: float = 60.0,
) -> None:
    """Our loggers get one handler of their own (they do not also propagate to the root, so no
    line is written twice); every handler of ours and of uvicorn cuts long fields, hides tokens,
    and speaks JSON when asked; refusals are written within each address's budget
    (`refusal_lines` per `refusal_window` seconds)."""
    REFUSALS.configure(refusal_lines, refusal_window)
    formatter: logging.Formatter = (
        JsonFormatter()
        if log_format.lower() == "json"
        else TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    ours = logging.getLogger(_OURS)
    if not any(getattr(h, "_dragonstones", False) for h in ours.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler._dragonstones = True  # type: ignore[attr-defined]
        ours.addHandler(handler)
    ours.setLevel(level.upper())
    ours.propagate = False
    uvicorn_errors = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietProtocolErrors) for f in uvicorn_errors.filters):
        uvicorn_errors.addFilter(QuietProtocolErrors())
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RefusalBudget) for f in logger.filters):
            logger.addFilter(RefusalBudget())
    for name in (_OURS, "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        # Cut first, then hide: a token cut in half is still hidden.
        for kind in (ShortFields, HideTokens):
            if not any(isinstance(f, kind) for f in logger.filters):
                logger.addFilter(kind())
        for each in logger.handlers:
            for kind in (ShortFields, HideTokens):
                if not any(isinstance(f, kind) for f in each.filters):
                    each.addFilter(kind())
            if name == _OURS or log_format.lower() == "json":
                each.setFormatter(formatter)
