"""Helpers of the time-limit and stand-in tests: a scripted person who lets chosen prompts run
out, moving the servers' clocks whenever the game waits only for seats that will not answer, and
database stamps as Unix seconds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from tests.server.harness import SeatClient, advance


def stamp(value: Any) -> float:
    """A DateTime column as Unix seconds (SQLite gives naive UTC text, Postgres aware values)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return float(value.timestamp())


@dataclass(eq=False)
class Scripted(SeatClient):
    """A person who answers with `strategy`, except: `first_bid` is their first bid, and the first
    prompt of each kind in `silent_kinds` is left to run out."""

    first_bid: dict[str, Any] | None = None
    silent_kinds: set[str] = field(default_factory=set)
    silent: bool = False  # True: never answers anything
    handled: set[tuple[Any, ...]] = field(default_factory=set)
    silenced: set[tuple[Any, ...]] = field(default_factory=set)  # the prompts it lets run out
    let_run_out: list[str] = field(default_factory=list)

    def waits_it_out(self, version: int | None) -> bool:
        """At `version`, this seat's open prompt is one it lets run out."""
        prompt = self.my_prompt() if self.version == version else None
        return prompt is not None and self.prompt_key(prompt) in self.silenced

    def prompt_key(self, prompt: dict[str, Any]) -> tuple[Any, ...]:
        view = self.view or {}
        if prompt["kind"] == "choose":
            return ("choose", self.version)  # each step of a power is a decision of its own
        auction = view.get("auction") or {}
        return (prompt["kind"], view.get("turn"), auction.get("number"), prompt.get("character"))

    async def maybe_act(self) -> None:
        if self.pending is not None or self.over:
            return
        prompt = self.my_prompt()
        if prompt is None:
            return
        key = self.prompt_key(prompt)
        if key in self.handled:
            return
        self.handled.add(key)
        kind = prompt["kind"]
        if self.silent or (kind in self.silent_kinds and kind not in self.let_run_out):
            self.let_run_out.append(kind)
            self.silenced.add(key)
            return
        if kind == "bid" and self.first_bid is not None:
            action, self.first_bid = self.first_bid, None
        else:
            assert self.strategy is not None
            action = self.strategy(self, prompt)
        await self.send_action(action)


def notices(
    client: SeatClient, kinds: tuple[str, ...] = ("stand_in", "back")
) -> list[dict[str, Any]]:
    """The table's notices of these kinds this socket received (lines of the feed's `notices`
    channel, live or replayed on connect), each once, in order."""
    seen: dict[int, dict[str, Any]] = {}
    for m in client.messages:
        lines = [m["line"]] if m["type"] == "chat" else m.get("lines", [])
        for line in lines if m["type"] in ("chat", "chat_lines") else []:
            if line["channel"] == "notices" and line["kind"] in kinds:
                seen[line["id"]] = line
    return [seen[i] for i in sorted(seen)]


def is_notice(kind: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate for wait_for: a message that brings a notice of this kind."""

    def match(m: dict[str, Any]) -> bool:
        lines = [m["line"]] if m["type"] == "chat" else m.get("lines", [])
        return m["type"] in ("chat", "chat_lines") and any(
            line["channel"] == "notices" and line["kind"] == kind for line in lines
        )

    return match


async def move_clocks_while_waiting(
    watcher: SeatClient,
    silent: Callable[[int], bool],
    servers: Sequence[httpx.AsyncClient],
    step: float,
) -> int:
    """Until `watcher` (a spectator reading its socket meanwhile) sees the game over: whenever
    every seat the game waits for is one that will not answer (`silent(seat)`), move the clocks
    of `servers` (started with TEST_CLOCK) `step` seconds, past the time limit, and wait for the
    game to move on. Nothing else can move it then, so which seats time out never depends on how
    fast the machine is. Returns how many times it moved them."""
    moves = 0
    moved_at: tuple[int, float] | None = None  # the version it last moved at, and when
    while not watcher.over:
        await asyncio.sleep(0.02)
        version, asked = watcher.version, [p["seat"] for p in watcher.prompts]
        if version is None or not asked or not all(silent(seat) for seat in asked):
            continue
        # Once per version; again only if a time-out was held up (it retries on the clock).
        if moved_at is not None and moved_at[0] == version and time.monotonic() < moved_at[1] + 2:
            continue
        await asyncio.gather(*(advance(http, step) for http in servers))
        moves += 1
        moved_at = (version, time.monotonic())
    return moves
