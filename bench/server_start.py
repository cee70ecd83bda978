"""Benchmark: what one test server costs to start, in a fresh interpreter and forked warm by the
tests' helper (tests/zygote.py), and that both serve alike once up.

    .venv/bin/python bench/server_start.py [--starts 5] [--requests 300]

For each way, `--starts` servers on a fresh SQLite file each (`dragonstones serve` on 127.0.0.1,
migrations included): the server's own CPU from its start to its first /healthz answer, the
wall time to that answer, then the server CPU of `--requests` rounds of creating a table and
listing the tables. The medians are printed. Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests import zygote  # noqa: E402
from tests.ports import free_port  # noqa: E402


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one(warm: bool, requests: int) -> tuple[float, float, float]:
    """(start CPU s, start wall s, CPU s of the requests) of one server."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-start-"))
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'db.sqlite3'}",
        "PYTHONPATH": str(REPO),
        "HTTP_RATE_PER_SECOND": "100000",
        "HTTP_RATE_BURST": "100000",
        "READ_RATE_PER_SECOND": "100000",
        "READ_RATE_BURST": "100000",
    }
    argv = ["serve", "--host", "127.0.0.1", "--port", str(port)]
    began = time.monotonic()
    if warm:
        proc = zygote.spawn(argv, env, workdir, workdir / "server.log")
    else:
        with (workdir / "server.log").open("ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "app.cli", *argv],
                cwd=workdir,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError((workdir / "server.log").read_text())
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.01)
        up, start_cpu = time.monotonic() - began, _cpu(proc.pid)
        with httpx.Client(base_url=base, timeout=20) as client:
            for _ in range(requests):
                assert client.post("/api/tables", json={"seats": 3}).status_code == 201
                assert client.get("/api/tables").status_code == 200
        return start_cpu, up, _cpu(proc.pid) - start_cpu
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    try:
        for warm in (False, True):
            runs = [one(warm, args.requests) for _ in range(args.starts)]
            cpu, wall, served = (statistics.median(r[i] for r in runs) for i in range(3))
            print(
                f"{'warm fork' if warm else 'fresh interpreter':18} start: {cpu:.2f} s of server "
                f"CPU, {wall:.2f} s to /healthz; {args.requests} rounds: {served:.2f} s of CPU"
            )
    finally:
        zygote.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
