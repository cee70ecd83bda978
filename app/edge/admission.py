"""Who may open one more table socket in this process: at most `MAX_SOCKETS_PER_ADDRESS` from one
client address, `MAX_SPECTATORS_PER_TABLE` spectators at one table and `MAX_SOCKETS` in all; and
at most `SOCKET_RATE_BURST` new sockets at once from one address, `SOCKET_RATE_PER_SECOND` after
that (a reconnect storm rebuilds game logs and writes presence: `socket_rate_limited`).

Every socket costs memory and a writer task, so one client must not be able to hold thousands.
A socket beyond a limit is answered with an `error` (`too_many_sockets`) and closed with 4429
before it touches the database; it is not a socket that fell behind, so the client should not
reconnect at once.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from app.wire.buckets import Buckets


class Refused(Exception):
    def __init__(self, message: str, code: str = "too_many_sockets") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Admission:
    per_address: int
    per_table_spectators: int
    total: int
    by_address: Counter[str] = field(default_factory=Counter)
    spectators: Counter[str] = field(default_factory=Counter)
    open: int = 0
    # New sockets per address (None: not limited).
    arrivals: Buckets | None = None

    @contextlib.contextmanager
    def hold(self, address: str, table_id: str, spectator: bool) -> Iterator[None]:
        """Count one socket while it lives; Refused (counting nothing) beyond a limit."""
        if self.arrivals is not None:
            wait = self.arrivals.take(address)
            if wait > 0:
                raise Refused(
                    f"too many new sockets from your address; try again in {math.ceil(wait)} s",
                    code="socket_rate_limited",
                )
        if self.open >= self.total:
            raise Refused("the server holds as many sockets as it may; try again later")
        if self.by_address[address] >= self.per_address:
            raise Refused(f"at most {self.per_address} sockets from one address")
        if spectator and self.spectators[table_id] >= self.per_table_spectators:
            raise Refused(f"at most {self.per_table_spectators} spectators at one table")
        self.open += 1
        self.by_address[address] += 1
        if spectator:
            self.spectators[table_id] += 1
        try:
            yield
        finally:
            self.open -= 1
            _drop(self.by_address, address)
            if spectator:
                _drop(self.spectators, table_id)


def _drop(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]  # no entry per address ever seen
