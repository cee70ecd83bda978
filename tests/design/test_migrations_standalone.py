"""A migration (migrations/versions/) imports neither `engine` nor `app`, not even inside a
function: it is run by whatever code is installed when a database is upgraded or downgraded,
maybe years later, and must do then what it did the day it was written. What it needs of the
game is written into it, frozen. (migrations/env.py, the environment that runs them, uses the
installed app's settings and models by design.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.server.harness import REPO

MIGRATIONS = sorted((REPO / "migrations" / "versions").glob("[0-9]*.py"))


def imported(path: Path) -> set[str]:
    """Every module a file imports, at any depth (functions included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            names.add("__import__")
    return names


def test_the_migrations_are_found() -> None:
    assert len(MIGRATIONS) >= 10 and MIGRATIONS[0].name == "0001_initial.py"


@pytest.mark.parametrize("path", MIGRATIONS, ids=lambda p: p.name)
def test_a_migration_imports_neither_the_engine_nor_the_app(path: Path) -> None:
    ours = sorted(
        name
        for name in imported(path)
        if name.split(".")[0] in ("engine", "app", "tests", "importlib", "__import__")
    )
    assert ours == [], f"{path.name} imports {ours}: freeze what it needs into the migration"
