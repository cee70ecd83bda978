"""A server killed with SIGKILL (the OOM killer, `kill -9`, a crashed supervisor) leaves no process
behind: the hard bots' workers and multiprocessing's resource tracker end with it."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import httpx

from tests.server.harness import (
    Database,
    ServerProcess,
    add_bots,
    create_table,
    join,
    start,
)


def _started(pid: int) -> str | None:
    """The start time of a running process (field 22 of /proc/pid/stat), None once it has
    exited (gone, or a zombie nobody reaped yet): with the pid it names one process, never a
    later one that reused the pid."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _descendants(pid: int) -> dict[int, str]:
    """Every process below `pid` (children, grandchildren...), with its start time."""
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{parent}/task"):
                with contextlib.suppress(OSError):
                    children = Path(f"/proc/{parent}/task/{task}/children").read_text().split()
                    for child in map(int, children):
                        started = _started(child)
                        if started is not None and child not in found:
                            found[child] = started
                            todo.append(child)
    return found


def _alive(processes: dict[int, str]) -> list[int]:
    return [pid for pid, started in processes.items() if _started(pid) == started]


async def test_sigkill_of_the_server_leaves_no_worker_or_resource_tracker(
    sqlite_db: Database, server_factory: object
) -> None:
    server: ServerProcess = server_factory(  # type: ignore[operator]
        sqlite_db, HARD_BOT_WORKERS="2", HARD_BOT_SECONDS="0.5"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 6, timed=False)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 5, "hard")
        await start(http, ann)  # five hard bots think about their first bids at once
        # The pool's first worker (more start while one is busy) and the resource tracker.
        deadline = time.monotonic() + 60
        processes = _descendants(server.proc.pid)
        while len(processes) < 2:
            assert time.monotonic() < deadline, f"no workers: {processes}\n{server.log()}"
            time.sleep(0.05)
            processes = _descendants(server.proc.pid)
    commands = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in processes}
    assert any(b"resource_tracker" in c for c in commands.values()), commands
    server.kill()
    deadline = time.monotonic() + 5
    while _alive(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _alive(processes)
    for pid in left:  # never leave them to the next test
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    assert not left, f"still running 5 s after the server's SIGKILL: {left} of {processes}"
