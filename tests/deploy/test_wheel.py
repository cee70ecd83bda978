"""A wheel built from the repository, installed into a fresh virtual environment (dependencies
as requirements.lock pins them, from the package registry), runs its migrations and serves the
client at `/`, from a directory that is not the checkout: the client and the migrations travel
inside the package."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.server.harness import REPO, free_port

pytestmark = pytest.mark.slow

# The installer scripts/setup.sh puts beside this Python.
UV = Path(sys.executable).with_name("uv")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without anything that would point Python or the server at the checkout."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "DATABASE_URL", "DATABASE_SCHEMA", "STATIC_DIR")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}


def sh(argv: list[str | Path], cwd: Path, timeout: float = 600, **env: str) -> str:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, (
        f"{argv} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout + done.stderr


def source_copy(to: Path) -> Path:
    """What the image's build context holds (.dockerignore): setuptools leaves build/ behind in
    the folder it builds, and a stale build/ would slip old files into later wheels."""
    to.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, to / name)
    for name in ("app", "engine", "static", "migrations"):
        shutil.copytree(REPO / name, to / name, ignore=shutil.ignore_patterns("__pycache__"))
    return to


def test_a_wheel_in_a_fresh_venv_migrates_and_serves_the_client(tmp_path: Path) -> None:
    # As the image is built (Dockerfile): the wheel by the locked build backend, without build
    # isolation; a fresh environment with exactly what requirements.lock pins, then the wheel
    # alone. uv installs them (as scripts/setup.sh does), from its cache when it has the files:
    # pip took a minute or more here, most of it resolving and downloading.
    dist = tmp_path / "dist"
    source = source_copy(tmp_path / "source")
    sh(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", dist, source],
        cwd=tmp_path,
    )  # fmt: skip
    (wheel,) = dist.glob("dragonstones-*.whl")
    venv = tmp_path / "venv"
    sh([UV, "venv", "-q", "--python", sys.executable, venv], cwd=tmp_path)
    sh(
        [UV, "pip", "install", "-q", "--python", venv / "bin" / "python", "--require-hashes",
         "-r", REPO / "requirements.lock"],
        cwd=tmp_path,
    )  # fmt: skip
    sh(
        [UV, "pip", "install", "-q", "--python", venv / "bin" / "python", "--no-deps", wheel],
        cwd=tmp_path,
    )  # fmt: skip

    site = tmp_path / "site"
    site.mkdir()
    # The installed package, not the checkout, is what runs.
    where = sh([venv / "bin" / "python", "-c", "import app; print(app.__file__)"], cwd=site)
    assert where.strip().startswith(str(venv)), where

    url = f"sqlite+aiosqlite:///{site / 'wheel.sqlite3'}"
    dragonstones = venv / "bin" / "dragonstones"
    sh([dragonstones, "db", "upgrade"], cwd=site, DATABASE_URL=url)
    assert "(head)" in sh([dragonstones, "db", "current"], cwd=site, DATABASE_URL=url)

    port = free_port()
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [str(dragonstones), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=site,
        env=clean_env(DATABASE_URL=url),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
        lobby = httpx.get(f"{base}/", timeout=5)
        assert lobby.status_code == 200, lobby.text
        assert lobby.text == (REPO / "static" / "index.html").read_text()
        table = httpx.get(f"{base}/t/abc123", timeout=5)
        assert table.text == (REPO / "static" / "table.html").read_text()
        script = httpx.get(f"{base}/static/js/lobby.js", timeout=5)
        assert script.text == (REPO / "static" / "js" / "lobby.js").read_text()
        assert httpx.get(f"{base}/static/css/app.css", timeout=5).status_code == 200
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait(timeout=15)
        log.close()
