"""Every module of app/ and engine/ has one job, stated in the docstring it opens with, and stays
within 400 lines; every package's `__init__` says what the package owns."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.server.harness import REPO

MAX_LINES = 400
MODULES = sorted(
    p
    for top in ("app", "engine")
    for p in (REPO / top).rglob("*.py")
    if "__pycache__" not in p.parts
)


def test_the_modules_are_found() -> None:
    names = {p.relative_to(REPO).as_posix() for p in MODULES}
    assert {"app/__init__.py", "app/table/room.py", "engine/state.py"} <= names
    packages = {p.parent for p in MODULES}
    assert all((package / "__init__.py").exists() for package in packages)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_a_module_opens_with_its_docstring(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    first = tree.body[0] if tree.body else None
    assert (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and first.value.value.strip()
    ), f"{path.relative_to(REPO)} does not open with a docstring saying its job"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_a_module_stays_within_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines (at most {MAX_LINES})"
