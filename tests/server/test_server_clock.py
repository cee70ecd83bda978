"""The server's clock (app.core.clock), in process: real time unless a test moves it; a move wakes
every sleeper and returns once the tasks it woke have done their work."""

from __future__ import annotations

import asyncio
import time

import pytest

from app.core.clock import ServerClock


def _movable() -> ServerClock:
    clock = ServerClock()
    clock.movable = True
    return clock


async def test_a_move_wakes_a_timer_only_once_it_is_due_and_waits_for_its_work() -> None:
    clock = _movable()
    done: list[float] = []

    async def timer() -> None:
        await clock.sleep(60)
        await asyncio.sleep(0.05)  # its work, after the wake-up
        done.append(clock.time())

    task = asyncio.create_task(timer())
    await asyncio.sleep(0)
    before = clock.time()
    assert await clock.advance(30)  # not due: it goes back to sleep
    assert not done
    assert await clock.advance(31)
    assert done and done[0] >= before + 61  # done by the time the move returned
    await task
    # Both clocks moved together.
    assert clock.time() - time.time() == pytest.approx(61, abs=0.1)
    assert clock.monotonic() - time.monotonic() == pytest.approx(61, abs=0.1)


async def test_wait_ends_when_its_event_is_set_or_the_clock_passes_its_timeout() -> None:
    clock = _movable()
    event = asyncio.Event()
    waiting = asyncio.create_task(clock.wait(event, 30))
    await asyncio.sleep(0)
    event.set()
    assert await asyncio.wait_for(waiting, 5) is True
    event.clear()
    waiting = asyncio.create_task(clock.wait(event, 30))
    await asyncio.sleep(0)
    assert await clock.advance(30)
    assert waiting.done() and waiting.result() is False


async def test_the_real_clock_keeps_real_time_and_cannot_be_moved() -> None:
    clock = ServerClock()
    assert clock.time() == pytest.approx(time.time(), abs=0.1)
    assert clock.now().timestamp() == pytest.approx(time.time(), abs=0.1)
    with pytest.raises(RuntimeError):
        await clock.advance(1)
    began = time.monotonic()
    await clock.sleep(0.05)
    assert time.monotonic() - began >= 0.05
    assert await clock.wait(asyncio.Event(), 0.01) is False
