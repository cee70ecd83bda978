"""Keep seat tokens out of the logs: sockets carry them in the query string."""

from __future__ import annotations

import logging
import re

TOKEN_IN_QUERY = re.compile(r"(token=)[^&\s\"']+")


class HideTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message:
            record.msg = TOKEN_IN_QUERY.sub(r"\1<hidden>", message)
            record.args = ()
        return True


def install() -> None:
    for name in ("uvicorn.error", "uvicorn.access", "uvicorn", "dragonstones"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, HideTokens) for f in logger.filters):
            logger.addFilter(HideTokens())
