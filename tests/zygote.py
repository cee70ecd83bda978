"""Warm starts for the servers the tests start: each test process keeps one helper process that
has already imported the server (fastapi, sqlalchemy, alembic, uvicorn, pydantic: about 2 s of
CPU per start, most of a test server's cost) and forks a real `dragonstones serve` from it.

The forked server runs `app.cli.main` exactly as the console script does, with the environment,
working directory and log file the test gave. The helper forks twice, so the server is orphaned
at once and adopted by the test process, a child subreaper for that moment: the test waits for
it, signals it and reads its exit status by its own pid, as with `subprocess.Popen`.

The helper imports the server's modules but calls nothing that reads settings, so each server
reads its own environment. `TEST_WARM_START=0` (or a platform without subreapers) falls back to
a fresh interpreter per server.

Run as `python -m tests.zygote` only by `spawn` below: it reads one JSON request per line.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h

# What a server start imports; the helper imports it once (app.cli.main imports the rest lazily).
PRELOAD = [
    "app.cli",
    "app.main",
    "app.store.migrate",
    "app.edge.addresses",
    "uvicorn",
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.main",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.auto",
    "sqlalchemy.dialects.sqlite.aiosqlite",
    "sqlalchemy.dialects.postgresql.asyncpg",
    "aiosqlite",
    "asyncpg",
    "alembic.command",
    "alembic.config",
    "alembic.runtime.migration",
    "alembic.script",
    "logging.config",
    "engine",
    "engine.bots",
]
OPTIONAL = [
    "uvloop",
    "httptools",
    "uvicorn.loops.uvloop",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
]


# -- the test side ---------------------------------------------------------------------------


class ForkedServer:
    """A server forked by the helper and adopted by this process: the part of
    `subprocess.Popen` the tests use (pid, poll, wait, send_signal, terminate, kill, returncode)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._lock = threading.Lock()

    def _reap(self, flags: int) -> int | None:
        with self._lock:
            if self.returncode is not None:
                return self.returncode
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:  # not this process's child: never adopted, or reaped
                try:
                    with open(f"/proc/{self.pid}/stat") as f:
                        stat = f.read()
                except OSError:
                    stat = "gone"
                raise RuntimeError(
                    f"server {self.pid} is not a child of {os.getpid()}: {stat}"
                ) from None
            if pid == 0:
                return None
            self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.001
        while True:
            code = self._reap(os.WNOHANG)
            if code is not None:
                return code
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout or 0)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class _Helper:
    """The helper process of this test process, started on first use."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()
        self.broken = False

    def _start(self) -> subprocess.Popen[bytes] | None:
        if self.proc is not None and self.proc.poll() is None:
            return self.proc
        if self.broken:
            return None
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.zygote"],
            cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != b"ready":
            self.broken = True  # a fresh interpreter per server from now on
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()
            return None
        self.proc = proc
        return proc

    def spawn(
        self, argv: list[str], env: dict[str, str], cwd: Path, log_path: Path, program: str
    ) -> ForkedServer | None:
        proc = self._start()  # under self.lock, taken by spawn()
        if proc is None:
            return None
        assert proc.stdin is not None and proc.stdout is not None
        request = {"argv": argv, "env": env, "cwd": str(cwd), "log": str(log_path)}
        request["program"] = program
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline() or b"{}")
        if "pid" not in answer:
            raise RuntimeError(f"the warm-start helper could not fork a server: {answer}")
        return ForkedServer(int(answer["pid"]))

    def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(Exception):
                assert self.proc.stdin is not None
                self.proc.stdin.close()  # end of requests: the helper exits
                self.proc.wait(timeout=10)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self.proc.stdout is not None:
                self.proc.stdout.close()
            self.proc = None


_helper = _Helper()
_prctl: list[Any] = []


def _subreaper(on: bool) -> bool:
    """Mark this process a child subreaper (or no longer): an orphan of a descendant is then
    reparented to it instead of to init. Only while a server is forked: afterwards, orphans of
    other children (a browser's helpers) go to init, which reaps them, and not to this process,
    which would leave them zombies."""
    if not _prctl:
        libc = None
        if sys.platform.startswith("linux") and os.environ.get("TEST_WARM_START", "1") != "0":
            with contextlib.suppress(Exception):
                libc = ctypes.CDLL(None, use_errno=True).prctl
        _prctl.append(libc)
    prctl = _prctl[0]
    return prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


def spawn(
    argv: list[str], env: dict[str, str], cwd: Path, log_path: Path, program: str = "dragonstones"
) -> Any:
    """Start `dragonstones <argv>` (argv without the program name; or `alembic <argv>`) with
    exactly `env`, in `cwd`, stdout and stderr appended to `log_path`: a warm fork where possible,
    else a fresh process. Returns a `ForkedServer` or a `subprocess.Popen`; both are waited for
    by this process."""
    with _helper.lock:
        if _subreaper(True):
            try:
                forked = _helper.spawn(argv, env, cwd, log_path, program)
            finally:
                _subreaper(False)  # the server is this process's child now: it stays so
            if forked is not None:
                return forked
    main = {"dragonstones": ["-c", "import sys; from app.cli import main; sys.exit(main())"]}
    main["alembic"] = ["-m", "alembic"]
    with log_path.open("ab") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, *main[program], *argv],
            cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip


def run(
    argv: list[str], env: dict[str, str], cwd: Path, log_path: Path, program: str = "dragonstones"
) -> tuple[int, str]:
    """Run `dragonstones <argv>` (or `alembic <argv>`) to its end as `spawn` starts it (a process of its own, with
    exactly `env`, in `cwd`, warm where possible): its exit code and its output (stdout and
    stderr). Fails after two minutes, as the tests' `subprocess.run(..., timeout=120)` did."""
    log_path.write_bytes(b"")
    proc = spawn(argv, env, cwd, log_path, program)
    try:
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return code, log_path.read_text(encoding="utf-8", errors="replace")


def close() -> None:
    """Stop the helper (the servers it forked belong to the tests, which stop them)."""
    _helper.close()


# -- the helper side -------------------------------------------------------------------------


def _serve_child(request: dict[str, Any]) -> None:
    """In the forked server: become the process `dragonstones <argv>` would be, run it, exit."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = io.TextIOWrapper(
            open(2, "wb", buffering=0, closefd=False),  # noqa: SIM115
            encoding="utf-8", errors="backslashreplace", line_buffering=True, write_through=True,
        )  # fmt: skip
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        program = request.get("program", "dragonstones")
        sys.argv = [program, *request["argv"]]
        # The signal dispositions of a fresh interpreter: Python ignores SIGPIPE and SIGXFSZ
        # (a write to a closed socket raises instead of killing the process).
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from alembic.config import main as alembic_main

        from app.cli import main

        try:
            if program == "alembic":  # `python -m alembic`: its command line, e.g. with -c
                code = alembic_main(request["argv"], prog="alembic") or 0  # type: ignore[func-returns-value]
            else:
                code = main(request["argv"]) or 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        import atexit
        import logging

        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _fork(request: dict[str, Any]) -> int:
    """Fork twice: the server is orphaned at once and adopted by the test process (a subreaper),
    which waits for it by its pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(read)
        server = os.fork()
        if server == 0:
            os.close(write)
            _serve_child(request)
        os.write(write, str(server).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        pid = int(pipe.read() or b"0")
    os.waitpid(middle, 0)
    if pid <= 0:
        raise RuntimeError("the fork failed")
    return pid


def _helper_main() -> int:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    for name in OPTIONAL:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from app.core.config import get_settings

    # Nothing may have read the settings yet: each server reads its own environment.
    assert get_settings.cache_info().currsize == 0
    assert threading.active_count() == 1, "a thread at fork time would be lost in the server"
    # What is imported lives as long as each server, as in `app.cli._settle_gc`: frozen here,
    # once, each server's collection at start scans only what it made itself (and leaves the
    # pages it shares with this helper unwritten).
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C of the test run: the tests stop first
    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            answer: dict[str, Any] = {"pid": _fork(json.loads(line))}
        except Exception as exc:  # told to the test, which raises it
            answer = {"error": repr(exc)}
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_helper_main())
