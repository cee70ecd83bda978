"""Whether the database answers now: `SELECT 1` within a time limit (the readiness probe,
app.edge.readiness)."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.store.errors import mapped


@mapped
class SqlHealth:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def problem(self, timeout: float) -> str | None:
        """None when `SELECT 1` succeeds within `timeout`, else what went wrong, in a few words."""
        try:
            async with asyncio.timeout(timeout), self.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except TimeoutError:
            return f"no answer within {timeout:g} s"
        except Exception as exc:  # any failure to reach the database means not ready
            return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".strip()
        return None
