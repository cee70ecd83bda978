"""The matching rule of the queue: who plays with whom, and the size of table shown to a waiting
player ("2 of 4"). Pure functions over the waiting entries, in queue order; no I/O.

The rule (docs/protocol.md, "The matchmaking queue"): take the longest-waiting player; try the
sizes they accept from the largest down (a size of their own, or 6, 5, 4, 3 for "any"); the
first size for which enough players accepting it wait forms a table with that player and the
longest-waiting of the others; repeat until no table can be formed. Two players whose names are
the same at a table (app.core.names.key) are never put at one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from app.core import names
from app.core.schemas import MAX_SEATS, MIN_SEATS

# The size of a table a player who asked for "any" gets when they accept bots.
DEFAULT_BOTS_SIZE = 4


class Waiting(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int | None: ...  # None: any size


W = TypeVar("W", bound=Waiting)


def sizes(entry: Waiting) -> list[int]:
    """The table sizes a player accepts, largest first."""
    if entry.size is None:
        return list(range(MAX_SEATS, MIN_SEATS - 1, -1))
    return [entry.size]


def accepts(entry: Waiting, size: int) -> bool:
    return entry.size is None or entry.size == size


def gather(first: W, size: int, others: Sequence[W]) -> list[W]:
    """`first` and, in queue order, the others who accept `size` (one name once), up to `size`
    players in all (fewer when not enough wait)."""
    group = [first]
    for other in others:
        if len(group) == size:
            break
        if other is first or not accepts(other, size):
            continue
        if any(names.same(other.name, member.name) for member in group):
            continue
        group.append(other)
    return group


def plan(queue: Sequence[W]) -> list[tuple[int, list[W]]]:
    """Every table the queue (in queue order) can fill now: (size, players in queue order)."""
    remaining = list(queue)
    tables: list[tuple[int, list[W]]] = []
    formed = True
    while formed:
        formed = False
        for first in remaining:
            for size in sizes(first):
                group = gather(first, size, remaining)
                if len(group) == size:
                    tables.append((size, [e for e in remaining if e in group]))
                    remaining = [e for e in remaining if e not in group]
                    formed = True
                    break
            if formed:
                break
    return tables


def target(size: int | None, waiting_by_size: Mapping[int | None, int]) -> tuple[int, int]:
    """The table being gathered for a player who asked for `size`, and how many waiting players
    accept it (`waiting_by_size`: the waiting players by the size they asked for, None for any;
    this player included). "any": the size missing the fewest players, the larger on a tie."""

    def fitting(n: int) -> int:
        return waiting_by_size.get(None, 0) + waiting_by_size.get(n, 0)

    if size is not None:
        return size, fitting(size)
    best = min(range(MAX_SEATS, MIN_SEATS - 1, -1), key=lambda n: n - fitting(n))
    return best, fitting(best)
