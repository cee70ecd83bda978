"""Benchmark: what sockets cost the server, idle and never reading.

    .venv/bin/python bench/sockets.py [--sockets 1000] [--database sqlite|postgres]
    .venv/bin/python bench/sockets.py --slow-readers [--sockets 1000] [--tables 10]

Default (idle cost): starts the server, starts `--tables` tables (one person who never acts and
bots, so each game waits on the person), measures the server's RSS, opens `--sockets` spectator
sockets spread over the tables (reading what arrives, offering permessage-deflate as browsers do),
measures again and prints KiB per socket (target <= 64 KiB); then closes them all, waits, and
prints the RSS after and whether it is within 10% of the start. `--activity play` makes the
person play (after `--think` s, bots after BOT_DELAY_SECONDS=`--bot-delay`) and waits for the
games to end after the sockets close.

`--slow-readers`: tables of `--seats` (default 6) whose bots play without delay
(BOT_DELAY_SECONDS=0) and whose person is a scripted client acting at machine speed;
`--sockets` spectator sockets spread over them complete the WebSocket handshake by hand on a raw
socket with a tiny receive buffer and never read again, plus one honest spectator per table that
reads everything and checks that it loses no version (every version in order, or a jump
announced by `resync`). Prints the server's peak RSS (target < 400 MB), how many slow sockets
the server closed and when (seen from /proc/net/tcp: the server's end of the connection no longer
ESTABLISHED), and what each honest spectator saw.

Traffic goes only to 127.0.0.1; client sockets are bound to 127.0.0.2-251, `--per-address` per
address, so per-address limits of the server do not refuse them. `--server-env KEY=VALUE`
passes more settings (e.g. raised socket limits) to the server.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import os
import random
import shutil
import socket
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    PG_URL,
    Lobby,
    Server,
    create_schema,
    decide,
    drop_schema,
    new_schema_name,
    raise_fd_limit,
    rss_mib,
    server_env,
    source_address,
    status_kib,
    terminate_on_sigterm,
)

now = time.perf_counter


def fd_count(pid: int) -> int:
    with contextlib.suppress(OSError):
        return len(os.listdir(f"/proc/{pid}/fd"))
    return -1


async def settle_rss(pid: int, seconds: float) -> float:
    """RSS after `seconds` of quiet: the median of a few samples in the last second."""
    await asyncio.sleep(max(0.0, seconds - 1.0))
    samples = []
    for _ in range(5):
        samples.append(rss_mib([pid]))
        await asyncio.sleep(0.2)
    return sorted(samples)[len(samples) // 2]


# -- clients ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class Watcher:
    """A spectator socket that reads everything and checks the versions it sees."""

    table_id: str
    ws: Any = None
    version: int = -1
    states: int = 0
    in_order: int = 0
    resync_jumps: int = 0
    skipped_with_resync: int = 0
    gaps: int = 0  # a jump forward without resync: versions lost
    backwards: int = 0
    closed: int | None = None
    over: bool = False

    def absorb(self, m: dict[str, Any]) -> None:
        if m.get("type") != "state":
            return
        self.states += 1
        v = int(m["version"])
        if self.version < 0 or v == self.version + 1:
            self.in_order += 1
        elif v <= self.version:
            self.backwards += 1
        elif m.get("resync") or m.get("events_from") != self.version:
            self.resync_jumps += 1
            self.skipped_with_resync += v - self.version - 1
        else:
            self.gaps += 1
        self.version = max(self.version, v)
        if m["view"].get("winner") is not None:
            self.over = True


async def open_ws(
    base: str, table_id: str, address: str, token: str | None = None, deflate: bool = True
) -> Any:
    from websockets.asyncio.client import connect

    url = f"{base}/ws/tables/{table_id}" + (f"?token={token}" if token else "")
    return await connect(
        url,
        max_size=2**22,
        open_timeout=60,
        close_timeout=2,
        local_addr=(address, 0),
        compression="deflate" if deflate else None,
    )


async def watch(w: Watcher, stop: asyncio.Event) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        while not stop.is_set():
            w.absorb(json.loads(await w.ws.recv()))
    except ConnectionClosed as exc:
        w.closed = exc.rcvd.code if exc.rcvd else 1006


async def person(
    ws: Any, seat: int, think: float, rng: random.Random, stop: asyncio.Event, errors: list[str]
) -> None:
    """Plays its seat: answers its own prompt after `think` seconds (negative: never). A refused
    action is drawn again (a few times) rather than left waiting for a state that won't come."""
    from websockets.exceptions import ConnectionClosed

    counter, pending, prompt, refusals = 0, False, None, 0
    with contextlib.suppress(ConnectionClosed):
        while not stop.is_set():
            m = json.loads(await ws.recv())
            kind = m.get("type")
            if kind in ("ack", "error"):
                pending = False
                if kind == "error":
                    errors.append(str(m.get("code")))
                    refusals += 1
                    if refusals > 20:
                        return
            if kind == "state":
                if m["view"].get("winner") is not None:
                    return
                refusals = 0
                prompt = next(
                    (
                        p
                        for p in m["prompts"]
                        if p["seat"] == seat and ("max" in p or "options" in p)
                    ),
                    None,
                )
            if prompt is not None and not pending and think >= 0:
                if think:
                    await asyncio.sleep(think)
                counter += 1
                pending = True
                await ws.send(
                    json.dumps(
                        {
                            "type": "action",
                            "action": decide(prompt, rng),
                            "action_id": f"p{seat}-{counter}",
                        }
                    )
                )
                prompt = None  # answered: the next state says what comes next


