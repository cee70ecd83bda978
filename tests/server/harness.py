"""Test harness for the server: a real uvicorn subprocess and real WebSocket/HTTP clients.

`ServerProcess` runs `dragonstones serve` (`app.cli.main`, in a process of its own, forked warm by
tests/zygote.py) on 127.0.0.1 and a free port, against a real database; it is stopped or SIGKILLed
by its own pid. `SeatClient` is a scripted player (or a
spectator) speaking the protocol over a real socket; it records every frame it receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from sqlalchemy import text
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

import engine
import engine.bots
from app.core.config import Settings
from app.store.db import make_engine
from app.store.stores import open_stores
from tests import zygote
from tests.ports import free_port as free_port  # the deploy tests take their ports from here

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Database:
    url: str
    schema: str | None = None  # Postgres: the fresh schema of this run
    path: Path | None = None  # SQLite: the file

    @property
    def backend(self) -> str:
        return "sqlite" if self.url.startswith("sqlite") else "postgres"

    def env(self) -> dict[str, str]:
        env = {"DATABASE_URL": self.url}
        if self.schema:
            env["DATABASE_SCHEMA"] = self.schema
        return env


class ServerProcess:
    """`dragonstones serve` as a subprocess: started, stopped and killed by its own pid."""

    def __init__(self, db: Database, workdir: Path, **settings: str) -> None:
        self.db = db
        self.workdir = workdir
        self.port = free_port()
        # Scripted players answer at machine speed against bots that never wait, far faster than
        # people: the flood tests start their own server with the production limits.
        self.settings = {
            "BOT_DELAY_SECONDS": "0",
            "RATE_PER_SECOND": "1000",
            "RATE_BURST": "2000",
            # Every test client calls from 127.0.0.1: the per-address limits are raised too
            # (tests/server/test_security_limits.py starts servers with the production ones).
            "HTTP_RATE_PER_SECOND": "1000",
            "HTTP_RATE_BURST": "2000",
            "MAX_SOCKETS_PER_ADDRESS": "1000",
            "MAX_EMPTY_TABLES_PER_ADDRESS": "1000",
            # A test's clients are read when the test gets to them, which on a busy machine can
            # be seconds late: the slow-reader guard gets a margin no honest test client reaches
            # (tests/server/test_slow_reader.py sets its own, to read slowly on purpose).
            "SEND_TIMEOUT_SECONDS": "60",
            "READ_RATE_PER_SECOND": "1000",
            "READ_RATE_BURST": "2000",
            "SOCKET_RATE_PER_SECOND": "1000",
            "SOCKET_RATE_BURST": "2000",
            "MAX_CONNECTIONS_PER_ADDRESS": "1000",
            # Every refusal logged, as tests that count them expect (tests/server/test_logs_bounded.py
            # starts servers with the production budget).
            "LOG_REFUSALS_WINDOW_SECONDS": "0",
            **settings,
        }
        self.proc: Any = None  # a subprocess.Popen or a tests.zygote.ForkedServer
        self.log_path = workdir / f"server-{self.port}.log"
        self.starts = 0

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> None:
        """Start the process and wait until it answers /healthz (a machine busy with other work
        can take a minute just to import it); a process that does not is killed, never left
        behind to warn in a later test."""
        try:
            self._start(timeout)
        except BaseException:
            if self.alive():
                self.kill()
            raise

    def _start(self, timeout: float) -> None:
        env = {**os.environ, **self.db.env(), **self.settings, "PYTHONPATH": str(REPO)}
        argv = ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = zygote.spawn(argv, env, self.workdir, self.log_path)
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.http}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server did not answer within {timeout}s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


# -- lobby over HTTP ---------------------------------------------------------------------------


@dataclass
class Seat:
    table_id: str
    seat: int
    token: str
    name: str


def bid(fairy_gold: int = 0) -> dict[str, Any]:
    """A sealed bid of Fairy Gold only (the engine's action shape)."""
    return {
        "type": "bid",
        "fairy_gold": fairy_gold,
        "common_gold": 0,
        "amulet": False,
        "black_magic": False,
    }


async def create_table(
    http: httpx.AsyncClient, seats: int, public: bool = True, timed: bool = True
) -> str:
    """A new table; `timed=False`: no time limits, so no stand-in ever plays for a seat nobody
    connects (with the defaults, one does after 30 s, and a busy machine gets there)."""
    limits = {} if timed else {"turn_seconds": None, "choose_seconds": None}
    r = await http.post("/api/tables", json={"seats": seats, "public": public, **limits})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


async def join(http: httpx.AsyncClient, table_id: str, name: str) -> Seat:
    r = await http.post(f"/api/tables/{table_id}/join", json={"name": name})
    assert r.status_code == 200, r.text
    body = r.json()
    return Seat(table_id, body["seat"], body["token"], name)


def bearer(seat: Seat) -> dict[str, str]:
    return {"Authorization": f"Bearer {seat.token}"}


async def add_bots(
    http: httpx.AsyncClient, seat: Seat, count: int, kind: str = "heuristic"
) -> None:
    r = await http.post(
        f"/api/tables/{seat.table_id}/bots",
        json={"count": count, "kind": kind},
        headers=bearer(seat),
    )
    assert r.status_code == 200, r.text


async def start(http: httpx.AsyncClient, seat: Seat, seed: int | None = None) -> dict[str, Any]:
    """Start the table; `seed` deals the game from that seed (a server with TEST_SEED only)."""
    body = {"seed": seed} if seed is not None else None
    r = await http.post(f"/api/tables/{seat.table_id}/start", headers=bearer(seat), json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


async def advance(http: httpx.AsyncClient, seconds: float) -> None:
    """Move the clock of the server `http` talks to (one started with TEST_CLOCK) forward; it
    answers once the timers this woke (time limits, grace, heartbeats, the queue) have run."""
    r = await http.post("/test/clock", json={"seconds": seconds})
    assert r.status_code == 200, r.text
    assert r.json()["settled"], r.text


# -- a player on a socket ------------------------------------------------------------------------

Strategy = Callable[["SeatClient", dict[str, Any]], dict[str, Any]]

# Every client socket SeatClient opened, with who opened it: a test must close each one (see
# `open_client_sockets`), or the socket outlives its event loop and warns when collected.
_opened: list[tuple[str, Any]] = []


def track(who: str, ws: Any) -> Any:
    """Record a client socket a test opened (returned as is)."""
    _opened.append((who, ws))
    return ws


def open_client_sockets() -> list[tuple[str, Any]]:
    """The client sockets recorded since the last call that are not closed yet, with who opened
    each; the record starts afresh."""
    left = [(who, ws) for who, ws in _opened if ws.state is not State.CLOSED]
    _opened.clear()
    return left


def bot_strategy(kind: str, seed: int) -> Strategy:
    """A scripted person who decides like one of the engine's bots, from what arrives on the wire."""
    bot = engine.bots.make_bot(kind, seed)

    def decide(client: SeatClient, prompt: dict[str, Any]) -> dict[str, Any]:
        assert client.view is not None
        return dict(bot.act(client.view, prompt))

    return decide


# TEST_DELTAS=1: every SeatClient asks for `delta` frames (`?deltas=1`), so that any test of the
# server runs with them too.
DELTAS_BY_DEFAULT = os.environ.get("TEST_DELTAS") == "1"


def apply_changes(doc: Any, changes: list[list[Any]]) -> Any:
    """A `delta` frame's changes applied to a copy of `doc` (docs/protocol.md, "Delta frames"):
    `["s", path, value]` sets, `["d", path]` deletes a key, `["a", path, items]` appends."""
    doc = json.loads(json.dumps(doc))
    for change in changes:
        op, path = change[0], change[1]
        if not path:
            doc = change[2] if op == "s" else doc + change[2]
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if op == "s":
            parent[last] = change[2]
        elif op == "d":
            del parent[last]
        else:
            assert op == "a", change
            parent[last].extend(change[2])
    return doc


@dataclass(eq=False)
class SeatClient:
    """One socket at a table: a seat (token) or a spectator (token None).

    With `deltas` it asks for `delta` frames: each is applied to the view and prompts it holds and
    recorded in `messages` as the `state` it stands for (`"delta": true`; `frames` keeps the raw
    text); one whose base is not the version it holds is answered with `sync`, as a browser does.
    """

    base_ws: str
    table_id: str
    token: str | None
    seat: int | None
    strategy: Strategy | None = None
    frames: list[str] = field(default_factory=list)  # every frame received, raw
    messages: list[dict[str, Any]] = field(default_factory=list)
    version: int | None = None
    view: dict[str, Any] | None = None
    prompts: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] | None = None
    acks: dict[str, int] = field(default_factory=dict)  # action_id -> version
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)  # action_id -> action
    errors: list[dict[str, Any]] = field(default_factory=list)
    pending: tuple[str, dict[str, Any]] | None = None
    counter: int = 0
    think: float = 0.0  # seconds a person takes before each action
    ws: Any = None
    close_code: int | None = None
    # Called before an action is sent; may return a coroutine to run right after sending.
    before_send: Callable[[SeatClient, dict[str, Any], dict[str, Any]], Any] | None = None
    deltas: bool = DELTAS_BY_DEFAULT
    game_id: str | None = None
    drop_deltas: int = 0  # the next this many `delta` frames are dropped unread (a fault)
    syncs: int = 0  # `sync` messages sent: deltas whose base was not the version held

    def url(self, since: int | None) -> str:
        query = []
        if self.token is not None:
            query.append(f"token={self.token}")
        if since is not None:
            query.append(f"since={since}")
        if self.deltas:
            query.append("deltas=1")
        return f"{self.base_ws}/ws/tables/{self.table_id}" + (
            "?" + "&".join(query) if query else ""
        )

    async def connect(self, since: int | None = None) -> None:
        if self.ws is not None:  # a socket the server dropped: release it first
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.ws = await websockets.connect(self.url(since), max_size=2**22, close_timeout=2)
        who = f"seat {self.seat}" if self.token is not None else "a spectator"
        track(f"{who} of table {self.table_id} (since={since})", self.ws)
        self.close_code = None

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    @property
    def over(self) -> bool:
        return self.view is not None and self.view.get("winner") is not None

    def my_prompt(self) -> dict[str, Any] | None:
        return next((p for p in self.prompts if p["seat"] == self.seat and "kind" in p), None)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 20.0) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        text = raw if isinstance(raw, str) else raw.decode()
        self.frames.append(text)
        message = json.loads(text)
        if message.get("type") == "delta":
            if self.drop_deltas > 0:
                self.drop_deltas -= 1
                return dict(message)
            message = await self._delta(message)
        self.messages.append(message)
        self._absorb(message)
        return dict(message)

    async def _delta(self, m: dict[str, Any]) -> dict[str, Any]:
        """The `state` a delta stands for; or, when it does not follow the version held, the
        delta itself (held apart from the states) and a `sync` sent."""
        if m["base"] != self.version or m["game_id"] != self.game_id or self.view is None:
            self.syncs += 1
            await self.send_json({"type": "sync", "since": self.version})
            return {**m, "type": "delta_refused"}
        doc = apply_changes({"view": self.view, "prompts": self.prompts}, m["changes"])
        return {
            "type": "state",
            "game_id": m["game_id"],
            "version": m["version"],
            "view": doc["view"],
            "prompts": doc["prompts"],
            "events_from": m["base"],
            "events": m["events"],
            "resync": False,
            "deadline": m["deadline"],
            "server_time": m["server_time"],
            "delta": True,
        }

    def _absorb(self, m: dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "state":
            if self.version is not None and m["events_from"] == self.version:
                self.events.extend(m["events"])
            else:
                self.events = list(m["events"])
            self.version, self.view, self.prompts = m["version"], m["view"], m["prompts"]
            self.game_id = m.get("game_id", self.game_id)
        elif kind == "table":
            self.table = m["table"]
        elif kind == "ack":
            self.acks[m["action_id"]] = m["version"]
            if self.pending and self.pending[0] == m["action_id"]:
                self.pending = None
        elif kind == "error":
            self.errors.append(m)
            if self.pending and self.pending[0] == m.get("action_id"):
                self.pending = None

    async def send_action(self, action: dict[str, Any], action_id: str | None = None) -> str:
        if action_id is None:
            self.counter += 1
            action_id = f"s{self.seat}-{self.counter}"
        self.pending = (action_id, action)
        self.sent[action_id] = action
        await self.send_json({"type": "action", "action": action, "action_id": action_id})
        return action_id

    async def resend_pending(self) -> None:
        if self.pending is not None:
            action_id, action = self.pending
            await self.send_json({"type": "action", "action": action, "action_id": action_id})

    async def maybe_act(self) -> None:
        """Answer this seat's open prompt, once, with the strategy."""
        if self.strategy is None or self.pending is not None or self.over:
            return
        prompt = self.my_prompt()
        if prompt is None:
            return
        if self.think:
            await asyncio.sleep(self.think)
        action = self.strategy(self, prompt)
        after = self.before_send(self, prompt, action) if self.before_send else None
        await self.send_action(action)
        if after is not None:
            await after

    async def play_until_over(self, timeout: float = 60.0) -> None:
        """Read and act until the game is over (and this seat has nothing pending)."""
        deadline = time.monotonic() + timeout
        await self.maybe_act()
        while not (self.over and self.pending is None):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"seat {self.seat}: game not over at version {self.version}")
            await self.recv(timeout=left)
            await self.maybe_act()

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            m = await self.recv(timeout=max(0.01, deadline - time.monotonic()))
            if predicate(m):
                return m

    async def drain(self, quiet: float = 0.2) -> None:
        """Read until nothing arrives for `quiet` seconds."""
        with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
            while True:
                await self.recv(timeout=quiet)

    async def arrived(self, timeout: float = 20.0) -> dict[str, Any]:
        """Read until the server has let this socket in (its `hello`): the seat's arrival is
        written and it is shown present. A socket's handshake completes before that, so a
        test that acts on the table right after `connect` (a start, a departure) races it."""
        return await self.wait_for(lambda m: m["type"] == "hello", timeout)

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Read until the server closes the socket; returns the close code."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                await self.recv(timeout=max(0.01, deadline - time.monotonic()))
        except ConnectionClosed as exc:
            self.close_code = exc.rcvd.code if exc.rcvd else None
            return self.close_code
        raise AssertionError("the server did not close the socket")


