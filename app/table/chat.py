"""A table's feed in this process: chat lines and server notices, stored, numbered and delivered.

Every table has one feed, numbered 1, 2, 3... (its own version, separate from the game's) and
stored in `table_messages` (app.store.chat). It has three channels:

- `players`: what seated players say; every viewer receives it.
- `spectators`: what spectators say; spectators receive it, and a player only on a socket that
  chose to show it (`{"type": "chat_show", "spectators": true}`, after which the spectators' lines
  it missed are sent). The filter is here, per socket: a player who did not ask never receives a
  spectator's line.
- `notices`: the server's own lines (`kind` plus `data`), which every viewer receives and the client
  shows in the game log.

Lines reach each socket in number order: every line is stored first, then read back in order by
each process that holds sockets of the table (its own lines at once, other processes' when the bus
tells it: `'<table_id>:chat:<seq>'` on Postgres; on SQLite the file's change counter and a sweep).

Posting a notice (other parts of the server), from any task, with or without sockets here:

    line_id = await room.feed.notice("stand_in", seat=2)            # "a bot plays for Bea"
    await hub.room(table_id).feed.notice("back", seat=2)             # "Bea is back"

`kind` is a short name (`[a-z_]{1,32}`); keyword fields are the notice's `data` (strings, numbers,
booleans or null; never anything from the game's hidden state: every viewer receives it). With a
`seat` and no `name`, the seat's stored name is added, so that the line reads the same later; once
the game is loaded here, `version` (the game's version when posted) places it in the log. The
client renders `notice.<kind>` from its strings (EN and FR) with `{name}` and the data's fields.
A notice the database cannot store is logged and dropped (None is returned): a notice never stops
the action that caused it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from app.core.errors import Code, StoreError
from app.core.messages import (
    CHAT_CODES,
    ChatIn,
    ChatLinesOut,
    ChatOut,
    ChatShowIn,
    ErrorOut,
    SpectatorNameIn,
    ViewerOut,
    chat_message,
)
from app.store.ports import FeedStore
from app.store.records import CHANNELS, Line
from app.table.chat_guard import LABEL, NameTaken, spectator_name
from app.table.ports import Actor
from app.wire.outbox import Connection

log = logging.getLogger("dragonstones.feed")

_KIND = re.compile(r"[a-z_]{1,32}")
Scalar = str | int | float | bool | None


@dataclass(eq=False)
class Viewer:
    """One socket's place in the feed."""

    conn: Connection
    cursor: int  # the last line number this socket was considered for
    spectators: bool  # receives the spectators' channel (spectators always do)
    address: str  # the client's address: spectators' chat limit (app.table.chat_guard)
    label: str  # the name its lines carry: the seat's stored name, or a spectator's label
    tag: str = ""  # a spectator's tag (app.table.chat_guard)

    def sees(self, channel: str) -> bool:
        return channel != "spectators" or self.spectators

    def channels(self) -> tuple[str, ...]:
        return tuple(c for c in CHANNELS if self.sees(c))