def open_slow_socket(port: int, path: str, address: str, deflate: bool) -> socket.socket:
    """A WebSocket handshake by hand; afterwards the socket is never read. A tiny receive
    buffer (set before connecting, so the window is small) makes the server's sends back up."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind((address, 0))
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    extension = (
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        if deflate
        else ""
    )
    s.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extension}\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)  # one byte at a time: nothing past the handshake is read
        if not chunk:
            raise ConnectionError("the server closed during the handshake")
        head += chunk
    status = head.split(b"\r\n", 1)[0]
    if b" 101 " not in status + b" ":
        s.close()
        raise ConnectionError(f"handshake refused: {status.decode(errors='replace')}")
    return s


def server_side_states(port: int) -> dict[tuple[str, int], tuple[int, int]]:
    """(client ip, client port) -> (TCP state, bytes unsent) of the server's end of each
    connection to `port`, from /proc/net/tcp. State 1 is ESTABLISHED."""
    out: dict[tuple[str, int], tuple[int, int]] = {}
    want = f":{port:04X}"
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            local, remote, state, queues = parts[1], parts[2], parts[3], parts[4]
            if not local.endswith(want):
                continue
            ip_hex, port_hex = remote.split(":")
            ip = ".".join(str(b) for b in reversed(bytes.fromhex(ip_hex)))
            out[(ip, int(port_hex, 16))] = (int(state, 16), int(queues.split(":")[0], 16))
    return out


# -- the runs --------------------------------------------------------------------------------------


@dataclass
class Tables:
    ids: list[str] = field(default_factory=list)
    people: list[tuple[str, int, str]] = field(default_factory=list)  # table, seat, token


async def make_tables(server: Server, count: int, seats: int) -> tuple[Tables, Lobby]:
    lobby = Lobby(server.http, "127.0.0.1")
    tables = Tables()
    for i in range(count):
        table_id = await lobby.create_table(seats)
        seat, token = await lobby.join(table_id, f"Watched {i}")
        await lobby.add_bots(table_id, token, seats - 1)
        tables.ids.append(table_id)
        tables.people.append((table_id, seat, token))
    return tables, lobby


async def idle_cost(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    pid, stop = server.pid, asyncio.Event()
    lobby0 = Lobby(server.http, "127.0.0.1")
    await lobby0.call("GET", "/api/tables")  # warm the lazy paths before the first reading
    rss_fresh = await settle_rss(pid, 1.5)
    tables, lobby = await make_tables(server, args.tables, args.seats)
    people = []
    person_errors: list[str] = []
    rng = random.Random(args.seed)
    for table_id, seat, token in tables.people:
        ws = await open_ws(server.ws, table_id, "127.0.0.1", token)
        people.append(
            asyncio.create_task(
                person(
                    ws,
                    seat,
                    args.think if args.activity == "play" else -1,
                    rng,
                    stop,
                    person_errors,
                )
            )
        )
        await lobby.start(table_id, token)
    rss_before = await settle_rss(pid, 2.0)
    fds_before = fd_count(pid)
    gate = asyncio.Semaphore(50)

    refused: Counter[str] = Counter()

    async def open_one(i: int, into: list[Watcher]) -> None:
        from websockets.exceptions import InvalidHandshake

        w = Watcher(tables.ids[i % len(tables.ids)])
        async with gate:
            try:
                w.ws = await open_ws(
                    server.ws,
                    w.table_id,
                    source_address(i // args.per_address),
                    deflate=not args.no_deflate,
                )
            except (InvalidHandshake, OSError) as exc:  # a limit of the server, say
                refused[type(exc).__name__ + ": " + str(exc)[:80]] += 1
                return
        into.append(w)

    async def open_all() -> tuple[list[Watcher], list[asyncio.Task[None]]]:
        watchers: list[Watcher] = []
        await asyncio.gather(*(open_one(i, watchers) for i in range(args.sockets)))
        readers = [asyncio.create_task(watch(w, stop)) for w in watchers]
        deadline = now() + 60  # each socket's first state has arrived, or a minute passed
        while now() < deadline and not all(w.states or w.closed for w in watchers):
            await asyncio.sleep(0.1)
        return watchers, readers

    async def close_all(watchers: list[Watcher], readers: list[asyncio.Task[None]]) -> None:
        await asyncio.gather(*(w.ws.close() for w in watchers), return_exceptions=True)
        for task in readers:
            task.cancel()

    began = now()
    watchers, readers = await open_all()
    open_seconds = now() - began
    rss_open = await settle_rss(pid, 3.0)
    fds_open = fd_count(pid)
    per_socket_kib = (rss_open - rss_before) * 1024 / max(1, len(watchers))
    closed_early = Counter(str(w.closed) for w in watchers if w.closed is not None)
    await close_all(watchers, readers)
    games_over = None
    if args.activity == "play":  # let the games end, within --seconds
        deadline = now() + args.seconds
        while now() < deadline and not all(t.done() for t in people):
            await asyncio.sleep(0.5)
        games_over = sum(1 for t in people if t.done())
    stop.set()
    for task in people:
        task.cancel()
    rss_closed = await settle_rss(pid, args.settle)
    cycles = []  # later rounds: memory the first round left behind is reused, or it grows
    for _ in range(args.cycles - 1):
        more, more_readers = await open_all()
        opened = await settle_rss(pid, 3.0)
        await close_all(more, more_readers)
        cycles.append((opened, await settle_rss(pid, args.settle)))
    await lobby.close()
    await lobby0.close()
    return {
        "cycles": [[rss_open, rss_closed], *cycles],
        "connected": len(watchers),
        "refused": dict(refused),
        "closed_by_server": dict(closed_early),
        "mode": "idle",
        "sockets": args.sockets,
        "tables": args.tables,
        "seats": args.seats,
        "deflate_offered": not args.no_deflate,
        "activity": args.activity,
        "open_seconds": open_seconds,
        "rss_mib_fresh": rss_fresh,
        "rss_mib_before": rss_before,
        "rss_mib_open": rss_open,
        "rss_mib_closed": rss_closed,
        "kib_per_socket": per_socket_kib,
        "server_fds_before": fds_before,
        "server_fds_open": fds_open,
        "frames_per_socket": sum(w.states for w in watchers) / max(1, len(watchers)),
        "games_over": games_over,
        "person_errors": dict(Counter(person_errors)),
        "closed_within_10pct_of_before": rss_closed <= rss_before * 1.10,
        "closed_within_10pct_of_fresh": rss_closed <= rss_fresh * 1.10,
        "rss_mib_hwm": status_kib(pid, "VmHWM") / 1024,
    }


async def slow_readers(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    pid, stop = server.pid, asyncio.Event()
    rss_fresh = await settle_rss(pid, 1.5)
    tables, lobby = await make_tables(server, args.tables, args.seats)
    rss_tables = await settle_rss(pid, 1.5)
    watchers = [Watcher(t) for t in tables.ids]
    for w in watchers:
        w.ws = await open_ws(server.ws, w.table_id, "127.0.0.1")
    readers = [asyncio.create_task(watch(w, stop)) for w in watchers]
    slow: list[tuple[socket.socket, tuple[str, int]]] = []
    opened_at: list[float] = []
    loop = asyncio.get_running_loop()
    began = now()
    slow_refused: Counter[str] = Counter()
    for i in range(args.sockets):
        table_id = tables.ids[i % len(tables.ids)]
        try:
            s = await loop.run_in_executor(
                None,
                open_slow_socket,
                server.port,
                f"/ws/tables/{table_id}",
                source_address(i // args.per_address),
                not args.no_deflate,
            )
        except OSError as exc:  # ConnectionError included: a limit of the server, say
            slow_refused[str(exc)[:80]] += 1
            continue
        slow.append((s, s.getsockname()))
        opened_at.append(now())
    open_seconds = now() - began
    rss_before = await settle_rss(pid, 1.5)
    rng = random.Random(args.seed)
    people = []
    person_errors: list[str] = []
    for table_id, seat, token in tables.people:
        ws = await open_ws(server.ws, table_id, "127.0.0.1", token)
        people.append(asyncio.create_task(person(ws, seat, 0.0, rng, stop, person_errors)))
    started = now()
    for table_id, _, token in tables.people:
        await lobby.start(table_id, token)
    peak, closed_at, kernel_peak = rss_before, {}, 0
    since_open: list[float] = []
    samples: list[tuple[float, float]] = []
    games_done_at = None
    deadline, hold_until = started + args.seconds, math.inf
    next_scan = 0.0
    while True:
        t = now()
        rss = rss_mib([pid])
        peak = max(peak, rss)
        samples.append((t - started, rss))
        if t >= next_scan:
            next_scan = t + 1.0
            states = server_side_states(server.port)
            kernel_peak = max(kernel_peak, sum(q for _, q in states.values()))
            for index, (_, name) in enumerate(slow):
                if index not in closed_at and states.get(name, (0, 0))[0] != 1:
                    closed_at[index] = t - started
                    since_open.append(t - opened_at[index])
        if games_done_at is None and all(w.over or w.closed is not None for w in watchers):
            games_done_at = t - started
            hold_until = t + args.hold
        if t >= min(deadline, hold_until) or server.proc is None or server.proc.poll() is not None:
            break
        await asyncio.sleep(0.25)
    unsent = sum(q for (st, q) in server_side_states(server.port).values() if st == 1)
    result_watchers = []
    for w in watchers:
        with contextlib.suppress(Exception):
            table = await lobby.call("GET", f"/api/tables/{w.table_id}")
            final = None
            if table.get("status") == "over" and table.get("game_id"):
                final = (await lobby.call("GET", f"/api/games/{table['game_id']}"))["version"]
            result_watchers.append(
                {
                    "table": w.table_id,
                    "states": w.states,
                    "last_version": w.version,
                    "final_version": final,
                    "in_order": w.in_order,
                    "resync_jumps": w.resync_jumps,
                    "skipped_with_resync": w.skipped_with_resync,
                    "gaps": w.gaps,
                    "backwards": w.backwards,
                    "closed": w.closed,
                }
            )
    stop.set()
    for task in readers + people:
        task.cancel()
    for s, _ in slow:
        s.close()
    for w in watchers:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(w.ws.close(), 2)
    rss_closed = await settle_rss(pid, args.settle)
    await lobby.close()
    times = sorted(closed_at.values())
    return {
        "mode": "slow_readers",
        "sockets": args.sockets,
        "tables": args.tables,
        "seats": args.seats,
        "deflate_offered": not args.no_deflate,
        "open_seconds": open_seconds,
        "rss_mib_fresh": rss_fresh,
        "rss_mib_tables": rss_tables,
        "rss_mib_before": rss_before,
        "rss_mib_peak": peak,
        "kib_per_idle_slow_socket": (rss_before - rss_tables) * 1024 / max(1, len(slow)),
        "slow_connected": len(slow),
        "slow_refused": dict(slow_refused),
        "rss_mib_hwm": status_kib(pid, "VmHWM") / 1024,
        "rss_mib_at_end_of_hold": samples[-1][1],
        "rss_mib_closed": rss_closed,
        "games_done_after_s": games_done_at,
        "observed_s": samples[-1][0],
        "slow_closed": len(times),
        "slow_closed_first_s": times[0] if times else None,
        "slow_closed_median_s": times[len(times) // 2] if times else None,
        "slow_closed_last_s": times[-1] if times else None,
        "slow_closed_after_open_min_median_max_s": (
            [min(since_open), sorted(since_open)[len(since_open) // 2], max(since_open)]
            if since_open
            else None
        ),
        "slow_closed_by_10s": [
            sum(1 for x in times if x <= b) for b in range(10, int(samples[-1][0]) + 11, 10)
        ],
        "server_unsent_kib_end": unsent / 1024,
        "server_unsent_kib_peak": kernel_peak / 1024,
        "person_errors": dict(Counter(person_errors)),
        "watchers": result_watchers,
    }


def print_idle(r: dict[str, Any]) -> None:
    print(
        f"idle sockets: {r['sockets']} spectator sockets on {r['tables']} started tables of "
        f"{r['seats']} (activity: {r['activity']}; deflate offered: {r['deflate_offered']}), "
        f"opened in {r['open_seconds']:.1f} s"
    )
    print(
        f"  server RSS fresh {r['rss_mib_fresh']:.1f} MiB; tables started "
        f"{r['rss_mib_before']:.1f} MiB; sockets open {r['rss_mib_open']:.1f} MiB "
        f"(fds {r['server_fds_before']} -> {r['server_fds_open']}; "
        f"{r['frames_per_socket']:.1f} states per socket)"
    )
    if r["refused"] or r["closed_by_server"]:
        print(
            f"  connected {r['connected']} of {r['sockets']}; refused: {r['refused']}; "
            f"closed by the server while idle (close codes): {r['closed_by_server']}"
        )
    print(f"  per idle socket:         {r['kib_per_socket']:.1f} KiB  (target <= 64 KiB)")
    if r["games_over"] is not None:
        print(f"  games over after close:  {r['games_over']} of {r['tables']}")
    print(
        f"  after closing them all:  {r['rss_mib_closed']:.1f} MiB: within 10% of the tables' "
        f"start: {'yes' if r['closed_within_10pct_of_before'] else 'NO'}; of the fresh "
        f"server: {'yes' if r['closed_within_10pct_of_fresh'] else 'NO'} "
        f"(VmHWM {r['rss_mib_hwm']:.1f} MiB)"
    )
    for i, (opened, closed) in enumerate(r["cycles"][1:], 2):
        print(f"  round {i}: {opened:.1f} MiB with the sockets open, {closed:.1f} MiB closed")


def print_slow(r: dict[str, Any]) -> None:
    print(
        f"slow readers: {r['sockets']} never-reading spectator sockets "
        f"(deflate offered: {r['deflate_offered']}) on {r['tables']} tables of {r['seats']} "
        f"(bots without delay, a machine-speed person), opened in {r['open_seconds']:.1f} s"
    )
    done = r["games_done_after_s"]
    print(
        f"  games over after:        {'not within the run' if done is None else f'{done:.1f} s'}"
        f"; observed {r['observed_s']:.1f} s"
    )
    if r["slow_refused"]:
        print(
            f"  slow sockets connected {r['slow_connected']} of {r['sockets']}; refused: "
            f"{r['slow_refused']}"
        )
    print(
        f"  idle cost before the games start: {r['kib_per_idle_slow_socket']:.1f} KiB per slow "
        f"socket (target <= 64 KiB)"
    )
    print(
        f"  server RSS:              fresh {r['rss_mib_fresh']:.1f} MiB, with sockets "
        f"{r['rss_mib_before']:.1f}, PEAK {r['rss_mib_peak']:.1f} MiB (target < 400 MB = "
        f"381 MiB), end of run {r['rss_mib_at_end_of_hold']:.1f}, after closing ours "
        f"{r['rss_mib_closed']:.1f}"
    )
    if r["slow_closed"]:
        print(
            f"  slow sockets the server closed: {r['slow_closed']} of {r['sockets']}: first "
            f"at {r['slow_closed_first_s']:.1f} s, median {r['slow_closed_median_s']:.1f} s, "
            f"last {r['slow_closed_last_s']:.1f} s after the games' start; by each 10 s: "
            f"{r['slow_closed_by_10s']}"
        )
        lo, mid, hi = r["slow_closed_after_open_min_median_max_s"]
        print(
            f"    counted from each socket's handshake: min {lo:.1f} s, median {mid:.1f} s, "
            f"max {hi:.1f} s (uvicorn's keepalive alone closes at ping interval + ping "
            f"timeout, 20 + 20 s by default)"
        )
    else:
        print(f"  slow sockets the server closed: 0 of {r['sockets']}")
    print(
        f"  unsent bytes in the server's kernel send queues (not in RSS): peak "
        f"{r['server_unsent_kib_peak'] / 1024:.1f} MiB (1 s samples), at the end "
        f"{r['server_unsent_kib_end'] / 1024:.1f} MiB in sockets still ESTABLISHED"
    )
    lost = sum(w["gaps"] + w["backwards"] for w in r["watchers"])
    print(f"  errors answered to the persons: {r['person_errors'] or 'none'}")
    print(
        f"  honest spectators: {len(r['watchers'])}, versions lost (gap without resync or "
        f"backwards): {lost}"
    )
    for w in r["watchers"]:
        how = (
            "every version in order"
            if not (w["resync_jumps"] or w["gaps"] or w["backwards"])
            else f"{w['resync_jumps']} resync jumps over {w['skipped_with_resync']} versions, "
            f"{w['gaps']} gaps, {w['backwards']} backwards"
        )
        end = (
            "reached the final version"
            if w["final_version"] == w["last_version"]
            else f"last version {w['last_version']}, final {w['final_version']}"
        )
        print(
            f"    {w['table']}: {w['states']} states, {how}; {end}"
            + (f"; closed {w['closed']}" if w["closed"] else "")
        )


async def run(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    return await (slow_readers(args, server) if args.slow_readers else idle_cost(args, server))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument(
        "--tables",
        type=int,
        default=None,
        help="tables the sockets spread over (default: one per 100 sockets)",
    )
    parser.add_argument("--seats", type=int, default=None, help="default 4; 6 with --slow-readers")
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--database-url", default=PG_URL, help="for --database postgres")
    parser.add_argument("--slow-readers", action="store_true")
    parser.add_argument(
        "--no-deflate",
        action="store_true",
        help="the measured sockets do not offer permessage-deflate",
    )
    parser.add_argument(
        "--activity",
        choices=["idle", "play"],
        default="idle",
        help="idle cost: the person never acts (idle) or plays (play)",
    )
    parser.add_argument("--think", type=float, default=0.05, help="--activity play: person's delay")
    parser.add_argument(
        "--bot-delay", type=float, default=0.05, help="--activity play: BOT_DELAY_SECONDS"
    )
    parser.add_argument(
        "--seconds", type=float, default=120.0, help="longest wait for the games to end"
    )
    parser.add_argument(
        "--hold",
        type=float,
        default=15.0,
        help="--slow-readers: seconds to keep watching after the games end",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds to wait after closing before the last RSS reading",
    )
    parser.add_argument(
        "--cycles",
        type=int,
        default=1,
        help="idle cost: open and close the sockets this many times",
    )
    parser.add_argument(
        "--per-address", type=int, default=10, help="client sockets per loopback source address"
    )
    parser.add_argument("--server-env", action="append", metavar="KEY=VALUE")
    parser.add_argument("--keep-logs", action="store_true", help="keep the server's log")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON line of figures")
    args = parser.parse_args()
    args.tables = args.tables or max(1, math.ceil(args.sockets / 100))
    args.seats = args.seats or (6 if args.slow_readers else 4)
    terminate_on_sigterm()
    limit = raise_fd_limit(args.sockets + args.tables * 4 + 256)
    if limit < args.sockets + args.tables * 4 + 64:
        parser.error(f"RLIMIT_NOFILE is {limit}: too low for {args.sockets} sockets")
    workdir = Path(tempfile.mkdtemp(prefix="bench-sockets-"))
    schema = None
    if args.database == "postgres":
        url = args.database_url
        schema = new_schema_name("bench_sockets")
        create_schema(url, schema)
    else:
        url = f"sqlite+aiosqlite:///{workdir / 'bench.sqlite3'}"
    delay = (
        "0" if args.slow_readers else (str(args.bot_delay) if args.activity == "play" else "0.6")
    )
    server = Server(server_env(args, url, schema, BOT_DELAY_SECONDS=delay), workdir)
    ok = False
    try:
        server.start()
        if not args.json:
            print(
                f"server pid {server.pid} on port {server.port} ({args.database}); "
                f"client RLIMIT_NOFILE {limit}",
                file=sys.stderr,
            )
        result = asyncio.run(run(args, server))
        if args.json:
            print(json.dumps(result))
        elif args.slow_readers:
            print_slow(result)
        else:
            print_idle(result)
        ok = True
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        server.stop()
        if schema:
            drop_schema(url, schema)
        if ok and not args.keep_logs:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"server log kept in {workdir}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
