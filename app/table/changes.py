"""The changes that turn one JSON document into another: what a `delta` frame carries instead of
a viewer's whole view (docs/protocol.md, "Delta frames").

A change is a short list: `["s", path, value]` sets the value at `path`, `["d", path]` deletes
the key at `path`, `["a", path, items]` appends `items` to the list at `path`. A path is a list of
object keys (strings) and list indices (integers) from the document's root. Applied in order to
the old document, the changes give the new one exactly; they only ever carry values taken from
the new document.
"""

from __future__ import annotations

from typing import Any

Path = list[str | int]
_MISSING = object()


def changes(old: Any, new: Any, at: Path | None = None) -> list[list[Any]]:
    """The changes from `old` to `new` (both plain JSON data); [] when they are equal. `at`:
    where both are in a larger document (the start of every path)."""
    out: list[list[Any]] = []
    if old is not new:
        _diff(old, new, at or [], out)
    return out


def _diff(old: Any, new: Any, path: Path, out: list[list[Any]]) -> None:
    # Python's equality of nested dicts and lists runs in C: each unchanged part costs one
    # comparison, and only what changed is walked. It holds 1 == True == 1.0, which JSON does
    # not; the engine's views never put a bool or a float where an integer was.
    if type(old) is dict and type(new) is dict:
        kept = 0  # keys of `old` still in `new`
        for key, value in new.items():
            was = old.get(key, _MISSING)
            if was is _MISSING:
                out.append(["s", [*path, key], value])
                continue
            kept += 1
            if was is value or was == value:
                continue
            if type(value) is dict or type(value) is list:
                _diff(was, value, [*path, key], out)
            else:
                out.append(["s", [*path, key], value])
        if kept != len(old):
            out.extend(["d", [*path, key]] for key in old if key not in new)
        return
    if type(old) is list and type(new) is list and 0 < len(old) <= len(new):
        # Same items, changed in place (the players), or more at the end (the turn's cards).
        for i, item in enumerate(old):
            value = new[i]
            if item is value or item == value:
                continue
            if type(value) is dict or type(value) is list:
                _diff(item, value, [*path, i], out)
            else:
                out.append(["s", [*path, i], value])
        if len(new) > len(old):
            out.append(["a", path, new[len(old) :]])
        return
    if old != new:
        out.append(["s", path, new])


def apply(doc: Any, changes_: list[list[Any]]) -> Any:
    """`doc` with the changes applied, as a client does (the server never needs it; tests and
    benchmarks check frames with it). `doc` itself is left as it was."""
    for change in changes_:
        op, path = change[0], change[1]
        if not path:
            doc = change[2] if op == "s" else [*doc, *change[2]]
            continue
        doc = _apply_at(doc, op, path, change[2] if len(change) > 2 else None)
    return doc


def _apply_at(node: Any, op: str, path: Path, value: Any) -> Any:
    copy: Any = dict(node) if isinstance(node, dict) else list(node)
    key = path[0]
    if len(path) > 1:
        copy[key] = _apply_at(node[key], op, path[1:], value)
    elif op == "s":
        copy[key] = value
    elif op == "d":
        del copy[key]
    else:
        copy[key] = [*node[key], *value]
    return copy
