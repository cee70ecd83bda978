"""The layers of app/ and the engine's independence are import-linter contracts
(pyproject.toml, `lint-imports`, run by scripts/test.sh): they hold for the code as it is, and an
upward import, or the engine importing app, breaks them with a message that names the import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.harness import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def scratch_copy(tmp_path: Path) -> Path:
    """app/, engine/ and pyproject.toml (its contracts) copied to a scratch folder."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for package in ("app", "engine"):
        shutil.copytree(
            REPO / package, tree / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(REPO / "pyproject.toml", tree / "pyproject.toml")
    return tree


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    # lint-imports puts its working directory first on the path: the copy is what it reads.
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def add_import(module: Path, line: str) -> None:
    module.write_text(module.read_text() + f"\n{line}  # noqa\n")


def test_the_contracts_hold_and_an_upward_import_breaks_them(tmp_path: Path) -> None:
    tree = scratch_copy(tmp_path)
    kept = lint_imports(tree)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "Contracts: 3 kept, 0 broken." in kept.stdout

    # The store reaching up into the table: what queries.py once did for the grace period.
    add_import(tree / "app" / "store" / "queries.py", "from app.table import standin")
    broken = lint_imports(tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "app.store is not allowed to import app.table" in broken.stdout
    assert "app.store.queries -> app.table.standin" in broken.stdout


def test_the_shared_vocabulary_imports_nothing_above_it(tmp_path: Path) -> None:
    tree = scratch_copy(tmp_path)
    add_import(tree / "app" / "core" / "errors.py", "import app.edge.api")
    broken = lint_imports(tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "app.core is not allowed to import app.edge" in broken.stdout
    assert "app.core.errors -> app.edge.api" in broken.stdout


def test_the_engine_may_not_import_app(tmp_path: Path) -> None:
    tree = scratch_copy(tmp_path)
    add_import(tree / "engine" / "rng.py", "import app.core.errors")
    broken = lint_imports(tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "the engine stands alone: it never imports app BROKEN" in broken.stdout
    assert "engine.rng -> app.core.errors" in broken.stdout


@pytest.mark.parametrize(
    ("module", "line", "chain"),
    [
        # What core/errors.py once did to name the database's exceptions.
        ("app/core/errors.py", "import asyncpg", "app.core.errors -> asyncpg"),
        # What the edge's readiness probe once did.
        (
            "app/edge/readiness.py",
            "from sqlalchemy import text",
            "app.edge.readiness -> sqlalchemy",
        ),
        ("app/table/audience.py", "import aiosqlite", "app.table.audience -> aiosqlite"),
    ],
)
def test_only_the_store_imports_the_database_drivers(
    tmp_path: Path, module: str, line: str, chain: str
) -> None:
    tree = scratch_copy(tmp_path)
    add_import(tree / module, line)
    broken = lint_imports(tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "only the store talks to the database" in broken.stdout
    assert chain in broken.stdout
    assert "Contracts: 2 kept, 1 broken." in broken.stdout
