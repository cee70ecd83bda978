"""The queue's matching rule (app.lobby.queue_rule), on its own: who plays with whom."""

from __future__ import annotations

from dataclasses import dataclass

from app.lobby.queue_rule import plan, target


@dataclass(eq=False)
class E:
    name: str
    size: int | None = None


def _tables(queue: list[E]) -> list[tuple[int, list[str]]]:
    return [(size, [e.name for e in group]) for size, group in plan(queue)]


def test_any_4_4_any_is_one_four_seat_table() -> None:
    queue = [E("A"), E("B", 4), E("C", 4), E("D")]
    assert _tables(queue[:3]) == []
    assert _tables(queue) == [(4, ["A", "B", "C", "D"])]


def test_the_largest_size_the_queue_fills_now_for_the_longest_waiting() -> None:
    assert _tables([E("A"), E("B"), E("C")]) == [(3, ["A", "B", "C"])]
    assert _tables([E(n) for n in "ABCDEFG"]) == [(6, list("ABCDEF"))]
    # Eve wants 6 and cannot have it: the others still play.
    assert _tables([E("Eve", 6), E("A"), E("B", 3), E("C")]) == [(3, ["A", "B", "C"])]
    # Two tables at once, each of a size all its players accept.
    queue = [E("A", 3), E("B", 5), E("C", 3), E("D"), E("F", 5), E("G", 5), E("H", 5)]
    assert _tables(queue) == [(3, ["A", "C", "D"])]
    queue.append(E("I", 5))
    assert _tables(queue) == [(3, ["A", "C", "D"]), (5, ["B", "F", "G", "H", "I"])]


def test_two_players_of_one_name_never_share_a_table() -> None:
    assert _tables([E("Ann"), E("ANN"), E("Bob")]) == []
    assert _tables([E("Ann"), E("ANN"), E("Bob"), E("Cy")]) == [(3, ["Ann", "Bob", "Cy"])]


def test_the_table_shown_to_a_waiting_player() -> None:
    assert target(None, {None: 1}) == (3, 1)  # alone: "1 of 3"
    assert target(None, {None: 1, 4: 1}) == (4, 2)  # the same players missing: the larger
    assert target(4, {None: 1, 4: 2}) == (4, 3)
    assert target(5, {5: 1, 3: 2}) == (5, 1)
