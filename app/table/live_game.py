"""What a viewer receives: the one function that turns a live game into a viewer's `state` frame.

Everything a socket learns about a game passes through `state_frame`: the engine's view for the
seat, the engine's prompts for the seat, and the engine's visible events. The server decides
nothing about secrets here, it only asks the engine for this viewer's share.

Frames are built once per (version, viewer, since) and shared: every spectator of a table, and every
socket of one seat, gets the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

import engine
from app.core.clock import server_clock
from app.core.messages import StateOut


@dataclass(frozen=True, slots=True)
class Deadline:
    """When the open prompt times out (app.table.clock)."""

    key: str  # which prompt: its kind and the version that opened it ("bid-v12", "choose-v40")
    at: float  # Unix seconds

    def stamp(self) -> datetime:
        return datetime.fromtimestamp(self.at, UTC)


@dataclass(eq=False)
class LiveGame:
    """A game being played, as this process last committed or caught up with it."""

    id: str
    table_id: str
    players: int
    state: engine.State
    version: int
    over: bool
    # The raw events of each version (index 0: the opening), private ones included: they only
    # leave through engine.visible_events.
    events: list[list[dict[str, Any]]]
    # action_id -> (seat, version it produced): a retry is answered from memory. Ids of the
    # server's own actions start with "~", which clients may not send.
    action_ids: dict[str, tuple[int, int]]
    turn_seconds: int | None = None
    choose_seconds: int | None = None
    # When the open prompt times out, and which prompt (app.table.clock); as stored with the
    # action that opened it.
    deadline: Deadline | None = None
    committing: int = -1  # the version a commit of this process is writing now
    stale: bool = False  # a commit failed without an answer: reload before the next action
    # (seat, since) -> frame of the current version; emptied whenever the version moves.
    frames: dict[tuple[int | None, int], str] = field(default_factory=dict)
    frames_version: int = -1


def _tag(events: list[dict[str, Any]], version: int) -> list[dict[str, Any]]:
    return [{**e, "version": version} for e in events]


def state_frame(game: LiveGame, seat: int | None, since: int | None, max_gap: int) -> str:
    """The `state` frame of the current version for a viewer who has seen up to `since`
    (None: nothing yet; -1 asks for the log from the very start).

    `events_from` is `since` when the viewer's log can simply continue; otherwise the log is
    sent again from the start (or its last `max_gap` versions) with `resync` where the viewer
    asked for something else."""
    version = game.version
    start = -1 if since is None or since < 0 or since > version else since
    resync = since is not None and start != since
    if version - start > max_gap:
        start, resync = version - max_gap, True
    key = (seat, start if not resync else -2 - start)
    if game.frames_version != version:
        game.frames.clear()
        game.frames_version = version
    frame = game.frames.get(key)
    if frame is None:
        events: list[dict[str, Any]] = []
        for v in range(max(start + 1, 0), version + 1):
            events.extend(_tag(engine.visible_events(game.events[v], seat), v))
        message = StateOut.model_construct(
            type="state",
            game_id=game.id,
            version=version,
            view=engine.view(game.state, seat),
            prompts=engine.prompts(game.state, seat=seat),
            events_from=start,
            events=events,
            resync=resync,
            deadline=game.deadline.at if game.deadline else None,
            server_time=server_clock.time(),
        )
        # Every field is given (no defaults to compute) and plain JSON data: orjson writes it
        # several times faster than the model's own serializer, to the same text.
        frame = orjson.dumps(message.__dict__).decode("utf-8")
        game.frames[key] = frame
    return frame