class Feed:
    def __init__(self, room: Actor) -> None:
        self.room = room
        self.table_id = room.table_id
        self.lock = asyncio.Lock()  # deliveries in number order; not the game's lock
        self.viewers: dict[Connection, Viewer] = {}
        self.last: int | None = None  # the last line delivered here (None: none yet)
        # Lines delivered here, newest last, each of them from number `held_after` + 1 on: a
        # socket joining while others are here is sent its lines from memory.
        self.recent: deque[Line] = deque()
        self.held_after = 0
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def store(self) -> FeedStore:
        return self.room.hub.feeds

    # -- sockets ---------------------------------------------------------------------------------

    async def join(
        self,
        conn: Connection,
        since: int | None,
        viewer_key: str | None,
        address: str = "",
        newest: int | None = None,
        lines: list[Line] | None = None,
    ) -> None:
        """A socket joined the table (after its hello): send it the lines after `since`, or the
        last lines, then every new line. A spectator is first told its label and key.
        `newest`: the feed's last line number, when the socket's arrival read it
        (app.store.arrivals), with its last `lines` (all channels, as many as
        `chat_replay_lines`, or None): then no read is needed."""
        settings = self.room.hub.settings
        spectator = conn.seat is None
        tag = await self._tag(conn, viewer_key, address) if spectator else ""
        label = self.room.hub.chat_guard.label(self.table_id, tag) if spectator else conn.name
        viewer = Viewer(conn, 0, spectator, address, label or "", tag)
        async with self.lock:
            if newest is not None and lines is not None and self.last is None:
                # The last lines as the socket's arrival read them: memory from there on.
                self.last = newest
                self.recent = deque(lines)
                full = len(lines) >= self.room.hub.settings.chat_replay_lines
                self.held_after = lines[0].id - 1 if full and lines else 0
            held = self._from_memory(since, viewer.channels())
            if held is not None:
                viewer.cursor = self.last or 0
                conn.send(ChatLinesOut(lines=[line.out() for line in held], last=viewer.cursor))
                self.viewers[conn] = viewer
                return
            try:
                newest = (await self.store.last_ids([self.table_id])).get(self.table_id, 0)
                if since is not None and 0 <= since <= newest:
                    after, limit = since, settings.chat_replay_max
                else:  # none, or a number this table never had: the last lines
                    after, limit = 0, settings.chat_replay_lines
                lines = await self.store.latest(
                    self.table_id, limit, viewer.channels(), after=after, upto=newest
                )
            except StoreError as exc:
                # The game may still be shown from memory: the socket stays, with new lines
                # only (the missed ones come with the next reconnection's chat_since).
                log.warning("chat of table %s not read on connect: %r", self.table_id, exc)
                if self.last is not None:
                    viewer.cursor = self.last
                    self.viewers[conn] = viewer
                return
            conn.send(ChatLinesOut(lines=[line.out() for line in lines], last=newest))
            viewer.cursor = newest
            if self.last is None:
                self.last = newest
                self.recent.clear()
                self.held_after = newest
            self.viewers[conn] = viewer

    def _from_memory(self, since: int | None, channels: tuple[str, ...]) -> list[Line] | None:
        """The lines a joining socket is sent, from the lines delivered here (the same as the
        database would give up to the last line delivered; newer ones follow as delivered), or
        None when memory does not hold them all."""
        if self.last is None:
            return None
        settings = self.room.hub.settings
        newest = self.last
        if since is not None and 0 <= since <= newest:
            after, limit = since, settings.chat_replay_max
        else:
            after, limit = 0, settings.chat_replay_lines
        lines = [line for line in self.recent if line.id > after and line.channel in channels]
        if after < self.held_after and len(lines) < limit:
            return None  # some are older than what memory holds
        return lines[-limit:] if limit > 0 else []

    async def _tag(self, conn: Connection, viewer_key: str | None, address: str) -> str:
        """A spectator's tag: its key's (signed here) unless another address holds it here, else
        this address's, else a new one unique at the table. It is told its label and key."""
        guard = self.room.hub.chat_guard

        def held() -> dict[str, str]:  # the spectators' tags' labels here, and their addresses
            return {LABEL.format(tag=v.tag): v.address for v in self.viewers.values() if v.tag}

        taken: set[str] = set()
        tag = guard.tag_of(self.table_id, viewer_key)
        if tag is None or held().get(LABEL.format(tag=tag), address) != address:
            # A new label may be needed: none that has spoken here.
            try:
                taken = await self.store.spectator_names(self.table_id)
            except StoreError as exc:  # unique among the spectators here, then
                log.warning("spectators' names of table %s not read: %r", self.table_id, exc)
        tag = guard.label_for(self.table_id, address, viewer_key, held(), taken)
        label = guard.label(self.table_id, tag)
        conn.send(ViewerOut(name=label, viewer=guard.key_for(self.table_id, tag)))
        return tag

    async def _rename(self, viewer: Viewer, message: SpectatorNameIn) -> None:
        conn, guard = viewer.conn, self.room.hub.chat_guard
        try:
            spoken = await self.store.spectator_names(self.table_id) - {viewer.label}
            others = [v.label for v in self.viewers.values() if v is not viewer] + list(spoken)
            others += await self.store.seat_names(self.table_id)
            name = spectator_name(message.name, others, seated=not viewer.tag)
        except ValueError as exc:
            code = Code.NAME_TAKEN if isinstance(exc, NameTaken) else Code.INVALID_NAME
            conn.send(ErrorOut(code=code, message=str(exc)))
            return
        except StoreError as exc:
            log.warning("names of table %s not read: %r", self.table_id, exc)
            conn.send(ErrorOut(code=Code.UNAVAILABLE, message="the database did not answer"))
            return
        guard.choose(self.table_id, viewer.tag, name)
        viewer.label = guard.label(self.table_id, viewer.tag)
        conn.send(ViewerOut(name=viewer.label, viewer=guard.key_for(self.table_id, viewer.tag)))

    def leave(self, conn: Connection) -> None:
        self.viewers.pop(conn, None)
        if not self.viewers:
            self.last = None  # nobody to deliver to: the next socket starts from the database

    async def handle(self, conn: Connection, data: dict[str, Any]) -> None:
        """A `chat` or `chat_show` message from this socket. Refusals answer an `error` and
        keep the socket open."""
        viewer = self.viewers.get(conn)
        if viewer is None:
            return
        try:
            message = chat_message.validate_python(data)
        except ValidationError as exc:
            errors = exc.errors()
            # A text far beyond 300 characters is refused before cleaning: still chat_too_long.
            types = [
                "chat_too_long" if e["type"] == "string_too_long" else e["type"] for e in errors
            ]
            code = next((t for t in types if t in CHAT_CODES), None)
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}" for e in errors
            )
            conn.send(ErrorOut(code=code or Code.INVALID_MESSAGE, message=problems[:500]))
            return
        if isinstance(message, ChatShowIn):
            await self._show(viewer, message.spectators)
            return
        if isinstance(message, SpectatorNameIn):
            await self._rename(viewer, message)
            return
        assert isinstance(message, ChatIn)
        await self._say(viewer, message)

    async def _say(self, viewer: Viewer, message: ChatIn) -> None:
        conn = viewer.conn
        channel = "spectators" if conn.seat is None else "players"
        if message.channel is not None and message.channel != channel:
            conn.send(ErrorOut(
                code=Code.CHAT_CHANNEL,
                message=f"you can only talk on the {channel} channel",
            ))  # fmt: skip
            return
        if not self.room.hub.chat_guard.allow(self.table_id, conn.seat, viewer.address):
            settings = self.room.hub.settings
            conn.send(ErrorOut(
                code=Code.CHAT_RATE_LIMITED,
                message=f"{settings.chat_lines_per_window} lines per "
                f"{settings.chat_window_seconds:g} seconds at most; wait a moment",
            ))  # fmt: skip
            return
        try:
            line = await self.store.append(
                self.table_id, channel=channel, seat=conn.seat, name=viewer.label,
                text_=message.text,
            )  # fmt: skip
        except StoreError as exc:
            log.warning("chat line of table %s not stored: %r", self.table_id, exc)
            conn.send(ErrorOut(code=Code.UNAVAILABLE, message="the database did not answer"))
            return
        await self._stored(line)

    async def _show(self, viewer: Viewer, show: bool) -> None:
        if viewer.conn.seat is None:
            return  # spectators always see both channels
        async with self.lock:
            was, viewer.spectators = viewer.spectators, show
            if show and not was:
                lines = await self.store.latest(
                    self.table_id, self.room.hub.settings.chat_replay_lines, ("spectators",),
                    upto=viewer.cursor,
                )  # fmt: skip
                viewer.conn.send(
                    ChatLinesOut(lines=[line.out() for line in lines], last=viewer.cursor)
                )

    # -- notices ---------------------------------------------------------------------------------

    async def notice(
        self, kind: str, *, seat: int | None = None, name: str | None = None, **data: Scalar
    ) -> int | None:
        """Post a server notice to every viewer of the table (see the module docstring);
        returns its line number, or None if it could not be stored."""
        if not _KIND.fullmatch(kind):
            raise ValueError(f"a notice kind is [a-z_]{{1,32}}, not {kind!r}")
        if not all(isinstance(v, str | int | float | bool | type(None)) for v in data.values()):
            raise ValueError("a notice's fields are strings, numbers, booleans or null")
        if "version" not in data and self.room.game is not None:
            data["version"] = self.room.game.version  # its place in the game log
        try:
            if seat is not None and name is None:
                name = await self.store.seat_name(self.table_id, seat)
            line = await self.store.append(
                self.table_id, channel="notices", seat=seat, name=name, kind=kind, data=data
            )
        except StoreError as exc:
            log.warning("notice %s of table %s not stored: %r", kind, self.table_id, exc)
            return None
        await self._stored(line)
        self.room.hub.forget_if_idle(self.room)
        return line.id

    # -- delivery --------------------------------------------------------------------------------

    async def _stored(self, line: Line) -> None:
        """A line this process stored: deliver it, or everything up to it, in order."""
        async with self.lock:
            if not self.viewers:
                return
            if self.last is not None and line.id == self.last + 1:
                self._deliver([line])
            else:
                await self._pull()

    def heard(self, seq: int) -> None:
        """Another process stored line `seq` of this table (or we did: then nothing to do)."""
        if not self.viewers or (self.last is not None and seq <= self.last):
            return
        self.pull_soon()

    def pull_soon(self) -> None:
        task = asyncio.create_task(self.pull())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def pull(self) -> None:
        try:
            async with self.lock:
                await self._pull()
        except StoreError as exc:  # the next notice or the sweep brings them
            log.warning("chat lines of table %s not read: %r", self.table_id, exc)

    async def _pull(self) -> None:
        """Deliver every stored line after the last one delivered here. Lock held."""
        if not self.viewers:
            return
        after = self.last if self.last is not None else min(v.cursor for v in self.viewers.values())
        while True:
            lines = await self.store.after(self.table_id, after)
            if not lines:
                return
            self._deliver(lines)
            after = lines[-1].id
            if len(lines) < 500:
                return

    def _deliver(self, lines: list[Line]) -> None:
        """Send each line to every socket that may see it and has not been sent it. Lock held."""
        for line in lines:
            frame: str | None = None
            for viewer in self.viewers.values():
                if line.id <= viewer.cursor:
                    continue
                viewer.cursor = line.id
                if viewer.sees(line.channel):
                    frame = frame or ChatOut(line=line.out()).model_dump_json()
                    viewer.conn.send_text(frame)
            if self.last is not None and line.id == self.last + 1:
                self.recent.append(line)
                if len(self.recent) > self.room.hub.settings.chat_replay_max:
                    self.held_after = self.recent.popleft().id
            self.last = max(self.last or 0, line.id)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()


async def sweep_feeds(every: Iterable[Feed], store: FeedStore) -> None:
    """Catch up every feed of this process with lines stored elsewhere that no notification
    announced (SQLite's second process, a Postgres listener that reconnected). Raises
    `StoreError` when the database does not answer: the hub's sweep is then tried again every
    second, as for the games (a chat sweep that failed once was left to the next slow sweep, and
    the lines sent meanwhile elsewhere with it)."""
    feeds = [f for f in every if f.viewers]
    if not feeds:
        return
    newest = await store.last_ids([f.table_id for f in feeds])
    for feed in feeds:
        if newest.get(feed.table_id, 0) > (feed.last or 0):
            feed.pull_soon()
