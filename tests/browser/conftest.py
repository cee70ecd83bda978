"""Browser tests: a real server (uvicorn, as a subprocess, on 127.0.0.1) and Debian's Chromium
driven by Playwright. Where Chromium or Playwright is missing the tests skip (fail under CI=true).

Every page opened through `browser_context` is watched: console errors and uncaught page errors
are collected, and a test that produced any fails at teardown.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from tests import zygote
from tests.conftest import require_service
from tests.ports import free_port

# Debian's old headless shell (package chromium-headless-shell), which Playwright itself runs for
# headless tests: the same Blink without the full browser around it, a quarter to a third less
# CPU per test than the full browser's headless mode (bench/browser_cost.py; bench/RESULTS.md,
# "What browser tests cost by the Chromium that runs them"). The full browser where only it is
# installed; TEST_CHROMIUM names another.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
FULL_CHROMIUM_PATH = os.environ.get("TEST_FULL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM = os.environ.get("TEST_CHROMIUM") or (
    HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else FULL_CHROMIUM_PATH
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

try:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Page,
        ViewportSize,
        expect,
        sync_playwright,
    )

    HAVE_PLAYWRIGHT = True
    # A page waits for a condition, never for time: on a machine busy with other tests a page
    # may take far longer than Playwright's 5 s default to show it; as long as actions may take
    # (set_default_timeout below).
    expect.set_options(timeout=30_000)
except ImportError:  # pragma: no cover - the skip below says why
    HAVE_PLAYWRIGHT = False

pytestmark = pytest.mark.browser


@dataclass
class Server:
    """A real `dragonstones serve` process. It can be stopped and started again on the same port
    and database, to test what a dropped connection looks like in the browser."""

    port: int
    database_url: str
    workdir: Path
    log_path: Path
    proc: Any = None  # a subprocess.Popen or a tests.zygote.ForkedServer
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        argv = ["serve", "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        self.proc = zygote.spawn(argv, {**os.environ, **self.env}, self.workdir, self.log_path)
        # A machine busy with other work can take a minute just to import the server.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"the server exited at start ({self.proc.returncode}):\n{self.log_path.read_text()}"
                )
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(self.url + "/healthz", timeout=1) as r,
            ):
                if r.status == 200:
                    return
            time.sleep(0.1)
        self.stop()  # never left running behind the test
        raise RuntimeError(f"the server did not answer /healthz:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        """Stop the process this fixture started (by its pid, never by name)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A fresh server with its own temporary SQLite database, for one test. A test marked
    `@pytest.mark.game_seed(n)` has its games dealt from TEST_SEED=n (tests/deals.py); one marked
    `@pytest.mark.server_env(NAME="value", ...)` gets these settings from the start (rather than
    stopping the server and starting it again with them)."""
    seed = request.node.get_closest_marker("game_seed")
    settings = request.node.get_closest_marker("server_env")
    with tempfile.TemporaryDirectory(prefix="dragonstones-browser-") as tmp:
        workdir = Path(tmp)
        db = workdir / "game.sqlite3"
        srv = Server(
            port=free_port(),
            database_url=f"sqlite+aiosqlite:///{db}",
            workdir=workdir,
            log_path=workdir / "server.log",
        )
        srv.env = {
            "DATABASE_URL": srv.database_url,
            "BOT_DELAY_SECONDS": "0",
            # Every browser of a test comes from 127.0.0.1: the per-address limits are for the
            # server tests that aim at them.
            "HTTP_RATE_BURST": "1000",
            "MAX_SOCKETS_PER_ADDRESS": "200",
            "READ_RATE_BURST": "1000",
            "SOCKET_RATE_BURST": "1000",
            # The tests' seat drivers answer at machine speed, against bots that never wait.
            "RATE_PER_SECOND": "1000",
            "RATE_BURST": "2000",
            # A page on a busy machine may read late: far from the slow-reader guard.
            "SEND_TIMEOUT_SECONDS": "60",
            # Nor may a page that reloads slowly lose its place in the queue (no browser test
            # waits for the grace: tests/server/test_queue*.py do, with their own).
            "QUEUE_GRACE_SECONDS": "60",
            # The server runs the code and reads the static files of the checkout being tested
            # (the console script alone would import whichever checkout installed it).
            "STATIC_DIR": str(ROOT / "static"),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        if seed is not None:
            srv.env["TEST_SEED"] = str(seed.args[0])
        if settings is not None:
            srv.env.update({name: str(value) for name, value in settings.kwargs.items()})
        try:
            srv.start()
            yield srv
        finally:
            srv.stop()


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    # One Chromium per test module, not per session: Playwright's sync API runs its own event loop,
    # which must be gone before the asyncio tests of other directories run. A module that needs
    # what only the full browser has (notifications) says FULL_CHROMIUM = True.
    require_service(HAVE_PLAYWRIGHT, "the Python package playwright is not installed")
    chromium = FULL_CHROMIUM_PATH if getattr(request.module, "FULL_CHROMIUM", False) else CHROMIUM
    require_service(
        Path(chromium).exists() and shutil.which(chromium) is not None,
        f"{chromium} is missing (apt-get install chromium chromium-headless-shell)",
    )
    with sync_playwright() as p:
        # Launching takes seconds on an idle machine, a minute or more on a busy one.
        b = p.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS, timeout=180_000
        )
        try:
            yield b
        finally:
            b.close()


@dataclass
class ConsoleWatch:
    """Console errors and page errors seen on every page of a test."""

    errors: list[str] = field(default_factory=list)
    # Messages expected during a deliberate outage (a stopped server), matched by substring.
    tolerated: list[str] = field(default_factory=list)

    def watch(self, page: Page, label: str) -> None:
        def on_console(msg: ConsoleMessage) -> None:
            if msg.type == "error":
                text = msg.text
                if not any(t in text for t in self.tolerated):
                    self.errors.append(f"[{label}] console error: {text} ({msg.location})")

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.errors.append(f"[{label}] page error: {exc}"))


@pytest.fixture
def console() -> Iterator[ConsoleWatch]:
    watch = ConsoleWatch()
    yield watch
    assert not watch.errors, "browser console errors:\n" + "\n".join(watch.errors)


NewPage = Callable[..., "Page"]


@pytest.fixture
def new_page(browser: Browser, console: ConsoleWatch) -> Iterator[NewPage]:
    """Open a page in a new browser context (its own storage: one person, one device)."""
    contexts: list[BrowserContext] = []

    def make(
        label: str,
        *,
        viewport: ViewportSize | None = None,
        locale: str = "en-GB",
        is_mobile: bool = False,
        motion: bool = False,
        service_workers: Literal["allow", "block"] = "allow",
    ) -> Page:
        # Reduced motion unless asked (the pulsing glow of "your move" is decoration; in software
        # compositing it cost each page a fifth of a core for as long as the player's turn
        # lasted): tests/browser/test_round_two_bugs.py checks the glow with motion and without.
        ctx = browser.new_context(
            viewport=viewport or {"width": 1366, "height": 900},
            locale=locale,
            is_mobile=is_mobile,
            has_touch=is_mobile,
            reduced_motion="no-preference" if motion else "reduce",
            service_workers=service_workers,
        )
        ctx.set_default_timeout(30_000)
        contexts.append(ctx)
        page = ctx.new_page()
        console.watch(page, label)
        return page

    yield make
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
