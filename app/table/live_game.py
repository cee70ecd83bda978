"""What a viewer receives: the one function that turns a live game into a viewer's `state` frame.

Everything a socket learns about a game passes through `state_frame`: the engine's view for the
seat, the engine's prompts for the seat, and the engine's visible events. The server decides
nothing about secrets here, it only asks the engine for this viewer's share.

Frames are built once per (version, viewer, since) and shared: every spectator of a table, and every
socket of one seat, gets the same bytes.

A socket that asked for deltas (`?deltas=1`) and holds the version just before gets a `delta`
frame instead (`delta_frame`): the changes from that viewer's previous view and prompts to the
new ones, and the version's events, built once per (version, viewer). It is computed from the
viewer's own two views only, so it tells nothing the next `state` frame would not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

import engine
from app.core.clock import server_clock
from app.table.changes import changes


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
    stale: bool = False  # a commit failed without an answer: reload before the next action
    # (seat, since) -> frame of the current version, (seat, DELTA) -> its delta frame; emptied
    # whenever the version moves.
    frames: dict[tuple[int | None, int | str], str] = field(default_factory=dict)
    frames_version: int = -1
    # seat -> (version, {"view", "prompts"}) last sent to that viewer's delta-taking sockets:
    # the base of its next delta (its view shares all but "me" with the public one).
    docs: dict[int | None, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    # The public view of the latest version a delta-taking socket was sent, and the changes of
    # the public view into the current version: every viewer's view is the public one but for
    # "me", so the changes of the common part are found once per version, not once per viewer.
    public: tuple[int, dict[str, Any]] | None = None
    public_changes: tuple[int, list[list[Any]]] | None = None
    # The public view of one (version, state), built once: the clock reads the round from it
    # before the commit (app.table.clock), then every viewer's frame of that version is it
    # with the viewer's own "me" (engine.own).
    shared: tuple[int, engine.State, dict[str, Any]] | None = None
    # That public view as JSON, cut where its "me" goes: (version, before, after). A seat's
    # `state` frame is it with the seat's own "me" between, so the common part of the view is
    # encoded once per version, not once per viewer.
    shared_json: tuple[int, bytes, bytes] | None = None


DELTA = "delta"  # the key of a delta frame in LiveGame.frames


def _tag(events: list[dict[str, Any]], version: int) -> list[dict[str, Any]]:
    return [{**e, "version": version} for e in events]


def _frames(game: LiveGame) -> dict[tuple[int | None, int | str], str]:
    if game.frames_version != game.version:
        game.frames.clear()
        game.frames_version = game.version
    return game.frames


def public_view(game: LiveGame, state: engine.State, version: int) -> dict[str, Any]:
    """engine.view(state, None) of `state` at `version`, built once for the clock and every
    viewer (never changed in place by anyone: the frames and the deltas only read it)."""
    shared = game.shared
    if shared is not None and shared[0] == version and shared[1] is state:
        return shared[2]
    # Built from the view before: the players and records the state shares with it keep their
    # dicts (engine.public_view).
    view = engine.public_view(state, None if shared is None else (shared[1], shared[2]))
    game.shared = (version, state, view)
    return view


# Stands for "me" in the public view's JSON, where it is cut (no other string of a view holds a
# NUL character).
_ME = "\x00"
_ME_JSON = b'"me":"\\u0000"'


def _view_json(game: LiveGame, me: dict[str, Any] | None) -> orjson.Fragment:
    """The JSON of the current version's view whose "me" is `me`: the same bytes as
    `orjson.dumps({**public_view, "me": me})`, the public part encoded once per version."""
    cut = game.shared_json
    if cut is None or cut[0] != game.version:
        public = public_view(game, game.state, game.version)
        before, found, after = orjson.dumps({**public, "me": _ME}).partition(_ME_JSON)
        assert found, "a public view has a 'me'"
        cut = game.shared_json = (game.version, before + b'"me":', after)
    return orjson.Fragment(cut[1] + orjson.dumps(me) + cut[2])


def _public(game: LiveGame) -> dict[str, Any]:
    """The public view of the current version for the delta-taking sockets (and, when the
    previous one is at hand, the public changes into it)."""
    public = game.public
    if public is not None and public[0] == game.version:
        return public[1]
    view = public_view(game, game.state, game.version)
    if public is not None and public[0] == game.version - 1:
        game.public_changes = (game.version, changes(public[1], view, ["view"]))
    game.public = (game.version, view)
    return view


def _doc(game: LiveGame, seat: int | None, keep: bool) -> dict[str, Any]:
    """The viewer's view and prompts of the current version; `keep`: remembered as the base
    of its next delta."""
    entry = game.docs.get(seat)
    if entry is not None and entry[0] == game.version:
        return entry[1]
    public = _public(game) if keep else public_view(game, game.state, game.version)
    # The same dict as engine.view(state, seat): the public part is shared, not copied deep.
    view = public if seat is None else {**public, "me": engine.own(game.state, seat)}
    doc = {"view": view, "prompts": engine.prompts(game.state, seat=seat)}
    if game.over:
        game.docs.pop(seat, None)  # no version follows: this base is not needed any more
    elif keep:
        game.docs[seat] = (game.version, doc)
    return doc


def _changes(game: LiveGame, base: dict[str, Any], doc: dict[str, Any]) -> list[list[Any]]:
    """The changes from the viewer's base to its current document: the public changes of the
    version and its own "me" and prompts, or found whole when the public ones are not at hand."""
    shared = game.public_changes
    if shared is None or shared[0] != game.version:
        return changes(base, doc)
    own = changes(base["view"]["me"], doc["view"]["me"], ["view", "me"])
    return [*shared[1], *own, *changes(base["prompts"], doc["prompts"], ["prompts"])]


def state_frame(
    game: LiveGame, seat: int | None, since: int | None, max_gap: int, keep: bool = False
) -> str:
    """The `state` frame of the current version for a viewer who has seen up to `since`
    (None: nothing yet; -1 asks for the log from the very start). `keep`: the socket takes
    deltas, and this view is the base of its next one.

    `events_from` is `since` when the viewer's log can simply continue; otherwise the log is
    sent again from the start (or its last `max_gap` versions) with `resync` where the viewer
    asked for something else."""
    version = game.version
    start = -1 if since is None or since < 0 or since > version else since
    resync = since is not None and start != since
    if version - start > max_gap:
        start, resync = version - max_gap, True
    key = (seat, start if not resync else -2 - start)
    frames = _frames(game)
    frame = frames.get(key)
    if frame is not None:
        if keep:
            _doc(game, seat, keep)  # this viewer's next delta starts from here
        return frame
    doc = _doc(game, seat, keep)
    events: list[dict[str, Any]] = []
    for v in range(max(start + 1, 0), version + 1):
        events.extend(_tag(engine.visible_events(game.events[v], seat), v))
    # StateOut's fields in its order (tests/server/test_deltas.py checks them), every one
    # given and plain JSON data: orjson writes it several times faster than the model's own
    # serializer, to the same text, and a dict costs less than the model's construction.
    message = {
        "type": "state",
        "game_id": game.id,
        "version": version,
        "view": _view_json(game, doc["view"]["me"]),
        "prompts": doc["prompts"],
        "events_from": start,
        "events": events,
        "resync": resync,
        "deadline": game.deadline.at if game.deadline else None,
        "server_time": server_clock.time(),
    }
    frame = orjson.dumps(message).decode("utf-8")
    frames[key] = frame
    return frame


def delta_frame(game: LiveGame, seat: int | None) -> str | None:
    """The `delta` frame from the version before to the current one for this viewer; None when
    its base is not at hand (no delta-taking socket of this viewer was sent that version, or it
    was already replaced): send a `state` instead."""
    frames = _frames(game)
    frame = frames.get((seat, DELTA))
    if frame is not None:
        return frame
    version = game.version
    entry = game.docs.get(seat)
    if entry is None or entry[0] != version - 1:
        return None
    doc = _doc(game, seat, keep=True)
    message = {  # DeltaOut's fields in its order, as above
        "type": "delta",
        "game_id": game.id,
        "base": version - 1,
        "version": version,
        "changes": _changes(game, entry[1], doc),
        "events": _tag(engine.visible_events(game.events[version], seat), version),
        "deadline": game.deadline.at if game.deadline else None,
        "server_time": server_clock.time(),
    }
    frame = orjson.dumps(message).decode("utf-8")
    frames[(seat, DELTA)] = frame
    return frame
