"""How server processes learn of each other's commits.

Postgres: every action's commit statement sends `NOTIFY <channel>, '<table_id>:<version>:<action>'`
(see app.store.games), where `<action>` is the JSON array `[seat, action_id, action, events,
deadline_at, deadline_key]` of the committed action, so that other processes replay it without
reading it back; an action too long for NOTIFY's 8000 bytes is sent as `'<table_id>:<version>'`
and read back. The lobby sends `'<table_id>:@<origin>-lobby'` after it changes a table's seats or
settings: `<origin>` names the process, which told its own sockets already and hears back only
the table's id (`on_own`); `'<table_id>:0'` when it starts the game. A presence change is sent as
`'<table_id>:@<origin>'` (`tell`), which the process that made it ignores: its rooms show their
own sockets, and an arrival reading meanwhile has nothing to read again. Other changes of a table
(stand-ins, a table closed) are sent as `'<table_id>:'`, which every process reads again. Each
process LISTENs on one dedicated asyncpg connection that reconnects by itself (trying again every
second at most while the database is away); after a reconnect it asks for a sweep, since
notifications sent meanwhile are lost. SQLite has one process: the in-process bus delivers the
other messages to the same process. Should a second process share the
SQLite file anyway, SQLite's own change counter (`PRAGMA data_version`, read from the shared memory
index, not from any table) tells this one that someone else committed, and a sweep catches up.
A table feed's line (app.table.chat) is announced as `'<table_id>:chat:<seq>'` on Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, cast

import asyncpg
import orjson
from sqlalchemy.ext.asyncio import AsyncEngine

import engine
from app.store.errors import mapped
from app.store.ports import ChatHandler, Handler
from app.store.records import Carried

log = logging.getLogger("dragonstones.bus")


CHAT_MARK = "chat:"


def parse_chat(payload: str) -> tuple[str, int] | None:
    """`'<table_id>:chat:<seq>'` (an older server's parse() ignores these)."""
    table_id, sep, rest = payload.partition(":")
    if not sep or not table_id or not rest.startswith(CHAT_MARK):
        return None
    try:
        return table_id, int(rest[len(CHAT_MARK) :])
    except ValueError:
        return None


def parse(payload: str) -> tuple[str, int | None, Carried | None] | None:
    table_id, sep, rest = payload.partition(":")
    if not sep or not table_id:
        return None
    if not rest or rest.startswith("@"):
        # A lobby or presence change (`'<table_id>:@<origin>'`: the process it came from).
        return table_id, None, None
    version, _sep, body = rest.partition(":")
    try:
        number = int(version)
    except ValueError:
        return None
    return table_id, number, _carried(body) if body else None


def _carried(body: str) -> Carried | None:
    """The action of a commit's notification; None (read it back) if it is not one."""
    try:
        seat, action_id, action, events, at, key = orjson.loads(body)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None
    if not (
        isinstance(seat, int)
        and isinstance(action_id, str)
        and isinstance(action, dict)
        and isinstance(events, list)
    ):
        return None
    # The action of a commit: the engine accepted it before it was written.
    return Carried(seat, action_id, cast(engine.Action, action), events, at, key)


def channel_for(schema: str | None) -> str:
    """One channel per schema: servers of other schemas on the same database stay out."""
    return f"dragonstones_{schema}"[:63] if schema else "dragonstones"


@mapped
class LocalBus:
    """One process: what is published is delivered to this process only."""

    hears_presence = False

    def __init__(self) -> None:
        self.handler: Handler | None = None
        self.origin = secrets.token_hex(6)  # this process, in payloads it ignores
        # One process: the feed delivers its own lines itself; nothing to hear.
        self.on_chat: ChatHandler | None = None
        self.on_own: Callable[[str], None] | None = None

    async def publish_change(self, table_id: str) -> None:
        if self.on_own is not None:
            self.on_own(table_id)

    def tell(self, table_id: str) -> str:
        return f"{table_id}:@{self.origin}"  # goes nowhere: one process (app.store.arrivals)

    def told_at_commit(self, table_id: str, version: int | None = None) -> str | None:
        return None  # the handler is called here, after the commit

    async def start(self, handler: Handler, on_reconnect: Callable[[], None]) -> None:
        self.handler = handler

    async def publish(self, table_id: str, version: int | None) -> None:
        if self.handler is not None:
            self.handler(table_id, version, None)

    async def close(self) -> None:
        self.handler = None


@mapped
class SqliteBus(LocalBus):
    """LocalBus, plus a watch on the file's change counter for a second process."""

    def __init__(self, engine: AsyncEngine, interval: float) -> None:
        super().__init__()
        self.engine = engine
        self.interval = interval
        self.task: asyncio.Task[None] | None = None

    async def start(self, handler: Handler, on_reconnect: Callable[[], None]) -> None:
        await super().start(handler, on_reconnect)
        if self.interval > 0:
            self.task = asyncio.create_task(self._watch(on_reconnect), name="sqlite-watch")

    async def _watch(self, changed: Callable[[], None]) -> None:
        # data_version moves when another connection commits: ours included (the pool has
        # several), so a change costs one sweep query, and no change costs nothing.
        async with self.engine.connect() as conn:
            last = None
            while True:
                try:
                    version = (await conn.exec_driver_sql("PRAGMA data_version")).scalar()
                    await conn.rollback()
                except Exception as exc:
                    log.warning("sqlite change watch failed: %r", exc)
                    version = None
                if last is not None and version != last:
                    changed()
                last = version
                await asyncio.sleep(self.interval)

    async def close(self) -> None:
        await super().close()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


# The listener's longest wait between two attempts to connect again. Commits other processes make
# between the database's return and the next attempt reach this process's sockets only with the
# sweep that follows it, so the wait stays short (one refused connection a second costs nothing).
LISTEN_RETRY_MAX_SECONDS = 1.0


@mapped
class PgBus:
    """LISTEN on a dedicated connection; NOTIFY through the pool (or the commit statement)."""

    hears_presence = True

    def __init__(
        self,
        dsn: str,
        channel: str,
        server_settings: dict[str, str],
        notify: Callable[[str, str], Awaitable[None]],
        received: Callable[[], None] = lambda: None,
    ) -> None:
        self._received = received  # counts each notification (metrics)
        self.dsn = dsn
        self.channel = channel
        self.server_settings = server_settings
        self._notify = notify  # (channel, payload) -> sent through the pool
        self.handler: Handler | None = None
        # This process: `'<table_id>:@<origin>'` is a presence change it made and already
        # shows (app.table.room), `'<table_id>:@<origin>-lobby'` a lobby change it told its
        # room of; the other processes read the table again for either.
        self.origin = secrets.token_hex(6)
        self._own = f":@{self.origin}"
        self._own_change = f":@{self.origin}-lobby"
        self.on_chat: ChatHandler | None = None  # set by the hub
        self.on_own: Callable[[str], None] | None = None  # set by the hub
        self.on_reconnect: Callable[[], None] = lambda: None
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self._lost = asyncio.Event()

    async def start(self, handler: Handler, on_reconnect: Callable[[], None]) -> None:
        self.handler, self.on_reconnect = handler, on_reconnect
        connected = asyncio.Event()
        self.task = asyncio.create_task(self._listen(connected), name="bus-listener")
        # Start serving once listening (or after a moment if the database is away).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(connected.wait(), timeout=10)

    async def publish(self, table_id: str, version: int | None) -> None:
        await self._notify(self.channel, f"{table_id}:{'' if version is None else version}")

    async def publish_change(self, table_id: str) -> None:
        # Other processes parse it as `'<table_id>:'` (app.store.bus.parse), older ones too.
        await self._notify(self.channel, f"{table_id}{self._own_change}")

    def tell(self, table_id: str) -> str:
        return f"{table_id}{self._own}"

    def told_at_commit(self, table_id: str, version: int | None = None) -> str | None:
        if version is None:
            return f"{table_id}{self._own_change}"  # as publish_change's
        return f"{table_id}:{version}"  # as publish's

    def _on_notification(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        self._received()
        if payload.endswith(self._own):
            # A presence change made here: nothing to note, not even for an arrival without a
            # room (every seat socket's arrival and departure sends one).
            return
        if payload.endswith(self._own_change):
            if self.on_own is not None:
                self.on_own(payload.partition(":")[0])
            return
        chat = parse_chat(payload)
        if chat is not None:
            if self.on_chat is not None:
                self.on_chat(*chat)
            return
        message = parse(payload)
        if message is not None and self.handler is not None:
            self.handler(*message)

    def _on_termination(self, _conn: Any) -> None:
        self._lost.set()

    async def _listen(self, connected: asyncio.Event) -> None:
        delay = 0.1
        first = True
        failures = 0  # attempts in a row that failed: the first is logged, then one a minute
        while not self.closed:
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(
                    self.dsn, server_settings=self.server_settings, timeout=5
                )
                self._lost.clear()
                conn.add_termination_listener(self._on_termination)
                await conn.add_listener(self.channel, self._on_notification)
                connected.set()
                if not first:
                    log.info("listening again on %s: sweeping for missed commits", self.channel)
                    self.on_reconnect()
                first, delay, failures = False, 0.1, 0
                # Wait until the connection drops; a cheap query now and then finds a silently
                # dead connection too.
                while not self.closed:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._lost.wait(), timeout=15)
                    if self._lost.is_set():
                        break
                    await asyncio.wait_for(conn.fetchval("SELECT 1"), timeout=5)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures += 1
                if not self.closed and failures % 60 == 1:
                    log.warning(
                        "listener connection lost (%r); trying again every %.0f s at most",
                        exc,
                        LISTEN_RETRY_MAX_SECONDS,
                    )
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.terminate()
            if self.closed:
                return
            first = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, LISTEN_RETRY_MAX_SECONDS)

    async def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
