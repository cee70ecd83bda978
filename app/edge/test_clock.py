"""POST /test/clock: moves the server's clock forward (`app.core.clock`), on a server started with
TEST_CLOCK only (for tests; the route does not exist otherwise). It answers once the timers it
woke have done their work, so a test that waits for a time limit, a grace period or a heartbeat
moves the clock and then reads the result. Outside /api/, so the rate limits never refuse it."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.core.clock import server_clock

log = logging.getLogger("dragonstones.clock")

router = APIRouter(include_in_schema=False)


class ClockMove(BaseModel):
    seconds: float = Field(gt=0, le=86_400, description="how far to move the clock forward")


class ClockMoved(BaseModel):
    offset: float = Field(description="how far the clock is ahead of real time, in seconds")
    settled: bool = Field(description="every timer it woke went back to sleep or finished")


def enable(offset: float) -> None:
    """At start, on a server with TEST_CLOCK: set its clock `offset` seconds off real time,
    let tests move it, and say loudly that they can."""
    server_clock.movable = True
    server_clock.offset = offset
    log.warning(
        "TEST_CLOCK is set (%s): POST /test/clock moves this server's clock. This is for "
        "tests only: never on a server people play on.",
        offset,
    )


@router.post("/test/clock")
async def move_clock(move: ClockMove) -> ClockMoved:
    settled = await server_clock.advance(move.seconds)
    return ClockMoved(offset=server_clock.offset, settled=settled)
