"""Shared pieces of the protocol benchmarks: the server as a subprocess, /proc readings, the
lobby over HTTP, Postgres schemas, percentiles. Talks to the server only through its protocol."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def source_address(n: int) -> str:
    """A loopback source address for client n (127.0.0.2 ... 127.0.0.251): the server may limit
    sockets and lobby calls per client address, and every bench client is one machine."""
    return f"127.0.0.{2 + n % 250}"


def raise_fd_limit(need: int) -> int:
    """Raise this process's RLIMIT_NOFILE towards `need` (up to the hard limit); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(need, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        soft = want
    return int(soft)


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100, nearest rank) or None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = math.ceil(q / 100 * len(ordered))
    return ordered[max(0, min(len(ordered) - 1, rank - 1))]


def ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.2f} ms"


def asyncpg_dsn(url: str) -> str:
    """The asyncpg DSN of a SQLAlchemy-style Postgres URL."""
    for prefix in ("postgresql+asyncpg://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def new_schema_name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(5)}"


async def pg_execute(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(asyncpg_dsn(url), timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def create_schema(url: str, schema: str) -> None:
    asyncio.run(pg_execute(url, f'CREATE SCHEMA "{schema}"'))


def drop_schema(url: str, schema: str) -> None:
    asyncio.run(pg_execute(url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def terminate_on_sigterm() -> None:
    """SIGTERM behaves like Ctrl-C, so the cleanup in `finally` blocks runs (SIGINT too when
    a shell started the bench in the background with SIGINT ignored)."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)


# -- /proc -----------------------------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    """pid and every process below it (uvicorn runs in one process today; workers would be
    children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with contextlib.suppress(OSError), open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
    return out


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of these processes and their descendants, in seconds."""
    total = 0
    for root in pids:
        for p in descendants(root):
            with contextlib.suppress(OSError), open(f"/proc/{p}/stat") as f:  # may be gone
                fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5)
    return total / CLK_TCK


def status_kib(pid: int, key: str) -> int:
    """A `kB` line of /proc/<pid>/status (VmRSS, VmHWM), summed over descendants."""
    total = 0
    for p in descendants(pid):
        with contextlib.suppress(OSError), open(f"/proc/{p}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    total += int(line.split()[1])
    return total


def ports_connected_to(pids: list[int], remote_port: int) -> set[int]:
    """Local ports of these processes' TCP connections to `remote_port` (their sockets' inodes
    matched in /proc/net/tcp)."""
    inodes = set()
    for root in pids:
        for p in descendants(root):
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{p}/fd"):
                    with contextlib.suppress(OSError):
                        link = os.readlink(f"/proc/{p}/fd/{fd}")
                        if link.startswith("socket:["):
                            inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as f:
            next(f)
            for line in f:
                parts = line.split()
                if parts[9] in inodes and int(parts[2].rsplit(":", 1)[1], 16) == remote_port:
                    ports.add(int(parts[1].rsplit(":", 1)[1], 16))
    return ports


class PostgresBackends:
    """CPU time of the Postgres backends serving the server processes' connections (found by
    their client ports in pg_stat_activity; backends opened during the window count from when
    they are first seen). WAL writer and checkpointer are shared and not counted."""

    def __init__(self, url: str, server_pids: list[int]) -> None:
        self.url, self.server_pids = url, server_pids
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.conn: Any = None

    async def sample(self) -> None:
        import asyncpg

        if self.conn is None:
            self.conn = await asyncpg.connect(asyncpg_dsn(self.url), timeout=10)
        ports = sorted(ports_connected_to(self.server_pids, 5432))
        rows = await self.conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])", ports
        )
        for row in rows:
            pid = int(row["pid"])
            cpu = cpu_seconds([pid])  # 0 if it has just exited: the max keeps what was seen
            self.first.setdefault(pid, cpu)
            self.last[pid] = max(self.last.get(pid, cpu), cpu)

    def seconds(self) -> float:
        return sum(self.last[p] - self.first[p] for p in self.last)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


def rss_mib(pids: list[int]) -> float:
    return sum(status_kib(p, "VmRSS") for p in pids) / 1024


# -- the server as a subprocess -------------------------------------------------------------------


class Server:
    """`python -m app.cli serve` on 127.0.0.1: started, stopped and killed by its own pid."""

    def __init__(self, env: dict[str, str], workdir: Path, name: str = "server") -> None:
        self.port = free_port()
        self.env = {**os.environ, **env, "PYTHONPATH": str(REPO)}
        self.workdir = workdir
        self.log_path = workdir / f"{name}-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 60.0) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--log-level",
                    "warning",
                ],
                cwd=self.workdir,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own process group: a Ctrl-C reaches the bench, which stops it in order.
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"server did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def server_env(args: Any, database_url: str, schema: str | None, **extra: str) -> dict[str, str]:
    env = {
        "DATABASE_URL": database_url,
        "BOT_DELAY_SECONDS": "0",
        "RATE_PER_SECOND": "1000",
        "RATE_BURST": "2000",
        **extra,
    }
    if schema:
        env["DATABASE_SCHEMA"] = schema
    for item in getattr(args, "server_env", None) or []:
        key, _, value = item.partition("=")
        env[key] = value
    return env


# -- the lobby over HTTP ---------------------------------------------------------------------------


class Lobby:
    """Lobby calls from one source address; a 429 is waited out (Retry-After), and a 5xx or no
    answer within the timeout retried (counted in `Lobby.server_errors`: an overloaded server
    may answer 500 or nothing), a few times."""

    server_errors = 0

    def __init__(self, base: str, address: str) -> None:
        # No keep-alive: a connection left idle while the other games are set up may be closed
        # by the server just as the next call goes out ("disconnected without a response").
        self.http = httpx.AsyncClient(
            base_url=base,
            timeout=60,
            transport=httpx.AsyncHTTPTransport(
                local_address=address, retries=2, limits=httpx.Limits(max_keepalive_connections=0)
            ),
        )

    async def call(self, method: str, path: str, token: str | None = None, json: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        retried = False
        r = None
        for _ in range(20):
            try:
                r = await self.http.request(method, path, json=json, headers=headers)
            except (httpx.TimeoutException, httpx.RemoteProtocolError):
                Lobby.server_errors += 1  # counted with the 5xx: the server did not answer
                retried = True
                continue
            if r.status_code == 429:
                await asyncio.sleep(min(5.0, float(r.headers.get("Retry-After", "0.5") or 0.5)))
                continue
            if r.status_code >= 500:
                Lobby.server_errors += 1
                retried = True
                await asyncio.sleep(1.0)
                continue
            if retried and r.status_code == 409 and path.endswith("/start"):
                return None  # the failed try had started it after all
            if r.status_code >= 300:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:300]}")
            return r.json()
        last = "no answer" if r is None else r.status_code
        raise RuntimeError(f"{method} {path}: refused or unanswered 20 times; last {last}")

    async def create_table(self, seats: int) -> str:
        return str((await self.call("POST", "/api/tables", json={"seats": seats}))["id"])

    async def join(self, table_id: str, name: str) -> tuple[int, str]:
        body = await self.call("POST", f"/api/tables/{table_id}/join", json={"name": name})
        return int(body["seat"]), str(body["token"])

    async def add_bots(self, table_id: str, token: str, count: int) -> None:
        await self.call(
            "POST",
            f"/api/tables/{table_id}/bots",
            token,
            json={"count": count, "kind": "heuristic"},
        )

    async def start(self, table_id: str, token: str) -> None:
        await self.call("POST", f"/api/tables/{table_id}/start", token)

    async def close(self) -> None:
        await self.http.aclose()


def decide(prompt: dict[str, Any], rng: Any) -> dict[str, Any]:
    """A legal action for a full prompt: bids uniformly within `max`, a uniform option."""
    if "options" in prompt:
        return {"type": "choose", "option": rng.choice(prompt["options"])["id"]}
    limits = prompt["max"]
    if prompt["kind"] == "tiebreak":
        return {
            "type": "tiebreak",
            "silver": rng.randint(0, limits["silver"]),
            "amulet": bool(limits["amulet"] and rng.random() < 0.5),
        }
    return {
        "type": "bid",
        "fairy_gold": rng.randint(0, limits["fairy_gold"]),
        "common_gold": rng.randint(0, limits["common_gold"]),
        "amulet": bool(limits["amulet"] and rng.random() < 0.5),
        "black_magic": bool(limits["black_magic"] and rng.random() < 0.5),
    }
