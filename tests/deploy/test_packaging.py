"""The wheel's package list (pyproject.toml, explicit because the client and the migrations are
mapped into `app`) names every folder of code, of the client and of the migrations: a package
added under app/ or engine/ and forgotten there would be missing from every install."""

from __future__ import annotations

import tomllib

from tests.server.harness import REPO


def test_every_folder_is_a_listed_package() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    mapped = {folder: package for package, folder in setuptools["package-dir"].items()}
    expected = set()
    for top in ("app", "engine", "static", "migrations"):
        for folder in [REPO / top, *(REPO / top).rglob("*")]:
            if not folder.is_dir() or folder.name == "__pycache__":
                continue
            parts = folder.relative_to(REPO).parts
            package = mapped.get(parts[0], parts[0])
            expected.add(".".join((package, *parts[1:])))
    assert expected == listed, f"missing: {expected - listed}; not a folder: {listed - expected}"
