"""What an operator measures: Prometheus metrics (served at `/metrics`), and the events worth a
structured log line (written by app.core.logs). Seat tokens never appear in either.

Each process has its own registry, so that several apps in one process (tests) do not mix counts.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from app.core.logs import event
from app.core.logs import events as log
from app.core.refusals import REFUSALS, address_key

CONTENT_TYPE = CONTENT_TYPE_LATEST  # what /metrics answers with

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
GC_BUCKETS = (  # seconds (bench/load.py reads them too)
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.games_live = Gauge(
            "dragonstones_games_live", "games being played in this process", registry=r
        )
        self.sockets_open = Gauge(
            "dragonstones_sockets_open", "open table sockets", ["role"], registry=r
        )
        self.actions = Counter(
            "dragonstones_actions_committed", "actions committed", ["kind"], registry=r
        )
        self.commit_seconds = Histogram(
            "dragonstones_commit_seconds",
            "time to commit one action",
            registry=r,
            buckets=_LATENCY_BUCKETS,
        )
        self.ack_seconds = Histogram(
            "dragonstones_action_ack_seconds",
            "time from an action's arrival to its acknowledgement",
            registry=r,
            buckets=_LATENCY_BUCKETS,
        )
        self.errors = Counter(
            "dragonstones_errors", "requests and messages refused, by code", ["code"], registry=r
        )
        self.conflicts = Counter(
            "dragonstones_version_conflicts",
            "commits that found the game moved on by another process",
            registry=r,
        )
        self.protocol_errors = Counter(
            "dragonstones_protocol_errors",
            "frames and sockets refused as malformed (invalid UTF-8, bad JSON, unknown types...)",
            ["code"], registry=r,
        )  # fmt: skip
        self.documents = Counter(
            "dragonstones_game_documents_computed",
            "finished games' replays and records computed (then served from memory)", ["kind"],
            registry=r,
        )  # fmt: skip
        self.notifications = Counter(
            "dragonstones_notifications_received",
            "commit notifications received from the database",
            registry=r,
        )
        self.tables_read_again = Counter(
            "dragonstones_tables_read_again",
            "lobby notices on which a table held here was read again (not the seat and "
            "settings changes this process made: it told its sockets when it made them)",
            registry=r,
        )
        self.remote_versions = Counter(
            "dragonstones_remote_versions",
            "versions other processes committed, applied here from their notification or read "
            "back from the database",
            ["how"], registry=r,
        )  # fmt: skip
        self.connections_open = Gauge(
            "dragonstones_connections_open",
            "TCP connections this process holds (HTTP and WebSocket)", registry=r,
        )  # fmt: skip
        self.connections_dropped = Counter(
            "dragonstones_connections_dropped",
            "connections refused at accept or closed before their request arrived, by reason",
            ["reason"], registry=r,
        )  # fmt: skip
        # Web Push (app.table.push): sent, failed (why), not sent (why).
        self.push_sent = Counter("dragonstones_push_sent", "pushes a push service took", registry=r)
        self.push_failures = Counter(
            "dragonstones_push_failures",
            "pushes not delivered, by reason (unreachable: no way out to the push service; gone: "
            "the subscription ended; gave_up: retries spent...)", ["reason"], registry=r,
        )  # fmt: skip
        self.push_skipped = Counter(
            "dragonstones_push_skipped",
            "pushes not sent on purpose (watching: a socket is open; rate_limited)", ["why"],
            registry=r,
        )  # fmt: skip
        self.push_lookups = Counter(
            "dragonstones_push_lookups",
            "reads of a table's seated people and their presence, for a push (the others were "
            "decided from this process's memory)", registry=r,
        )  # fmt: skip
        # Every collection holds the event loop, and so every game of the process, for as long
        # as it takes: at 1,000 games the middle generation's took 116-148 ms (bench/RESULTS.md).
        self.gc_pause_seconds = Histogram(
            "dragonstones_gc_pause_seconds",
            "collections of Python's cyclic garbage collector in this process, by generation "
            "(each holds every game of the process for its length); fed by the server's "
            "watch_collector", ["generation"], buckets=GC_BUCKETS, registry=r,
        )  # fmt: skip
        for role in ("player", "spectator"):
            self.sockets_open.labels(role)
        self._gc_pause_of = [self.gc_pause_seconds.labels(str(g)) for g in range(3)]
        # Each action kind's counter child, looked up once (labels() takes a lock per call).
        self._actions_of: dict[str, Any] = {}

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def watch_collector(self) -> None:
        """Time every collection of the cyclic garbage collector into gc_pause_seconds (from
        its start to its end, as the event loop waits it out), for the rest of the process. The
        collector is the process's own: one server per process watches it (app.cli)."""
        started = [0.0]
        pauses = self._gc_pause_of

        def timed(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                pauses[info["generation"]].observe(time.perf_counter() - started[0])

        gc.callbacks.append(timed)

    # -- events: a metric and a log line ------------------------------------------------------

    def committed(
        self,
        *,
        table_id: str,
        seat: int,
        version: int,
        kind: str,
        started: float,
        commit_started: float,
        by: str,
    ) -> None:
        now = time.perf_counter()
        counter = self._actions_of.get(kind)
        if counter is None:
            counter = self._actions_of[kind] = self.actions.labels(kind)
        counter.inc()
        self.commit_seconds.observe(now - commit_started)
        # One line per action only at the debug level: at INFO it cost about 5% of the CPU of
        # an action; the counters above say how many.
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "action_committed",
                extra={
                    "fields": {
                        "table": table_id,
                        "seat": seat,
                        "version": version,
                        "kind": kind,
                        "by": by,
                        "ms": round((now - started) * 1000, 2),
                    }
                },
            )

    def refused(self, code: str, **fields: Any) -> None:
        """A refused request, message or socket: counted every time; logged within the
        budget of its client address (or its table and seat), app.core.refusals."""
        self.errors.labels(code).inc()
        if log.isEnabledFor(logging.INFO) and REFUSALS.take(_who(fields)):
            event("refused", code=code, **fields)

    def protocol_error(self, code: str, *, first: bool, **fields: Any) -> None:
        """A client broke the protocol: counted every time, logged once per socket and within
        its address's budget (a client sending garbage must not be able to fill the log)."""
        self.protocol_errors.labels(code).inc()
        if first and log.isEnabledFor(logging.INFO) and REFUSALS.take(_who(fields)):
            event("protocol_error", code=code, **fields)

    def connection_dropped(self, reason: str, address: str, *, logged: bool = True) -> None:
        """The connection layer (app.edge.accept) refused a connection or closed it before its
        request arrived: counted; logged within the address's budget unless `logged` is off."""
        self.connections_dropped.labels(reason).inc()
        if logged and log.isEnabledFor(logging.INFO) and REFUSALS.take(address_key(address)):
            event("connection_dropped", reason=reason, address=address)

    def socket(self, opened: bool, *, table_id: str, seat: int | None) -> None:
        role = "spectator" if seat is None else "player"
        gauge = self.sockets_open.labels(role)
        gauge.inc() if opened else gauge.dec()
        if log.isEnabledFor(logging.INFO):
            event("socket_opened" if opened else "socket_closed", table=table_id, seat=seat)


def _who(fields: dict[str, Any]) -> str:
    """Whose log budget a refusal draws on: its client address, else its table and seat."""
    address = fields.get("address")
    if address:
        return address_key(str(address))
    return f"table {fields.get('table')} seat {fields.get('seat')}"
