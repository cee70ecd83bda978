"""Docker helpers for the deploy tests: is Docker here, build the image, drive a compose project.

Everything talks to the local daemon and to 127.0.0.1 only; a project is taken down with its
volumes by the test that brought it up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("DRAGONSTONES_TEST_IMAGE", "dragonstones:test")


def compose_command() -> list[str] | None:
    """Debian's docker-compose (v1) or the docker compose plugin (v2), whichever answers."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and _ok(["docker", "compose", "version"]):
        return ["docker", "compose"]
    return None


def _ok(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def docker_missing() -> str | None:
    """Why Docker cannot be used here, or None when it can."""
    if not shutil.which("docker"):
        return "docker is not installed (bash ../shared/tools/docker-standins.sh installs it)"
    if not _ok(["docker", "info"]):
        return "no Docker daemon answers (docker info fails)"
    if compose_command() is None:
        return "neither docker-compose nor the docker compose plugin is installed"
    return None


def run(
    argv: list[str],
    timeout: float = 300,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, check=False, env=env, cwd=cwd
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{' '.join(argv)} exited with {done.returncode}:\n"
            f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done


def build_image(tag: str = IMAGE) -> None:
    # Host networking for the build: where the base images are local stand-ins, pip inside the
    # build reaches the registry only that way (DOCKER_BUILD_NETWORK=default to turn it off).
    network = os.environ.get("DOCKER_BUILD_NETWORK", "host")
    run(["docker", "build", "-q", "--network", network, "-t", tag, str(REPO)], timeout=900)


def image_size(tag: str = IMAGE) -> int:
    return int(run(["docker", "image", "inspect", "--format", "{{.Size}}", tag]).stdout.strip())


class Compose:
    """One compose project made of one of the repository's compose files (docker-compose.yml by
    default; docker-compose.scale.yml for replicas behind nginx)."""

    def __init__(self, project: str, env: dict[str, str], file: str = "docker-compose.yml") -> None:
        base = compose_command()
        assert base is not None
        self.base = [*base, "-p", project, "-f", str(REPO / file)]
        self.env = {**os.environ, **env}

    def __call__(self, *args: str, timeout: float = 300) -> str:
        return run([*self.base, *args], timeout=timeout, env=self.env, cwd=REPO).stdout

    def container(self, service: str) -> str:
        return self("ps", "-q", service).strip()

    def health(self, service: str) -> str:
        out = run(["docker", "inspect", "--format", "{{json .State}}", self.container(service)])
        state = json.loads(out.stdout)
        return str(state.get("Health", {}).get("Status", state.get("Status")))

    def wait_healthy(self, *services: str, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while True:
            states = {s: self.health(s) for s in services}
            if all(v == "healthy" for v in states.values()):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"not healthy after {timeout}s: {states}\n{self.logs()}")
            time.sleep(1)

    def logs(self) -> str:
        try:
            return self("logs", "--no-color", "--tail", "80", timeout=60)
        except AssertionError as exc:
            return str(exc)

    def down(self) -> None:
        self("down", "-v", "--remove-orphans", "-t", "10", timeout=180)
