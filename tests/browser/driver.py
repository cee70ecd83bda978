"""Plays one seat over a real WebSocket from the test (a second socket on a seat a page holds, as
a second tab would): it answers every prompt of that seat with the smallest move (bid nothing, no
Silver, the first option), so a test can bring a game to a given point, or to its end, quickly.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.sync.client import connect

from tests.browser.conftest import Server
from tests.moves import smallest

State = dict[str, Any]


def seat_of(page: Any, table_id: str) -> dict[str, Any]:
    """The {seat, token, name} a page keeps in its local storage for this table."""
    raw = page.evaluate(f"() => window.localStorage.getItem('dragonstones.seat.{table_id}')")
    assert raw, "this page holds no seat at the table"
    seat: dict[str, Any] = json.loads(raw)
    return seat


def table_id_of(page: Any) -> str:
    return str(page.url.split("/t/", 1)[1].split("?", 1)[0])


class SeatDriver:
    def __init__(self, server: Server, table_id: str, token: str) -> None:
        self.url = f"ws://127.0.0.1:{server.port}/ws/tables/{table_id}?token={token}"
        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(self.url, open_timeout=10, max_size=2**22))
        self.seat: int | None = None
        self.state: State | None = None
        self.pending: str | None = None
        self.applied: int | None = None  # the version its ack named, while its state is due
        self.count = 0

    def __enter__(self) -> SeatDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def my_prompt(self) -> dict[str, Any] | None:
        if self.state is None:
            return None
        for p in self.state["prompts"]:
            if p["seat"] == self.seat and ("max" in p or "options" in p):
                return dict(p)
        return None

    def over(self) -> bool:
        return self.state is not None and self.state["view"]["winner"] is not None

    def play_until(
        self,
        done: Callable[[State], bool],
        timeout: float = 90.0,
        bid: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> State:
        """Answer this seat's prompts until `done(state)` holds for the latest state (checked
        before acting on it), or the game is over. `bid` decides the sealed bids (default: none)."""
        deadline = time.monotonic() + timeout
        while True:
            assert time.monotonic() < deadline, "the game did not reach the point in time"
            if self.state is not None and (done(self.state) or self.over()):
                return self.state
            prompt = self.my_prompt() if self.pending is None else None
            if prompt is not None:
                if prompt["kind"] == "bid" and bid is not None:
                    action = bid(prompt)
                else:
                    action = smallest(prompt)
                self.count += 1
                self.pending = f"drv-{self.count}-{time.monotonic_ns()}"[:64]
                self.ws.send(
                    json.dumps({"type": "action", "action": action, "action_id": self.pending})
                )
            msg = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if msg["type"] == "hello":
                self.seat = msg["seat"]
            elif msg["type"] == "state":
                self.state = msg
                if self.applied is not None and msg["version"] >= self.applied:
                    self.pending = self.applied = None
            elif msg["type"] == "ack" and msg.get("action_id") == self.pending:
                # The state that shows it applied may come after its ack: until it does, the
                # state held still asks the prompt answered (answered again, a `bid` callback
                # would be asked for one bid too many).
                version = msg.get("version")
                if isinstance(version, int) and (
                    self.state is None or version > self.state["version"]
                ):
                    self.applied = version
                else:
                    self.pending = None
            elif msg["type"] == "error" and msg.get("action_id") == self.pending:
                self.pending = self.applied = None

    def play_to_the_end(self, timeout: float = 120.0) -> State:
        return self.play_until(lambda s: False, timeout=timeout)
