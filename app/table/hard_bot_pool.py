"""Hard bots think here: in a pool of worker processes, off the event loop, so that the actions,
frames and timers of other games are not delayed while a search runs.

Each decision is a fresh `engine.HardBot` seeded from the seat's bot seed and the game's version:
the worker keeps nothing between decisions, and the same seat at the same version decides alike.
The pool (`hard_bot_workers` processes, started on the first decision) is made with "spawn", not
"fork": a fork of a server with threads (aiosqlite's) could inherit a held lock. Each worker
exits when the server does, even when the server is killed (`end_with_parent`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import engine

log = logging.getLogger("dragonstones.thinking")


def decision_seed(bot_seed: int, version: int) -> int:
    digest = hashlib.sha256(f"dragonstones-hard:{bot_seed}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def start_worker(niceness: int) -> None:
    """In each worker, once: end with the server, and think at a lower priority."""
    end_with_parent()
    lower_priority(niceness)


def end_with_parent() -> None:
    """Exit as soon as the server process is gone, however it went (SIGKILL runs no shutdown).
    An idle worker waits on its call queue, whose pipe it holds both ends of, so it would
    never see the server go; an orphaned pool also keeps multiprocessing's resource tracker
    alive, which exits (unlinking the pool's semaphores) once no process holds its pipe.
    The sign: multiprocessing's own pipe from the parent, which reads end-of-file when the
    parent's end closes, that is when the parent exits."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def lower_priority(niceness: int) -> None:
    """A lower CPU priority than the server's, so that on a busy machine the event loop
    (people's actions, frames, timers) is scheduled before the searches. The budget is CPU
    time: a search gets its full budget, only later."""
    if niceness > 0:
        os.nice(niceness)


def think(
    seed: int, view: dict[str, Any], prompt: dict[str, Any], seconds: float, playouts: int
) -> engine.Action:
    """In a worker: one decision of the hard bot, stopped by its CPU time or its playouts."""
    from engine.hard import HardBot

    bot = HardBot(seed, playouts=playouts, clock=time.process_time, seconds=seconds or None)
    return bot.act(view, prompt)


class Thinkers:
    """This process's pool of worker processes for the hard bots."""

    def __init__(self, workers: int, seconds: float, playouts: int, niceness: int = 10) -> None:
        self.workers = max(1, workers)
        self.niceness = niceness
        self.seconds = seconds
        self.playouts = playouts
        self.pool: ProcessPoolExecutor | None = None

    async def decide(
        self, bot_seed: int, version: int, view: dict[str, Any], prompt: dict[str, Any]
    ) -> engine.Action:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(self.niceness,),
            )
            log.info(
                "hard bots think in %d worker process(es), %.3g s of CPU per decision, "
                "niceness +%d",
                self.workers,
                self.seconds,
                self.niceness,
            )
        pool = self.pool
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(
                pool,
                think,
                decision_seed(bot_seed, version),
                view,
                prompt,
                self.seconds,
                self.playouts,
            )
        except BrokenProcessPool:
            # A worker died (killed, out of memory): the next decision starts a new pool.
            log.warning("the hard bots' process pool broke; starting a new one")
            if self.pool is pool:
                self.pool = None
            raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
