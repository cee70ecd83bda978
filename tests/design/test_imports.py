"""The shape of the code, read from its own imports with grimp (the graph import-linter uses):
no module of app/ or engine/ is in an import circle, counting imports made only for the type
checker (`if TYPE_CHECKING:`): a circle drawn only for mypy is still a circle in the design. A
package's `__init__` only names what it owns, so its imports do not count."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

ROOTS = ("app", "engine")


def import_graph(*roots: str) -> dict[str, set[str]]:
    """module -> the modules it imports within `roots`, package `__init__`s left out."""
    graph = grimp.build_graph(*roots, exclude_type_checking_imports=False, cache_dir=None)
    packages = {m for m in graph.modules if graph.find_children(m)}
    return {
        m: {i for i in graph.find_modules_directly_imported_by(m) if i not in packages}
        for m in graph.modules
        if m not in packages
    }


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing itself),
    by Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in sorted(edges.get(m, ())):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            component = []
            while True:
                n = stack.pop()
                on_stack.discard(n)
                component.append(n)
                if n == m:
                    break
            if len(component) > 1 or m in edges.get(m, ()):
                found.append(sorted(component))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return found


def test_circles_are_found_even_when_drawn_only_for_the_type_checker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The room's collaborators once imported Room under TYPE_CHECKING only: the graph must see
    # such imports, or the test below could not find the circle they draw.
    package = tmp_path / "scratch_circle"
    package.mkdir()
    (package / "__init__.py").write_text("from scratch_circle.a import A\n")
    (package / "a.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from scratch_circle.b import B\n"
        "class A:\n"
        "    b: B | None = None\n"
    )
    (package / "b.py").write_text("from scratch_circle.a import A\nclass B(A): ...\n")
    (package / "c.py").write_text("from scratch_circle import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert circles(import_graph("scratch_circle")) == [["scratch_circle.a", "scratch_circle.b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"a"}}) == [["a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_app_or_engine() -> None:
    found = circles(import_graph(*ROOTS))
    assert found == [], "modules importing each other in a circle: " + "; ".join(
        " <-> ".join(c) for c in found
    )
