"""Ports for the servers the tests start: each pytest-xdist worker takes them from a block of its
own, below the kernel's ephemeral range (where every client socket takes its local port), so two
workers, or a client socket, never take the port a server is about to bind."""

from __future__ import annotations

import itertools
import os
import random
import socket

BASE = 10_000  # Linux's ephemeral ports start at 32768
BLOCK = 2_000
BLOCKS = 11  # 10000-31999


def _worker_index() -> int:
    """gw0, gw1, ... under pytest-xdist; the last block for a run without workers."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and worker[2:].isdigit():
        return int(worker[2:]) % (BLOCKS - 1)
    return BLOCKS - 1


# A random start inside the block: two runs side by side (a developer's and CI's) rarely meet,
# and the bind check below skips a port that is taken.
_next = itertools.count(random.randrange(BLOCK))


def free_port() -> int:
    """A port of this worker's block that nothing listens on now."""
    first = BASE + _worker_index() * BLOCK
    for _ in range(BLOCK):
        port = first + next(_next) % BLOCK
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{first + BLOCK - 1}")
