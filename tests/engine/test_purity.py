"""The engine is pure: standard library only, no global randomness, no clock, no I/O.

The server, the bots and the tests all rely on it: a game is its seed plus its actions, and the
engine can be vendored into any Python program without installing anything.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MODULES = sorted(ENGINE.glob("*.py"))
BOTS = "bots.py"  # a bot owns a random.Random of its own, and uses nothing else of `random`
# Likewise the strong bot and the world sampler it searches with: a random.Random is passed in.
# And the analysis of a finished game: its random.Random is seeded from what the seat could see.
SEEDED = {BOTS, "hard.py", "sample.py", "analysis.py"}
# Rules modules may not even import these: the game's randomness lives in the state (rng.py),
# and the rules never read a clock, the environment or the outside world.
NONDETERMINISTIC = {
    "random",
    "secrets",
    "time",
    "datetime",
    "os",
    "uuid",
    "socket",
    "threading",
    "asyncio",
    "subprocess",
    "io",
    "pathlib",
    "urllib",
    "http",
    "sqlite3",
}
# hash() of a str and id() change from run to run; the others are I/O or dynamic code.
IMPURE_CALLS = {"open", "print", "input", "hash", "id", "exec", "eval", "__import__"}


def imports(tree: ast.AST) -> list[tuple[int, str, int, bool]]:
    """(line, module, level, is_from) of every import in `tree`, at any depth."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, 0, False) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module or "", node.level, True))
    return found


def foreign_imports(source: str) -> list[str]:
    """Imports that are neither relative, nor of `engine`, nor of the standard library."""
    return [
        f"{line}: import {module}"
        for line, module, level, _ in imports(ast.parse(source))
        if level == 0 and module.split(".")[0] not in (*sys.stdlib_module_names, "engine")
    ]


def impurities(source: str, *, allow_random: bool = False) -> list[str]:
    """Nondeterministic imports, impure calls, and uses of the global random generator."""
    tree = ast.parse(source)
    bad = []
    for line, module, level, is_from in imports(tree):
        top = module.split(".")[0]
        if level or top not in NONDETERMINISTIC:
            continue
        if top == "random" and allow_random and not is_from:
            continue  # `import random` for random.Random; `from random import x` never
        bad.append(f"{line}: {'from' if is_from else 'import'} {module}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in IMPURE_CALLS
        ):
            bad.append(f"{node.lineno}: {node.func.id}()")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr != "Random"
        ):
            bad.append(f"{node.lineno}: random.{node.attr} (the shared global generator)")
    return bad


def test_the_engine_has_its_modules() -> None:
    names = {m.name for m in MODULES}
    assert {"__init__.py", "game.py", "powers.py", "view.py", "serialize.py", BOTS} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_every_import_is_relative_or_standard_library(path: Path) -> None:
    bad = foreign_imports(path.read_text(encoding="utf-8"))
    assert not bad, f"{path.name} imports outside the standard library: {bad}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_global_randomness_clock_or_io(path: Path) -> None:
    bad = impurities(path.read_text(encoding="utf-8"), allow_random=path.name in SEEDED)
    assert not bad, f"{path.name}: {bad}"


def test_the_scanners_catch_what_they_must() -> None:
    """The checks above can fail (a test that cannot fail is a defect)."""
    assert foreign_imports("import fastapi\nfrom pydantic import BaseModel\n") == [
        "1: import fastapi",
        "2: import pydantic",
    ]
    assert foreign_imports("import json\nfrom . import rng\nfrom engine.state import X\n") == []
    rules = "import random\nx = random.random()\n"
    assert impurities(rules) == [
        "1: import random",
        "2: random.random (the shared global generator)",
    ]
    assert impurities(rules, allow_random=True) == [
        "2: random.random (the shared global generator)"
    ]
    assert impurities("from random import choice\n", allow_random=True) == ["1: from random"]
    assert impurities("import random\nr = random.Random(3)\n", allow_random=True) == []
    assert impurities("import time\nprint(hash('a'))\n") == [
        "1: import time",
        "2: print()",
        "2: hash()",
    ]


def test_importing_the_engine_loads_only_the_standard_library() -> None:
    """In a fresh interpreter, `import engine` (bots included) loads nothing from outside the
    standard library."""
    script = (
        "import sys, json\n"
        "before = set(sys.modules)\n"
        "import engine, engine.bots\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ENGINE.parent,
        timeout=60,
    )
    loaded = json.loads(out.stdout)
    assert "engine" in loaded and "engine.game" in loaded
    outside = [m for m in loaded if m.split(".")[0] not in (*sys.stdlib_module_names, "engine")]
    assert not outside, f"import engine loads {outside}"
