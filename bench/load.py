"""Benchmark: the server under load from machine-speed clients, against references measured in
the same run.

    .venv/bin/python bench/load.py [--games 50] [--players 4] [--seconds 20] [--processes 1]
        [--pace SECONDS] [--handshakes TABLES [--handshake-rounds ROUNDS] [--handshake-watched]]
        [--deltas]
        [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test] [--json]

Creates its own Postgres schema (dropped at the end, also after Ctrl-C or an error), measures the
references before and after the load with no server running (their mean is used: the machine is
shared; both readings are printed) (single-row jsonb insert+commit through asyncpg on one and
on DB_POOL_SIZE connections, into an ordinary table of that schema, so each commit waits for its
WAL flush like the server's; the same into temp tables, which skip the flush, is printed beside it
but not used in ratios; a bare `websockets` echo round trip through a subprocess), then starts
`--processes` servers on that schema (`python -m app.cli serve`, BOT_DELAY_SECONDS=0, no bots)
and plays `--games` games at once from a separate client process, where every seat is a scripted
client acting at machine speed: it reads its prompt from each `state` (a prompt addressed to it
has `max` or `options`), bids uniformly within `max` or picks a uniform option. With `--pace
SECONDS`, each seat first thinks for a random time with that mean (exponential), like people, so
that many games play at a human rate below saturation. A finished game is replaced by a new one.
Every socket keeps alive as the page does: no WebSocket pings of its own (a browser sends none; it
answers the server's), a `ping` message every 25 s.
After `--warmup` seconds it measures for `--seconds`:

- committed actions/s: acks (not duplicates) received in the window;
- reveal latency: the last sealed bid of an auction sent -> every seat of the game has a state
  with version >= the version that bid was acknowledged with (found by its `bids_revealed` event);
- the server's CPU seconds per action (utime+stime from /proc/<pid>/stat over the window) and RSS
  (VmRSS sampled, peak and end; VmHWM);
- the garbage collector's pauses by generation (the servers' `dragonstones_gc_pause_seconds`
  at both ends of the window): how many, their time, a bound on the longest, their share of the
  server's CPU;
- with --processes 2, seats spread over both and one spectator per game on each process:
  for each action acked through process A, ack received -> the spectator on process B has that
  version (negative when B's frame came first). The server CPU is then the sum over the
  processes. `--spectators N` sets the spectators per game (spread over the processes in turn):
  `--processes 1 --spectators 2` has as many sockets per game as `--processes 2`, for the ratio.
  With `--by-table`, every socket of a game (seats and spectators) goes to the same process
  instead, game n to process n mod --processes, as a proxy choosing the replica by the table's id
  would send them: nothing then crosses processes but the lobby.

With `--handshakes TABLES`, before the games: TABLES tables of `--players` seated players (not
started) are made through the lobby, the server left idle for a moment, then every seat's socket
connects at once; the server's CPU seconds from the first connect until every socket has its
`table` frame, divided by the sockets, is the CPU per handshake (printed with the wall time). The
sockets are closed and connect at once again (a reconnect storm; the rooms of these tables, not
started, are dropped once their last socket closes, unless `--handshake-watched` keeps a
spectator socket open at each table: then the rooms and the tables' rows stay in memory), then
closed. Each storm starts once the server is quiet again (under 5% of a core for a second). `--games 0` runs only this. With `--handshake-rounds ROUNDS` too, as many tables again
whose seated people are signed-in players (each made by `GET /api/me`, its seat linked to it, its
socket sending the player's cookie, as a browser does), a first storm of each kind, then ROUNDS
rounds of a storm of each kind back to back (the order swapped every round); each round and the
medians are printed: what the identity adds to a seat socket's handshake.

With `--no-replace`, a game that ends in the window keeps its sockets open and is not replaced:
the window holds play alone (and games ending), no lobby calls and no handshakes, as in
boardgame.io's peer, whose matches never end (the figure to set beside it; without the flag each
finished game's successor is made, joined, started and connected in the window).

With `--deltas` every socket asks for `delta` frames (`deltas=1`, as the browser does), applies
them to the view and prompts it holds, and asks for the whole state (`sync`) when one does not
follow. Either way the game frames received (`state` and `delta`) are counted: bytes per action
over every socket, and per frame.

Every figure is also printed as a ratio to the references. Traffic goes only to 127.0.0.1; the
client binds its sockets to 127.0.0.2-251, one address per game, so per-address limits of the
server see a few sockets each. `--server-env KEY=VALUE` passes more settings to the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client.utils import floatToGoString

from app.core.metrics import GC_BUCKETS as SERVER_GC_BUCKETS
from app.table.changes import apply as apply_changes
from bench.common import (
    PG_URL,
    Lobby,
    PostgresBackends,
    Server,
    asyncpg_dsn,
    cpu_seconds,
    create_schema,
    decide,
    drop_schema,
    free_port,
    ms,
    new_schema_name,
    percentile,
    raise_fd_limit,
    rss_mib,
    server_env,
    source_address,
    status_kib,
    terminate_on_sigterm,
)

now = time.perf_counter

# Counters of the servers' /metrics read at both ends of the window (summed over the processes).
COUNTERS = (
    "dragonstones_version_conflicts_total",
    "dragonstones_notifications_received_total",
    'dragonstones_remote_versions_total{how="notification"}',
    'dragonstones_remote_versions_total{how="database"}',
    "dragonstones_push_lookups_total",
)
# The collector's pauses (app.core.metrics.watch_collector), by generation: count, sum, buckets.
GC_BUCKETS = (*(floatToGoString(b) for b in SERVER_GC_BUCKETS), "+Inf")  # as /metrics writes them
GC_COUNTERS = tuple(
    f'dragonstones_gc_pause_seconds_{part}{{generation="{g}"{extra}}}'
    for g in "012"
    for part, extra in [
        ("count", ""),
        ("sum", ""),
        *(("bucket", f',le="{le}"') for le in GC_BUCKETS),
    ]
)


def gc_pauses(before: dict[str, float], after: dict[str, float]) -> dict[str, dict[str, Any]]:
    """The collector's pauses in the window, by generation: how many, their seconds, and the
    smallest bucket bound that holds the longest (None: no pause)."""

    def delta(g: str, part: str, extra: str = "") -> float:
        name = f'dragonstones_gc_pause_seconds_{part}{{generation="{g}"{extra}}}'
        return after[name] - before[name]

    out = {}
    for g in "012":
        count = delta(g, "count")
        longest = next(
            (le for le in GC_BUCKETS if count and delta(g, "bucket", f',le="{le}"') >= count), None
        )
        out[g] = {"pauses": count, "seconds": delta(g, "sum"), "longest_at_most": longest}
    return out


async def counters(servers: list[dict[str, Any]]) -> dict[str, float]:
    import httpx

    out = dict.fromkeys(COUNTERS + GC_COUNTERS, 0.0)
    async with httpx.AsyncClient(timeout=10) as http:
        for server in servers:
            with contextlib.suppress(httpx.HTTPError):
                for line in (await http.get(f"{server['http']}/metrics")).text.splitlines():
                    name, _, value = line.partition(" ")
                    if name in out:
                        out[name] += float(value)
    return out


# == references =====================================================================================


async def commit_reference(
    url: str, connections: int, seconds: float, schema: str | None
) -> dict[str, float | None]:
    """Single-row jsonb insert+commit in a loop on each connection (autocommit: one round trip
    per transaction). With `schema`, into an ordinary table there: each commit waits for its WAL
    flush, as the server's commits do. Without, into a temp table of each connection: Postgres
    writes no WAL for temp tables, so such commits skip the flush (shown for comparison only)."""
    import asyncpg  # type: ignore[import-untyped]

    doc = json.dumps(
        {
            "seat": 2,
            "action": {
                "type": "bid",
                "fairy_gold": 3,
                "common_gold": 1,
                "amulet": False,
                "black_magic": False,
            },
            "events": [
                {"type": "bid_submitted", "seat": 2, "version": 17, "text": "Player 3 has bid."}
            ]
            * 3,
        }
    )
    conns = [await asyncpg.connect(asyncpg_dsn(url), timeout=10) for _ in range(connections)]
    latencies: list[float] = []
    try:
        if schema:
            table = f'"{schema}".bench_commit_{connections}'
            await conns[0].execute(
                f"CREATE TABLE {table} (id bigserial PRIMARY KEY, doc jsonb NOT NULL)"
            )
        else:
            table = "bench_commit"
            for c in conns:
                await c.execute(
                    f"CREATE TEMP TABLE {table} (id bigserial PRIMARY KEY, doc jsonb NOT NULL)"
                )
        stmt = f"INSERT INTO {table} (doc) VALUES ($1::jsonb)"

        async def loop(conn: Any, until: float, record: bool) -> int:
            n = 0
            while now() < until:
                t = now()
                await conn.execute(stmt, doc)
                if record:
                    latencies.append(now() - t)
                n += 1
            return n

        await asyncio.gather(*(loop(c, now() + 0.3, False) for c in conns))  # warm-up
        began = now()
        counts = await asyncio.gather(*(loop(c, began + seconds, True) for c in conns))
        elapsed = now() - began
        if schema:
            await conns[0].execute(f"DROP TABLE {table}")
    finally:
        for c in conns:
            await c.close()
    return {
        "connections": connections,
        "tx_per_s": sum(counts) / elapsed,
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
    }


def echo_payload() -> str:
    """About 2 KB of JSON shaped like a state frame (numbers vary, so deflate has work)."""
    r = random.Random(7)
    players = [
        {
            "seat": s,
            "score": r.randint(0, 5),
            "stones": {"red": r.randint(0, 9), "blue": r.randint(0, 9), "yellow": r.randint(0, 9)},
            "fairy_gold_spent": r.randint(0, 9),
            "has_doppelganger": False,
        }
        for s in range(6)
    ]
    events = [
        {
            "type": "bid_submitted",
            "template": "{seat} has bid.",
            "seat": r.randint(0, 5),
            "text": f"Player {r.randint(1, 6)} has bid.",
            "version": r.randint(1, 900),
        }
        for _ in range(4)
    ]
    return json.dumps(
        {
            "type": "state",
            "version": 417,
            "view": {"players": players},
            "events": events,
            "server_time": 1795897813.2,
        }
    )


def run_echo_server(port: int) -> None:
    from websockets.asyncio.server import serve

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    async def main() -> None:
        async with serve(echo, "127.0.0.1", port, max_size=2**22):
            await asyncio.sleep(3600)  # bounded: the bench stops it long before

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


async def echo_reference(port: int, seconds: float) -> dict[str, float | None]:
    """Sequential round trips of a state-sized frame through a `websockets` echo subprocess."""
    from websockets.asyncio.client import connect

    payload = echo_payload()
    for _ in range(100):  # the subprocess is starting
        try:
            ws = await connect(f"ws://127.0.0.1:{port}", max_size=2**22)
            break
        except OSError:
            await asyncio.sleep(0.1)
    else:
        raise RuntimeError("the echo server did not start")
    latencies: list[float] = []
    try:
        for _ in range(200):
            await ws.send(payload)
            await ws.recv()
        until = now() + seconds
        while now() < until and len(latencies) < 100_000:
            t = now()
            await ws.send(payload)
            await ws.recv()
            latencies.append(now() - t)
    finally:
        await ws.close()
    return {
        "round_trips": len(latencies),
        "bytes": len(payload),
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
    }


# == the load client (runs in its own process) ======================================================


# static/js/socket.js: an open page sends `{"type":"ping"}` this often.
PAGE_PING_SECONDS = 25.0


@dataclass
class Stats:
    start: float = float("inf")
    end: float = float("inf")
    acks: int = 0
    duplicates: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    reveals: list[float] = field(default_factory=list)
    ack_latency: list[float] = field(default_factory=list)
    cross: list[float] = field(default_factory=list)
    games_started: int = 0
    games_finished: int = 0
    reconnects: int = 0
    resends: int = 0
    closes: Counter[str] = field(default_factory=Counter)
    game_frames: int = 0  # `state` and `delta` frames received in the window
    game_frame_bytes: int = 0
    deltas: int = 0
    syncs: int = 0

    def inside(self, t: float) -> bool:
        return self.start <= t <= self.end


STATS = Stats()


@dataclass(eq=False)
class Sock:
    """One socket of a game: a seat (token) or a spectator (token None) on server process proc."""

    game: Game
    proc: int
    seat: int | None = None
    token: str | None = None
    ws: Any = None
    version: int = -1
    prompt: dict[str, Any] | None = None
    pending: tuple[str, dict[str, Any], float] | None = None  # action_id, action, sent at
    refused_at: int | None = None  # version whose prompt was refused: wait for a newer one
    refused_time: float = 0.0
    last_try: float = 0.0  # when the pending action was last sent (a retry included)
    counter: int = 0
    over: bool = False
    thinking: bool = False  # --pace: a think time is running before its next action
    doc: dict[str, Any] | None = None  # --deltas: the view and prompts held, deltas applied
    game_id: str = ""
    pinged_at: float = 0.0  # the last keepalive `ping` sent, as the page sends one every 25 s


@dataclass(eq=False)
class Game:
    client: Client
    n: int
    gen: int
    table_id: str = ""
    seats: list[Sock] = field(default_factory=list)
    spectators: list[Sock] = field(default_factory=list)
    reveal_seen: dict[int, dict[int, float]] = field(default_factory=dict)
    reveal_sent: dict[int, float] = field(default_factory=dict)
    spec_seen: dict[Sock, dict[int, float]] = field(default_factory=dict)  # version -> t
    cross_wait: dict[Sock, dict[int, float]] = field(default_factory=dict)  # version -> ack t

    def check_reveal(self, version: int) -> None:
        seen, sent = self.reveal_seen.get(version), self.reveal_sent.get(version)
        if seen is None or sent is None or len(seen) < len(self.seats):
            return
        if STATS.inside(sent):
            STATS.reveals.append(max(seen.values()) - sent)
        del self.reveal_seen[version], self.reveal_sent[version]

    def acked(self, version: int, proc: int, t: float) -> None:
        """An action acked through process proc: time it to the spectators on the others."""
        for spec in self.spectators:
            if spec.proc == proc:
                continue
            seen = self.spec_seen.setdefault(spec, {}).pop(version, None)
            if seen is not None:
                if STATS.inside(t):
                    STATS.cross.append(seen - t)
            else:
                self.cross_wait.setdefault(spec, {})[version] = t

    def spectator_reached(self, spec: Sock, first: int, last: int, t: float) -> None:
        if len(self.client.servers) < 2:
            return  # nothing crosses processes
        waiting = self.cross_wait.setdefault(spec, {})
        seen = self.spec_seen.setdefault(spec, {})
        for v in range(first, last + 1):
            acked = waiting.pop(v, None)
            if acked is not None:
                if STATS.inside(acked):
                    STATS.cross.append(t - acked)
            else:
                seen[v] = t
        if len(seen) > 5000:  # versions never acked through another process (retries): forget
            for v in sorted(seen)[:2500]:
                del seen[v]


class Client:
    def __init__(self, cfg: dict[str, Any]) -> None:
        self.cfg = cfg
        self.servers: list[dict[str, Any]] = cfg["servers"]
        self.players: int = cfg["players"]
        self.rng = random.Random(cfg.get("seed", 1))
        self.stop = asyncio.Event()
        self.socks: set[Sock] = set()
        self.started = 0
        self.all_started = asyncio.Event()
        self.ready = 0
        self.go = asyncio.Event()
        self.lobbies: dict[int, Lobby] = {}
        self.thinkers: set[asyncio.Task[None]] = set()

    def lobby(self, n: int) -> Lobby:
        if n not in self.lobbies:
            self.lobbies[n] = Lobby(self.servers[n % len(self.servers)]["http"], source_address(n))
        return self.lobbies[n]

    # -- a socket's life ------------------------------------------------------------------------

    async def connect(self, sock: Sock) -> None:
        from websockets.asyncio.client import connect

        query = [f"token={sock.token}"] if sock.token else []
        if sock.version >= 0:
            query.append(f"since={sock.version}")
        if self.cfg.get("deltas"):
            query.append("deltas=1")
        url = f"{self.servers[sock.proc]['ws']}/ws/tables/{sock.game.table_id}" + (
            "?" + "&".join(query) if query else ""
        )
        sock.ws = await connect(
            url,
            max_size=2**22,
            open_timeout=30,
            close_timeout=2,
            local_addr=(source_address(sock.game.n), 0),
            # A browser sends no WebSocket pings (it answers the server's); the page sends a
            # `ping` message every PAGE_PING_SECONDS instead (the watchdog, below).
            ping_interval=None,
        )
        sock.pinged_at = now()

    async def send(self, sock: Sock, action: dict[str, Any], action_id: str | None = None) -> None:
        sent = now()
        if action_id is None:
            sock.counter += 1
            action_id = f"g{sock.game.n}-{sock.game.gen}-s{sock.seat}-{sock.counter}"
        elif sock.pending is not None and sock.pending[0] == action_id:
            sent = sock.pending[2]  # a retry: latencies count from the first try
        sock.pending = (action_id, action, sent)
        sock.last_try = now()
        await sock.ws.send(json.dumps({"type": "action", "action": action, "action_id": action_id}))

    async def act(self, sock: Sock, thought: bool = False) -> None:
        if (
            self.stop.is_set()
            or sock.over
            or sock.pending is not None
            or sock.prompt is None
            or sock.refused_at == sock.version
            or sock.thinking
        ):
            return
        pace = self.cfg.get("pace") or 0.0
        if pace > 0 and not thought:
            sock.thinking = True
            task = asyncio.create_task(self.think(sock, self.rng.expovariate(1 / pace)))
            self.thinkers.add(task)
            task.add_done_callback(self.thinkers.discard)
            return
        await self.send(sock, decide(sock.prompt, self.rng))

    async def think(self, sock: Sock, seconds: float) -> None:
        """--pace: a person's think time, then the prompt open by then (if still theirs)."""
        try:
            await asyncio.sleep(seconds)
        finally:
            sock.thinking = False
        with contextlib.suppress(Exception):  # the socket closed meanwhile: its reader retries
            await self.act(sock, thought=True)

    def on_state(self, sock: Sock, m: dict[str, Any], t: float) -> None:
        game, previous, version = sock.game, sock.version, int(m["version"])
        sock.version = version
        if m["view"].get("winner") is not None:
            sock.over = True
        if sock.seat is None:
            game.spectator_reached(sock, previous + 1, version, t)
            return
        for event in m["events"]:
            if event.get("type") == "bids_revealed" and event.get("version", -1) > previous:
                game.reveal_seen.setdefault(event["version"], {})[sock.seat] = t
                game.check_reveal(event["version"])
        sock.prompt = next(
            (p for p in m["prompts"] if p["seat"] == sock.seat and ("max" in p or "options" in p)),
            None,
        )

    async def on_message(self, sock: Sock, m: dict[str, Any], t: float, size: int = 0) -> None:
        kind = m.get("type")
        if kind in ("state", "delta") and STATS.inside(t):
            STATS.game_frames += 1
            STATS.game_frame_bytes += size
        if kind == "delta":
            if sock.doc is None or m["base"] != sock.version or m["game_id"] != sock.game_id:
                STATS.syncs += 1
                await sock.ws.send(json.dumps({"type": "sync", "since": sock.version}))
                return
            STATS.deltas += STATS.inside(t)
            sock.doc = apply_changes(sock.doc, m["changes"])
            m = {"version": m["version"], "events": m["events"], **sock.doc}
            self.on_state(sock, m, t)
        elif kind == "state":
            sock.game_id = m["game_id"]
            sock.doc = {"view": m["view"], "prompts": m["prompts"]}
            self.on_state(sock, m, t)
        elif kind == "ack" and sock.pending and m.get("action_id") == sock.pending[0]:
            _, action, sent = sock.pending
            sock.pending = None
            version = int(m["version"])
            if m.get("duplicate"):
                STATS.duplicates += 1
            elif STATS.inside(t):
                STATS.acks += 1
                STATS.ack_latency.append(t - sent)
            game = sock.game
            if action["type"] == "bid" and version in game.reveal_seen:
                game.reveal_sent[version] = sent
                game.check_reveal(version)
            game.acked(version, sock.proc, t)
        elif kind == "error":
            STATS.errors[str(m.get("code"))] += 1
            if sock.pending and m.get("action_id") == sock.pending[0]:
                if m.get("code") in ("unavailable", "conflict"):  # retry the same action
                    await asyncio.sleep(0.05)
                    await self.send(sock, sock.pending[1], sock.pending[0])
                    return
                sock.pending = None
                sock.refused_at, sock.refused_time = sock.version, t
        await self.act(sock)

    async def read(self, sock: Sock) -> None:
        """Read and act until the game is over for this socket; reconnect if dropped."""
        from websockets.exceptions import ConnectionClosed

        reconnects = 0
        while not sock.over:
            try:
                raw = await sock.ws.recv()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else None
                STATS.closes[str(code)] += 1
                if self.stop.is_set() or reconnects >= 20 or code in (1000, 1008, 4404):
                    return
                reconnects += 1
                STATS.reconnects += 1
                await asyncio.sleep(0.1)
                await self.connect(sock)
                if sock.pending:
                    await self.send(sock, sock.pending[1], sock.pending[0])
                continue
            await self.on_message(sock, json.loads(raw), now(), len(raw))

    async def watchdog(self) -> None:
        """Unstick seats: a refused action with no newer state comes back after 0.5 s with a
        fresh draw; an action unanswered for 10 s is sent again with the same id."""
        while not self.stop.is_set():
            await asyncio.sleep(0.5)
            t = now()
            for sock in list(self.socks):
                if sock.ws is not None and t - sock.pinged_at >= PAGE_PING_SECONDS:
                    sock.pinged_at = t
                    with contextlib.suppress(Exception):
                        await sock.ws.send('{"type":"ping"}')
                if sock.seat is None or sock.over or sock.ws is None:
                    continue
                with contextlib.suppress(Exception):
                    if (
                        sock.pending is None
                        and sock.refused_at == sock.version
                        and t - sock.refused_time > 0.5
                    ):
                        sock.refused_at = None
                        await self.act(sock)
                    elif sock.pending is not None and t - sock.last_try > 10:
                        STATS.resends += 1
                        await self.send(sock, sock.pending[1], sock.pending[0])

    # -- a game's life --------------------------------------------------------------------------

    async def play(self, n: int, gen: int, setup: asyncio.Semaphore) -> None:
        game = Game(self, n, gen)
        procs = len(self.servers)
        async with setup:
            lobby = self.lobby(n)
            game.table_id = await lobby.create_table(self.players)
            home = n % procs if self.cfg["by_table"] else None  # every socket's process
            for s in range(self.players):
                seat, token = await lobby.join(game.table_id, f"L{n}.{gen} s{s}")
                proc = home if home is not None else (n + seat) % procs
                game.seats.append(Sock(game, proc, seat, token))
            game.spectators = [
                Sock(game, home if home is not None else p % procs)
                for p in range(self.cfg["spectators"])
            ]
            for sock in game.seats + game.spectators:
                await self.connect(sock)
                self.socks.add(sock)
        if gen == 0:  # the first games start together, so that setting up is not under load
            self.ready += 1
            if self.ready == self.cfg["games"]:
                self.go.set()
            await self.go.wait()
            if self.cfg["games"] <= 1000:
                await lobby.start(game.table_id, game.seats[0].token or "")
            else:  # thousands of starts at once would queue past the server's pool timeout
                async with setup:
                    await lobby.start(game.table_id, game.seats[0].token or "")
        else:
            async with setup:
                await lobby.start(game.table_id, game.seats[0].token or "")
        STATS.games_started += 1
        readers = [asyncio.create_task(self.read(s)) for s in game.seats + game.spectators]
        stopper: asyncio.Task[Any] = asyncio.create_task(self.stop.wait())
        try:
            if gen == 0:
                self.started += 1
                if self.started == self.cfg["games"]:
                    self.all_started.set()
            pending: set[asyncio.Task[Any]] = set(readers)
            while pending and not self.stop.is_set():
                _, pending = await asyncio.wait(
                    [*pending, stopper], return_when=asyncio.FIRST_COMPLETED
                )
                pending.discard(stopper)
            if pending:  # stopping: in-flight reveals and acks have 2 s to arrive
                await asyncio.wait(pending, timeout=2.0)
            for task in readers:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    STATS.errors[f"client: {task.exception()!r}"[:120]] += 1
            if all(s.over for s in game.seats):
                STATS.games_finished += 1
            if self.cfg.get("no_replace") and now() >= STATS.start:
                await self.stop.wait()  # its sockets stay open, as the peer's do
        finally:
            stopper.cancel()
            for task in readers:
                task.cancel()
            for sock in game.seats + game.spectators:
                self.socks.discard(sock)
                if sock.ws is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(sock.ws.close(), 2)

    async def table(self, n: int, setup: asyncio.Semaphore) -> None:
        """Game after game at table slot n until the bench stops (--no-replace: none begins
        in the window)."""
        gen = 0
        while not self.stop.is_set() and not (self.cfg.get("no_replace") and now() >= STATS.start):
            await self.play(n, gen, setup)
            gen += 1

    async def handshakes(self) -> dict[str, Any]:
        """--handshakes: tables of seated players (not started) whose sockets all connect at
        once, twice; the server's CPU per handshake (see the module's docstring). With
        --handshake-rounds, two sets of tables, guests and signed-in players, storm in turn."""
        tables = self.cfg["handshake_tables"]
        rounds = self.cfg.get("handshake_rounds", 0)
        guests = await self.seat_tables(0, tables, signed=False)
        if not rounds:
            async with self.watched(guests):
                first = await self.storm(guests)
                again = await self.storm(guests)
            return {"tables": tables, "first": first, "again": again}
        signed = await self.seat_tables(tables, tables, signed=True)
        out: dict[str, Any] = {"tables": tables, "rounds": rounds}
        out["first"] = {"guest": await self.storm(guests), "player": await self.storm(signed)}
        again: dict[str, list[dict[str, float]]] = {"guest": [], "player": []}
        for r in range(rounds):
            # Each set goes first in every other round: a drift of the machine's load does not
            # favour one of them.
            order = [("guest", guests), ("player", signed)]
            for kind, seats in order if r % 2 == 0 else order[::-1]:
                again[kind].append(await self.storm(seats))
        out["again"] = again
        return out

    @contextlib.asynccontextmanager
    async def watched(self, seats: list[tuple[int, str, str, str | None]]) -> Any:
        """--handshake-watched: one spectator socket open at each table meanwhile."""
        from websockets.asyncio.client import connect

        sockets: list[Any] = []
        if self.cfg.get("handshake_watched"):
            for n, table_id in sorted({(n, t) for n, t, _, _ in seats}):
                server = self.servers[n % len(self.servers)]
                ws = await connect(
                    f"{server['ws']}/ws/tables/{table_id}", max_size=2**22,
                    local_addr=(source_address(n), 0),
                )  # fmt: skip
                while json.loads(await ws.recv()).get("type") != "table":
                    pass
                sockets.append(ws)
        try:
            yield
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)

    async def seat_tables(
        self, base: int, tables: int, signed: bool
    ) -> list[tuple[int, str, str, str | None]]:
        """Tables base..base+tables-1 of `players` seated people (not started): (table n, table
        id, token, the player's cookie or None). Signed: each person is a player (GET /api/me
        gives the cookie), joins with it and links the seat to the player, as the page does."""
        players = self.players
        setup = asyncio.Semaphore(8)
        seats: list[tuple[int, str, str, str | None]] = []

        async def make(n: int) -> None:
            async with setup:
                server = self.servers[n % len(self.servers)]["http"]
                lobby = Lobby(server, source_address(n))
                try:
                    table_id = await lobby.create_table(players)
                    for s in range(players):
                        cookie = None
                        if signed:
                            lobby.http.cookies.clear()
                            await lobby.call("GET", "/api/me")
                            cookie = lobby.http.cookies.get("ds_player")
                        _seat, token = await lobby.join(table_id, f"H{n} s{s}")
                        if signed:
                            r = await lobby.http.post(
                                "/api/me/seats", json={"table_id": table_id, "token": token}
                            )
                            if r.status_code != 204:
                                raise RuntimeError(f"linking a seat: {r.status_code} {r.text}")
                        seats.append((n, table_id, token, cookie))
                finally:
                    await lobby.close()

        await asyncio.gather(*(make(n) for n in range(base, base + tables)))
        return seats

    async def storm(self, seats: list[tuple[int, str, str, str | None]]) -> dict[str, float]:
        """Every socket of `seats` connects at once; the server's CPU until each has its table
        frame, and until the server is quiet again."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        pids = [s["pid"] for s in self.servers]
        retried = [0]

        async def one(n: int, table_id: str, token: str, cookie: str | None) -> Any:
            """Connected with its table frame; a refusal (1013: the server is overloaded) is
            retried after a second, as the client does, and counted."""
            server = self.servers[n % len(self.servers)]
            headers = {"Cookie": f"ds_player={cookie}"} if cookie else None
            for _ in range(30):
                try:
                    ws = await connect(
                        f"{server['ws']}/ws/tables/{table_id}?token={token}",
                        max_size=2**22,
                        open_timeout=300,
                        close_timeout=5,
                        local_addr=(source_address(n), 0),
                        additional_headers=headers,
                    )
                    while json.loads(await ws.recv()).get("type") != "table":
                        pass
                    return ws
                except (ConnectionClosed, OSError, TimeoutError):
                    retried[0] += 1
                    await asyncio.sleep(1.0)
            raise RuntimeError("a handshake was refused 30 times")

        # What the previous storm set off (its departures, collections) must not be counted:
        # wait until the server is quiet (under 5% of a core for a second), 60 s at most.
        for _ in range(120):
            c0, t0 = cpu_seconds(pids), now()
            await asyncio.sleep(1.0)
            if (cpu_seconds(pids) - c0) / (now() - t0) < 0.05:
                break
        c0, t0 = cpu_seconds(pids), now()
        await asyncio.sleep(2.0)
        idle = (cpu_seconds(pids) - c0) / (now() - t0)
        print(f"handshakes: {len(seats)} sockets connecting at once", file=sys.stderr, flush=True)
        cpu0, t0 = cpu_seconds(pids), now()
        sockets = await asyncio.gather(*(one(*seat) for seat in seats))
        cpu1, t1 = cpu_seconds(pids), now()
        # What the connects set off after their frames (presence sent to the tables, chat
        # history): until the server is back to its idle rate.
        last = cpu1
        while now() - t1 < 30:
            await asyncio.sleep(0.5)
            cpu = cpu_seconds(pids)
            if cpu - last <= max(0.02, idle * 0.5 * 2):
                break
            last = cpu
        t2 = now()
        quiet = cpu_seconds(pids) - cpu0 - idle * (t2 - t0)
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
        await asyncio.sleep(1.0)
        n = len(sockets)
        return {
            "sockets": n,
            "wall_s": t1 - t0,
            "cpu_s": cpu1 - cpu0,
            "cpu_ms_per_handshake": (cpu1 - cpu0) / n * 1000,
            "cpu_ms_per_handshake_until_quiet": quiet / n * 1000,
            "idle_cpu_share": idle,
            "retried": retried[0],
            "loadavg": os.getloadavg()[0],
        }

    async def run(self) -> dict[str, Any]:
        cfg = self.cfg
        pids = [s["pid"] for s in self.servers]
        handshakes = await self.handshakes() if cfg.get("handshake_tables") else None
        if not cfg["games"]:
            return {"handshakes": handshakes}
        setup = asyncio.Semaphore(8 if cfg["games"] <= 200 else 32)  # many games: set up faster
        tables = [asyncio.create_task(self.table(n, setup)) for n in range(cfg["games"])]
        watchdog = asyncio.create_task(self.watchdog())
        setup_began = now()
        waiter = asyncio.create_task(self.all_started.wait())
        await asyncio.wait(
            [waiter, *tables], timeout=cfg["setup_timeout"], return_when=asyncio.FIRST_COMPLETED
        )
        failed = [t for t in tables if t.done() and t.exception()]
        if failed or not self.all_started.is_set():
            self.stop.set()
            raise RuntimeError(
                f"setting up the games failed: {failed[0].exception()!r}"
                if failed
                else f"setting up the games took over {cfg['setup_timeout']:.0f} s "
                f"({self.ready} of {cfg['games']} ready, {self.started} started)"
            )
        setup_seconds = now() - setup_began
        await asyncio.sleep(cfg["warmup"])
        samples: list[float] = []
        postgres = PostgresBackends(cfg["database_url"], pids)
        await postgres.sample()
        counted0 = await counters(self.servers)
        cpu0, own0 = cpu_seconds(pids), resource.getrusage(resource.RUSAGE_SELF)
        STATS.start = now()
        STATS.end = STATS.start + cfg["seconds"]
        print(f"window: measuring for {cfg['seconds']:g} s", file=sys.stderr, flush=True)
        next_pg = STATS.start + 1.0
        while now() < STATS.end:
            samples.append(rss_mib(pids))
            if now() >= next_pg:  # the pool may open backends during the window
                next_pg += 1.0
                await postgres.sample()
            await asyncio.sleep(min(0.25, max(0.0, STATS.end - now())))
        t1 = now()
        cpu1, own1 = cpu_seconds(pids), resource.getrusage(resource.RUSAGE_SELF)
        counted1 = await counters(self.servers)
        await postgres.sample()
        await postgres.close()
        samples.append(rss_mib(pids))
        window = t1 - STATS.start
        STATS.end = t1
        self.stop.set()
        await asyncio.wait(tables, timeout=10)
        watchdog.cancel()
        for task in tables:
            task.cancel()
        for thinker in list(self.thinkers):
            thinker.cancel()
        for lobby in self.lobbies.values():
            await lobby.close()
        server_cpu = cpu1 - cpu0
        own_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
        return {
            "handshakes": handshakes,
            "pace": cfg.get("pace") or 0.0,
            "server_cpu_share": server_cpu / window,
            "window_s": window,
            "setup_s": setup_seconds,
            "acks": STATS.acks,
            "actions_per_s": STATS.acks / window,
            "server_cpu_s": server_cpu,
            "server_cpu_ms_per_action": server_cpu / STATS.acks * 1000 if STATS.acks else None,
            "actions_per_server_cpu_s": STATS.acks / server_cpu if server_cpu else None,
            "client_cpu_share": own_cpu / window,
            "postgres_backends": len(postgres.last),
            "postgres_cpu_ms_per_action": (
                postgres.seconds() / STATS.acks * 1000 if STATS.acks else None
            ),
            "rss_mib_peak_sampled": max(samples),
            "rss_mib_end": samples[-1],
            "rss_mib_hwm": sum(status_kib(p, "VmHWM") for p in pids) / 1024,
            "reveal_n": len(STATS.reveals),
            "reveal_p50": percentile(STATS.reveals, 50),
            "reveal_p99": percentile(STATS.reveals, 99),
            "ack_p50": percentile(STATS.ack_latency, 50),
            "ack_p99": percentile(STATS.ack_latency, 99),
            "cross_n": len(STATS.cross),
            "cross_p50": percentile(STATS.cross, 50),
            "cross_p99": percentile(STATS.cross, 99),
            "cross_b_first": sum(1 for x in STATS.cross if x < 0),
            "games_started": STATS.games_started,
            "games_finished": STATS.games_finished,
            "duplicates": STATS.duplicates,
            "errors": dict(STATS.errors),
            "closes": dict(STATS.closes),
            "reconnects": STATS.reconnects,
            "resends": STATS.resends,
            "lobby_5xx_retried": Lobby.server_errors,
            "deltas": bool(cfg.get("deltas")),
            "game_frames": STATS.game_frames,
            "game_frame_bytes_per_action": (
                STATS.game_frame_bytes / STATS.acks if STATS.acks else None
            ),
            "game_frame_bytes_mean": (
                STATS.game_frame_bytes / STATS.game_frames if STATS.game_frames else None
            ),
            "delta_share": STATS.deltas / STATS.game_frames if STATS.game_frames else None,
            "syncs": STATS.syncs,
            "version_conflicts": counted1[COUNTERS[0]] - counted0[COUNTERS[0]],
            "notifications_received": counted1[COUNTERS[1]] - counted0[COUNTERS[1]],
            "remote_from_notification": counted1[COUNTERS[2]] - counted0[COUNTERS[2]],
            "remote_from_database": counted1[COUNTERS[3]] - counted0[COUNTERS[3]],
            "push_lookups": counted1[COUNTERS[4]] - counted0[COUNTERS[4]],
            "gc_pauses": gc_pauses(counted0, counted1),
        }


def run_client() -> None:
    cfg = json.loads(sys.stdin.read())
    raise_fd_limit(
        (
            cfg["games"] * (cfg["players"] + len(cfg["servers"]))
            + cfg.get("handshake_tables", 0) * cfg["players"] * 2
        )
        * 2
        + 256
    )

    async def main() -> dict[str, Any]:
        return await Client(cfg).run()

    try:
        result = asyncio.run(main())
    except KeyboardInterrupt:
        return
    except Exception as exc:  # reported by the bench, which stops everything
        result = {"failure": repr(exc)}
    sys.stdout.write(json.dumps(result) + "\n")


# == the bench (orchestrates; runs nothing heavy itself) =========================================


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def combine(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """References measured before and after the load: the mean of the two (the machine is
    shared, and one reading can land in someone else's fsync storm); both are kept."""
    out: dict[str, Any] = {}
    for name, first in before.items():
        second = after[name]
        out[name] = {
            key: (first[key] + second[key]) / 2
            if isinstance(first[key], float) and isinstance(second[key], float)
            else first[key]
            for key in first
        }
        out[name]["before"], out[name]["after"] = first, second
    return out


def report_handshakes(args: argparse.Namespace, hs: dict[str, Any] | None) -> None:
    if hs is None or args.json:
        return
    if "rounds" in hs:
        report_compared(args, hs)
        return
    for name, label in (("first", "first connects"), ("again", "all at once again")):
        r = hs[name]
        print(
            f"handshakes ({label}): {r['sockets']} seat sockets of {hs['tables']} tables x "
            f"{args.players} (not started) at once: server CPU "
            f"{r['cpu_ms_per_handshake']:.2f} ms per handshake until every socket had its "
            f"table ({r['cpu_s']:.2f} CPU s, wall {r['wall_s']:.2f} s); "
            f"{r['cpu_ms_per_handshake_until_quiet']:.2f} ms until the server was quiet "
            f"again (idle {r['idle_cpu_share'] * 100:.1f}% of a core subtracted); "
            f"refused and retried: {r['retried']}"
        )


def report_compared(args: argparse.Namespace, hs: dict[str, Any]) -> None:
    """--handshake-rounds: guests against signed-in players, each round and the medians."""
    sockets = hs["first"]["guest"]["sockets"]
    print(
        f"handshakes, guests against signed-in players: {sockets} seat sockets of "
        f"{hs['tables']} tables x {args.players} per kind, at once; server CPU ms per handshake "
        "until every socket had its table / until the server was quiet"
    )
    for kind in ("guest", "player"):
        r = hs["first"][kind]
        print(
            f"  first connects, {kind}: {r['cpu_ms_per_handshake']:.2f} / "
            f"{r['cpu_ms_per_handshake_until_quiet']:.2f} (load {r['loadavg']:.2f})"
        )
    for i in range(hs["rounds"]):
        g, p = hs["again"]["guest"][i], hs["again"]["player"][i]
        print(
            f"  round {i + 1}: guest {g['cpu_ms_per_handshake']:.2f} / "
            f"{g['cpu_ms_per_handshake_until_quiet']:.2f}, player "
            f"{p['cpu_ms_per_handshake']:.2f} / {p['cpu_ms_per_handshake_until_quiet']:.2f} "
            f"(load {g['loadavg']:.2f}, {p['loadavg']:.2f}; retried {g['retried']}, {p['retried']})"
        )
    for key, label in (
        ("cpu_ms_per_handshake", "until every table frame"),
        ("cpu_ms_per_handshake_until_quiet", "until quiet"),
    ):
        g = statistics.median(r[key] for r in hs["again"]["guest"])
        p = statistics.median(r[key] for r in hs["again"]["player"])
        print(
            f"  median of {hs['rounds']} rounds, {label}: guest {g:.2f} ms, player {p:.2f} ms "
            f"({(p / g - 1) * 100:+.1f}%)"
        )


def report(args: argparse.Namespace, refs: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    report_handshakes(args, run.get("handshakes"))
    if not args.games:
        if args.json:
            print(json.dumps(run))
        return run
    one, pool, echo = refs["commit_1"], refs["commit_pool"], refs["echo"]
    reveal_ref = (echo["p99"] or 0) + (one["p99"] or 0)
    figures = {
        "games": args.games,
        "players": args.players,
        "processes": args.processes,
        "loadavg_start": refs["loadavg_start"],
        "loadavg_end": os.getloadavg()[0],
        "pool_size": args.pool_size,
        "seconds": args.seconds,
        "warmup": args.warmup,
        **run,
        "ref_commit_1_tx_per_s": one["tx_per_s"],
        "ref_commit_1_p50": one["p50"],
        "ref_commit_1_p99": one["p99"],
        "ref_commit_pool_tx_per_s": pool["tx_per_s"],
        "ref_commit_pool_p99": pool["p99"],
        "ref_temp_1_tx_per_s": refs["temp_1"]["tx_per_s"],
        "ref_temp_1_p99": refs["temp_1"]["p99"],
        "ref_temp_pool_tx_per_s": refs["temp_pool"]["tx_per_s"],
        "ref_temp_pool_p99": refs["temp_pool"]["p99"],
        "ref_echo_p50": echo["p50"],
        "ref_echo_p99": echo["p99"],
        "ref_commit_1_tx_per_s_before_after": [one["before"]["tx_per_s"], one["after"]["tx_per_s"]],
        "ref_commit_1_p99_before_after": [one["before"]["p99"], one["after"]["p99"]],
        "ref_echo_p99_before_after": [echo["before"]["p99"], echo["after"]["p99"]],
        "ratio_actions_per_s_to_commit_1": ratio(run["actions_per_s"], one["tx_per_s"]),
        "ratio_actions_per_cpu_s_to_commit_1": ratio(
            run["actions_per_server_cpu_s"], one["tx_per_s"]
        ),
        "ratio_reveal_p99_to_echo_p99_plus_commit_p99": ratio(run["reveal_p99"], reveal_ref),
    }
    if args.json:
        rates = [one["before"]["tx_per_s"], one["after"]["tx_per_s"]]
        figures["ref_steady"] = max(rates) <= 1.5 * min(rates)
        print(json.dumps(figures))
        return figures
    f = figures
    pace = f"a mean think time of {args.pace:g} s" if args.pace else "machine speed"
    print(
        f"load: {args.games} games x {args.players} seats at {pace}, "
        f"{args.processes} server process(es)"
        f"{' (every socket of a game on one)' if args.by_table and args.processes > 1 else ''}, "
        f"{spectators(args)} spectator(s) per game, DB_POOL_SIZE={args.pool_size}, "
        f"window {f['window_s']:.1f} s after {args.warmup:.0f} s warm-up "
        f"(setup {f['setup_s']:.1f} s)"
    )
    print(
        f"  committed actions/s:     {f['actions_per_s']:.1f}  ({f['acks']} acks; "
        f"games started {f['games_started']}, finished {f['games_finished']})"
    )
    print(
        f"  reveal latency:          p50 {ms(f['reveal_p50'])}, p99 {ms(f['reveal_p99'])} "
        f"over {f['reveal_n']} auctions"
    )
    print(f"  action sent -> ack:      p50 {ms(f['ack_p50'])}, p99 {ms(f['ack_p99'])}")
    cpu = f["server_cpu_ms_per_action"]
    print(
        f"  server CPU per action:   {'n/a' if cpu is None else f'{cpu:.2f} ms'} "
        f"({f['server_cpu_s']:.1f} CPU s; "
        f"{f['actions_per_server_cpu_s'] or 0:.0f} actions per CPU s)"
    )
    print(
        f"  game frames received:    {f['game_frame_bytes_per_action'] or 0:.0f} B per action "
        f"over every socket, {f['game_frame_bytes_mean'] or 0:.0f} B per frame "
        f"({f['game_frames']} frames; deltas {'on' if f['deltas'] else 'off'}: "
        f"{(f['delta_share'] or 0) * 100:.0f}% were deltas, {f['syncs']} syncs)"
    )
    pg = f["postgres_cpu_ms_per_action"]
    print(
        f"  Postgres CPU per action: {'n/a' if pg is None else f'{pg:.2f} ms'} (the "
        f"{f['postgres_backends']} backends serving the server's connections)"
    )
    print(
        f"  server CPU:              {f['server_cpu_share'] * 100:.1f}% of one core over the window"
    )
    print(
        f"  server RSS:              peak {f['rss_mib_peak_sampled']:.1f} MiB in the window "
        f"(VmHWM {f['rss_mib_hwm']:.1f}), end {f['rss_mib_end']:.1f} MiB"
    )
    print(
        f"  version conflicts:       {f['version_conflicts']:.0f} in the window; notifications "
        f"received {f['notifications_received']:.0f} (all processes)"
    )
    if args.processes > 1:
        print(
            f"  other processes' versions: {f['remote_from_notification']:.0f} applied from "
            f"their notification, {f['remote_from_database']:.0f} read back"
        )
    print(
        f"  push: who is online read {f['push_lookups']:.0f} times from the database in the "
        "window (else known in memory)"
    )
    parts = []
    for g, p in f["gc_pauses"].items():
        longest = p["longest_at_most"]
        bound = f", each <= {float(longest) * 1000:g} ms" if longest and longest != "+Inf" else ""
        parts.append(f"gen{g} {p['pauses']:.0f} ({p['seconds'] * 1000:.0f} ms{bound})")
    gc_seconds = sum(p["seconds"] for p in f["gc_pauses"].values())
    share = 100 * gc_seconds / f["server_cpu_s"] if f["server_cpu_s"] else 0.0
    print(f"  collector pauses:        {', '.join(parts)}: {share:.1f}% of the server CPU")
    if args.processes > 1:
        print(
            f"  cross-process delivery:  p50 {ms(f['cross_p50'])}, p99 {ms(f['cross_p99'])} "
            f"over {f['cross_n']} actions (ack on A -> spectator on B; "
            f"{f['cross_b_first']} reached B first)"
        )
    print(
        f"  load client:             {f['client_cpu_share'] * 100:.0f}% of a core; "
        f"errors {f['errors'] or 0}, closes {f['closes'] or 0}, "
        f"reconnects {f['reconnects']}, resends {f['resends']}, lobby 5xx retried "
        f"{f['lobby_5xx_retried']}"
    )
    print("references (same run, servers not running: mean of before and after the load):")
    print(
        f"  asyncpg jsonb insert+commit, 1 connection:    {one['tx_per_s']:.0f} tx/s, "
        f"commit p50 {ms(one['p50'])}, p99 {ms(one['p99'])}  (before/after: "
        f"{one['before']['tx_per_s']:.0f}/{one['after']['tx_per_s']:.0f} tx/s)"
    )
    print(
        f"  asyncpg jsonb insert+commit, {pool['connections']} connections:  "
        f"{pool['tx_per_s']:.0f} tx/s, commit p99 {ms(pool['p99'])}"
    )
    temp1, tempn = refs["temp_1"], refs["temp_pool"]
    print(
        f"  the same into a temp table (no WAL flush, not used in ratios): "
        f"{temp1['tx_per_s']:.0f} tx/s on 1, {tempn['tx_per_s']:.0f} tx/s on "
        f"{tempn['connections']}; p99 {ms(temp1['p99'])} / {ms(tempn['p99'])}"
    )
    print(
        f"  WebSocket echo round trip ({echo['bytes']} B): p50 {ms(echo['p50'])}, "
        f"p99 {ms(echo['p99'])}"
    )

    def show(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    rates = [one["before"]["tx_per_s"], one["after"]["tx_per_s"]]
    steady = max(rates) <= 1.5 * min(rates)
    figures["ref_steady"] = steady
    print(
        f"  load average (1 min) at start / end: {f['loadavg_start']:.1f} / "
        f"{f['loadavg_end']:.1f} on {os.cpu_count()} CPUs"
    )
    if max(f["loadavg_start"], f["loadavg_end"]) > (os.cpu_count() or 1):
        print(
            "  WARNING: the load average is above the CPU count: other work shares the "
            "machine (its fsyncs slow the commit references too); figures are indicative"
        )
    if not steady:
        print(
            f"  WARNING: the 1-connection commit rate moved from {rates[0]:.0f} to "
            f"{rates[1]:.0f} tx/s between before and after: the machine is busy and the "
            f"ratios below are unreliable"
        )
    print("ratios:")
    print(
        f"  actions/s / 1-connection commit rate:             "
        f"{show(f['ratio_actions_per_s_to_commit_1'])}  (target >= 0.35 at 50 games)"
    )
    print(
        f"  actions per server CPU s / 1-conn commit rate:    "
        f"{show(f['ratio_actions_per_cpu_s_to_commit_1'])}  (target >= 0.35; on a quiet "
        f"machine about 0.86 ms of server CPU per action)"
    )
    print(
        f"  reveal p99 / (echo p99 + commit p99):             "
        f"{show(f['ratio_reveal_p99_to_echo_p99_plus_commit_p99'])}  (target <= 3 at 200 games)"
    )
    if args.processes > 1:
        print(
            f"  cross-process p99:                                {ms(f['cross_p99'])}  "
            f"(target <= 25 ms)"
        )
    return figures


def spectators(args: argparse.Namespace) -> int:
    """Spectators per game: --spectators, else one on each process when there are several."""
    if args.spectators is not None:
        return int(args.spectators)
    return args.processes if args.processes > 1 else 0


def bench(args: argparse.Namespace) -> int:
    raise_fd_limit(4096)
    schema = new_schema_name("bench_load")
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    servers: list[Server] = []
    helpers: list[subprocess.Popen[bytes]] = []
    ok = False
    create_schema(args.database_url, schema)
    try:

        def say(text: str) -> None:
            if not args.json:
                print(text, file=sys.stderr)

        say(f"schema {schema}; references ({args.ref_seconds:.0f} s each)...")
        echo_port = free_port()
        helpers.append(
            subprocess.Popen(
                [sys.executable, __file__, "--echo-server", str(echo_port)], start_new_session=True
            )
        )

        async def references() -> dict[str, Any]:
            url, n, secs = args.database_url, args.pool_size, args.ref_seconds
            return {
                "commit_1": await commit_reference(url, 1, secs, schema),
                "commit_pool": await commit_reference(url, n, secs, schema),
                "temp_1": await commit_reference(url, 1, secs, None),
                "temp_pool": await commit_reference(url, n, secs, None),
                "echo": await echo_reference(echo_port, secs),
            }

        loadavg_start = os.getloadavg()[0]
        before = asyncio.run(references())
        env = server_env(args, args.database_url, schema, DB_POOL_SIZE=str(args.pool_size))
        for i in range(args.processes):  # one after the other: the first applies migrations
            server = Server(env, workdir, f"server{i}")
            servers.append(server)
            server.start()
        say(f"{args.processes} server(s) up; playing {args.games} games...")
        cfg = {
            "servers": [{"http": s.http, "ws": s.ws, "pid": s.pid} for s in servers],
            "games": args.games,
            "players": args.players,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "setup_timeout": 60 + args.games * 1.0,
            "seed": args.seed,
            "database_url": args.database_url,
            "pace": args.pace,
            "handshake_tables": args.handshakes,
            "handshake_rounds": args.handshake_rounds,
            "handshake_watched": args.handshake_watched,
            "deltas": args.deltas,
            "spectators": spectators(args),
            "by_table": args.by_table,
            "no_replace": args.no_replace,
        }
        client = subprocess.Popen(
            [sys.executable, __file__, "--client"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        helpers.append(client)
        out, _ = client.communicate(
            json.dumps(cfg).encode(),
            timeout=cfg["setup_timeout"]
            + args.warmup
            + args.seconds
            + 60
            + args.handshakes * 2.0 * (1 + 2 * args.handshake_rounds),
        )
        lines = out.decode().strip().splitlines()
        run = json.loads(lines[-1]) if lines else {"failure": "the client printed nothing"}
        if "failure" in run:
            print(f"load client failed: {run['failure']}", file=sys.stderr)
            for s in servers:
                print(f"--- {s.log_path.name} (tail)\n{s.log_tail()}", file=sys.stderr)
            return 1
        for s in servers:
            if s.proc is not None and s.proc.poll() is not None:
                print(f"server exited during the run:\n{s.log_tail()}", file=sys.stderr)
                return 1
            s.stop()
        say("references again, with the servers stopped...")
        after = asyncio.run(references())
        report(args, {**combine(before, after), "loadavg_start": loadavg_start}, run)
        ok = True
        return 0
    except subprocess.TimeoutExpired:
        print("the load client did not finish in time: stopping everything", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: stopping the servers and dropping the schema", file=sys.stderr)
        return 130
    finally:
        for proc in helpers:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        for s in servers:
            s.stop()
        drop_schema(args.database_url, schema)
        if ok and not args.keep_logs:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"server logs kept in {workdir}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=4, help="seats per game (3-6)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before the window")
    parser.add_argument("--processes", type=int, default=1, help="server processes (1 or 2+)")
    parser.add_argument(
        "--spectators",
        type=int,
        default=None,
        help="spectator sockets per game, spread over the processes in turn (default: none with "
        "one process, one per process with several, which the cross-process delivery needs); "
        "`--processes 1 --spectators 2` has as many sockets per game as `--processes 2`",
    )
    parser.add_argument(
        "--by-table",
        action="store_true",
        help="with several processes, every socket of a game on the same process (game n on "
        "process n mod --processes), as a proxy routing by table would send them",
    )
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", PG_URL))
    parser.add_argument(
        "--pool-size",
        type=int,
        default=10,
        help="DB_POOL_SIZE for the servers and connections of the reference",
    )
    parser.add_argument(
        "--ref-seconds", type=float, default=3.0, help="seconds of each reference measurement"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        metavar="KEY=VALUE",
        help="more settings for the servers (repeatable)",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the servers' logs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean think time of each seat before acting (0: machine speed)",
    )
    parser.add_argument(
        "--handshakes",
        type=int,
        default=0,
        metavar="TABLES",
        help="first connect the seats of this many unstarted tables at once "
        "and print the server's CPU per handshake (200: 800 sockets)",
    )
    parser.add_argument(
        "--handshake-watched",
        action="store_true",
        help="with --handshakes: a spectator socket stays open at every table throughout, so "
        "that its room (and the table's rows) stays in memory between storms, as at a table "
        "being played",
    )
    parser.add_argument(
        "--handshake-rounds",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="with --handshakes: as many tables again whose seats are signed-in players (their "
        "cookie sent with the socket), and ROUNDS storms of each kind in turn; prints both and "
        "the medians",
    )
    parser.add_argument(
        "--deltas",
        action="store_true",
        help="every socket asks for delta frames (deltas=1), as the browser client does",
    )
    parser.add_argument(
        "--no-replace",
        action="store_true",
        help="a game that ends in the window is not replaced (as in boardgame.io's peer, whose "
        "matches never end): no lobby calls or new sockets in the window, only play",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line of figures")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--echo-server", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        run_client()
        return 0
    if args.echo_server is not None:
        run_echo_server(args.echo_server)
        return 0
    if not args.database_url.startswith(("postgresql", "postgres:")):
        parser.error("--database-url must be a Postgres URL")
    terminate_on_sigterm()
    return bench(args)


if __name__ == "__main__":
    sys.exit(main())