def answer_to(action_id: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate for wait_for: the server's answer (ack or error) to this action id."""
    return lambda m: m.get("action_id") == action_id


def state_at(version: int) -> Callable[[dict[str, Any]], bool]:
    """A predicate for wait_for: the state message of this version."""
    return lambda m: m["type"] == "state" and m["version"] == version


async def until(check: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    """Wait for a condition, not for time: call the coroutine function `check` until it returns
    something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not reached within {timeout} s: {what or check}"
        await asyncio.sleep(0.05)


async def stop_tasks(*tasks: asyncio.Task[Any]) -> None:
    """Cancel these tasks and wait until each has stopped, whatever it raised. A single cancel is
    not enough on Python 3.11: `asyncio.wait_for` drops a cancellation that arrives as its awaited
    frame does, and a reader then goes on waiting for the next frame until its own time-out (a
    test spent two minutes so)."""
    for task in tasks:
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.1)
        if not task.cancelled():
            task.exception()  # retrieved: a failure here is the test's to assert, not logged


async def wait_game_over(
    http: httpx.AsyncClient, table_id: str, timeout: float = 60.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = (await http.get(f"/api/tables/{table_id}")).json()
        if table["status"] == "over":
            return dict(table)
        await asyncio.sleep(0.05)
    raise TimeoutError(f"table {table_id} not over")


async def db_rows(db: Database, sql: str, **params: Any) -> list[Any]:
    engine_ = make_engine(Settings(database_url=db.url, database_schema=db.schema), db.url)
    try:
        async with engine_.connect() as conn:
            return list((await conn.execute(text(sql), params)).all())
    finally:
        await engine_.dispose()


async def loaded_state(db: Database, table_id: str) -> tuple[int, Any]:
    """(version, state) of the table's game as a server loads it: the stored snapshot and the
    actions after it replayed (app.store.games; `games.state` is only a snapshot)."""
    stores = open_stores(Settings(database_url=db.url, database_schema=db.schema))
    try:
        stored = await stores.games.load(table_id)
    finally:
        await stores.close()
    assert stored is not None, f"table {table_id} has no game"
    return stored.version, stored.current_state()


async def db_execute(db: Database, sql: str, **params: Any) -> None:
    """One write, committed."""
    engine_ = make_engine(Settings(database_url=db.url, database_schema=db.schema), db.url)
    try:
        async with engine_.begin() as conn:
            await conn.execute(text(sql), params)
    finally:
        await engine_.dispose()


def replay_states(record: dict[str, Any]) -> tuple[list[Any], list[list[dict[str, Any]]]]:
    """Every state of a recorded game (index = version) and the raw events of each version."""
    state, opening = engine.start(record["seats"], int(record["seed"]))
    states, events = [state], [opening]
    for a in record["actions"]:
        state, ev = engine.apply(state, a["seat"], a["action"])
        states.append(state)
        events.append(ev)
    return states, events


# -- failover and outage checks ------------------------------------------------------------------

# Error codes that ask the client to send the same action again, with the same action_id.
RETRY_CODES = frozenset({"conflict", "unavailable"})


async def retry_if_asked(client: SeatClient, message: dict[str, Any], pause: float = 0.2) -> bool:
    """If `message` refused one of this client's actions with a code that asks for a retry, send
    that action again with the same action_id (after `pause`), as docs/protocol.md tells clients."""
    action_id = message.get("action_id")
    if message.get("type") != "error" or message.get("code") not in RETRY_CODES:
        return False
    if action_id not in client.sent:
        return False
    await asyncio.sleep(pause)
    client.pending = (action_id, client.sent[action_id])
    await client.resend_pending()
    return True


def chain_break(client: SeatClient) -> str | None:
    """The first `state` this socket received that does not continue exactly from the version
    before it, described (None when every one does). Across all its connections (each begins with
    `hello`; a reconnection asks `since` = the last version received), each state's `events_from`
    is the last version received and `resync` is false: no version skipped, repeated, reordered or
    reset. On one connection every state brings a new version; a reconnection may bring none."""
    seen: int | None = None
    new_connection = False
    for i, m in enumerate(client.messages):
        if m["type"] == "hello":
            new_connection = True
            continue
        if m["type"] != "state":
            continue
        version = m["version"]
        where = (
            f"seat {client.seat}, message {i}: state version {version}, "
            f"events_from {m['events_from']}, resync {m['resync']}; "
            f"the last version this socket had: {seen}"
        )
        if (m["events_from"], m["resync"]) != (-1 if seen is None else seen, False):
            return f"gap or reset: {where}"
        if seen is not None and not (version > seen or (new_connection and version == seen)):
            return f"not in order: {where}"
        new_connection = False
        seen = version
    return None


def check_gap_free(client: SeatClient, states: list[Any], raw_events: list[Any]) -> int:
    """`chain_break` finds nothing, and each state's events are exactly this viewer's events of
    the versions it covers, and its view the engine's view at its version (states, raw_events:
    the game replayed from its seed and action log, index = version). Returns the last version
    received."""
    assert chain_break(client) is None, chain_break(client)
    seat = client.seat
    seen: int | None = None
    for i, m in enumerate(client.messages):
        if m["type"] != "state":
            continue
        version = m["version"]
        where = (
            f"seat {seat}, message {i}: state version {version}, events_from "
            f"{m['events_from']}, event versions {[e['version'] for e in m['events']]}; "
            f"messages before: {[(x['type'], x.get('version')) for x in client.messages[:i]]}"
        )
        assert version < len(states), f"a version the action log does not have: {where}"
        by_version: dict[int, list[dict[str, Any]]] = {}
        for event in m["events"]:
            by_version.setdefault(event["version"], []).append(
                {k: v for k, v in event.items() if k != "version"}
            )
        for v in range(m["events_from"] + 1, version + 1):
            assert by_version.pop(v, []) == engine.visible_events(raw_events[v], seat), (
                f"events of version {v} differ: {where}"
            )
        assert by_version == {}, f"events outside (events_from, version]: {where}"
        assert m["view"] == engine.view(states[version], seat), f"view differs: {where}"
        seen = version
    assert seen is not None, f"seat {seat}: no state received"
    return seen


async def check_action_log(
    db: Database, game_id: str, people: list[SeatClient]
) -> tuple[list[Any], list[list[dict[str, Any]]]]:
    """The game's action log in the database: one row per version from 1, gap-free; every
    acknowledged action_id at its acknowledged version, for its seat, with the action sent; and
    (every seat being one of `people`) every row acknowledged to its seat. Returns the game replayed
    from its seed and that log: (states, raw events), index = version."""
    (game,) = await db_rows(db, "SELECT players, seed FROM games WHERE id = :g", g=game_id)
    rows = await db_rows(
        db,
        "SELECT version, seat, action, action_id FROM actions WHERE game_id = :g ORDER BY version",
        g=game_id,
    )
    assert [r.version for r in rows] == list(range(1, len(rows) + 1)), "the action log has gaps"
    by_version = {
        r.version: (
            r.seat,
            r.action_id,
            r.action if isinstance(r.action, dict) else json.loads(r.action),
        )
        for r in rows
    }
    for client in people:
        for action_id, version in client.acks.items():
            assert by_version.get(version) == (client.seat, action_id, client.sent[action_id]), (
                f"seat {client.seat}: action {action_id} acknowledged at version {version}, "
                f"the log has {by_version.get(version)}"
            )
    acked = {(c.seat, a) for c in people for a in c.acks}
    unacked = [(r.version, r.seat, r.action_id) for r in rows if (r.seat, r.action_id) not in acked]
    assert unacked == [], f"actions in the log never acknowledged to their seat: {unacked}"
    record = {
        "seats": game.players,
        "seed": game.seed,
        "actions": [{"seat": seat, "action": action} for seat, _, action in by_version.values()],
    }
    states, raw_events = replay_states(record)
    assert engine.dumps(states[-1]) == engine.dumps(
        engine.replay(game.players, int(game.seed), [(s, a) for s, _, a in by_version.values()])
    )
    return states, raw_events
