"""Ports for the servers the tests start: each pytest-xdist worker takes them from a block of its
own, below the kernel's ephemeral range (where every client socket takes its local port), so two
workers, or a client socket, never take the port a server is about to bind. Never a port that
browsers refuse to fetch from (a page could not load from it)."""

from __future__ import annotations

import itertools
import os
import random
import socket

BASE = 10_000  # Linux's ephemeral ports start at 32768
BLOCK = 2_000
BLOCKS = 11  # 10000-31999

# The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking), which Chromium
# refuses with net::ERR_UNSAFE_PORT: a browser test whose server got 10080 failed to load the page.
BAD_PORTS = frozenset(
    {1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102}
    | {103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427}
    | {465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989}
    | {990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665}
    | {6666, 6667, 6668, 6669, 6679, 6697, 10080}
)


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
        if port in BAD_PORTS:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}-{first + BLOCK - 1}")
