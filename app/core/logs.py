"""Logging: one line per event (JSON with LOG_FORMAT=json), and seat tokens kept out of every line
(sockets carry them in the query string, which uvicorn's access log would print)."""

from __future__ import annotations

import logging
import re
import sys

from app.core.metrics import JsonFormatter, TextFormatter

# A spectator's viewer key is a credential too (it speaks under the spectator's label).
TOKEN_IN_QUERY = re.compile(r"((?:token|viewer)=)[^&\s\"']+")
_OURS = "dragonstones"


class QuietProtocolErrors(logging.Filter):
    """uvicorn logs invalid UTF-8 from a client with a traceback; the socket then closes with
    1007, which the socket's own code counts and logs in one line (app.metrics.protocol_error)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Invalid UTF-8 sequence received from client")


class HideTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message or "viewer=" in message:
            record.msg = TOKEN_IN_QUERY.sub(r"\1<hidden>", message)
            record.args = ()
        return True


def install(log_format: str = "text", level: str = "info") -> None:
    """Our loggers get one handler of their own (they do not also propagate to the root, so no
    line is written twice); every handler of ours and of uvicorn hides tokens, and speaks JSON
    when asked."""
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
    for name in (_OURS, "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, HideTokens) for f in logger.filters):
            logger.addFilter(HideTokens())
        for each in logger.handlers:
            if not any(isinstance(f, HideTokens) for f in each.filters):
                each.addFilter(HideTokens())
            if name == _OURS or log_format.lower() == "json":
                each.setFormatter(formatter)
