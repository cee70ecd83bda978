"""Helpers of the time-limit and stand-in tests: a scripted person who lets chosen prompts run
out, and database stamps as Unix seconds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.server.harness import SeatClient


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
    let_run_out: list[str] = field(default_factory=list)

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
