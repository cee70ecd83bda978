"""The lock files hold what pyproject.toml asks for: every runtime requirement (and the build
backend) pinned in requirements.lock, every development one in requirements-dev.lock, each pin
within its range and with the hashes of its files, the two locks agreeing on what they share; and
the Dockerfile and scripts/setup.sh install from them. A dependency added to pyproject.toml
without `bash scripts/lock.sh` fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.server.harness import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def pins(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of each package a lock file pins."""
    found: dict[str, tuple[str, int]] = {}
    text = path.read_text(encoding="utf-8")
    for block in re.split(r"\n(?=\S)", text):
        match = re.match(r"([A-Za-z0-9._-]+)==(\S+)", block)
        if match:
            name = canonicalize_name(match.group(1))
            found[name] = (match.group(2), block.count("--hash=sha256:"))
    return found


RUNTIME = [*PYPROJECT["project"]["dependencies"], *PYPROJECT["build-system"]["requires"]]
DEV = PYPROJECT["project"]["optional-dependencies"]["dev"]


@pytest.mark.parametrize(
    ("lock", "wanted"),
    [("requirements.lock", RUNTIME), ("requirements-dev.lock", RUNTIME + DEV)],
)
def test_every_requirement_is_pinned_within_its_range(lock: str, wanted: list[str]) -> None:
    pinned = pins(REPO / lock)
    for line in wanted:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in {lock}: run `bash scripts/lock.sh`"
        version, _hashes = pinned[name]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{lock} pins {name}=={version}, outside {requirement.specifier}: "
            "run `bash scripts/lock.sh`"
        )


def test_every_pin_has_hashes_and_the_locks_agree() -> None:
    runtime, dev = pins(REPO / "requirements.lock"), pins(REPO / "requirements-dev.lock")
    assert runtime and dev
    for name, (version, hashes) in [*runtime.items(), *dev.items()]:
        assert hashes >= 1, f"{name}=={version} has no hash"
    assert {n: v for n, (v, _h) in runtime.items()} == {n: dev[n][0] for n in runtime}
    assert "httpx" not in runtime, "httpx is for the tests only: the server makes no HTTP calls"


def test_the_image_and_the_setup_install_from_the_locks() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert "--require-hashes -r /src/requirements.lock" in dockerfile
    assert "!requirements.lock" in (REPO / ".dockerignore").read_text(encoding="utf-8")
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert "requirements.lock" in setup and "requirements-dev.lock" in setup
    assert "--require-hashes" in setup
