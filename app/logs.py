"""The server's logging: its own lines printed once, through one handler; seat tokens kept out
(sockets carry them in the query string)."""

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
    # The server's own lines go through one handler of their own, at uvicorn's level, and do not
    # propagate: a second handler up the tree (the root's, set by a logging config, Alembic's
    # fileConfig or an embedding application) would print every line twice. Without a handler
    # they went to Python's last resort, which drops everything under WARNING.
    ours = logging.getLogger("dragonstones")
    if not any(isinstance(h, _OurHandler) for h in ours.handlers):
        handler = _OurHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-8s [%(name)s] %(message)s"))
        # On the handler: a logger's filters do not see its children's records.
        handler.addFilter(HideTokens())
        ours.addHandler(handler)
    ours.setLevel(logging.getLogger("uvicorn").getEffectiveLevel())
    ours.propagate = False


class _OurHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """stderr, like uvicorn's own lines."""
