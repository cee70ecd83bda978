"""A league's stored standings (app.lobby.leagues, pure): folding its games in a few at a time
gives exactly what folding them all at once gives (the ratings OpenSkill's game-by-game updates
give, and each pair's games and who finished ahead); an unrated game counts in the head-to-head
only; a pair reads in the order the members joined, whichever id sorts first."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from app.lobby import ratings
from app.lobby.leagues import Pair, fold, head_to_head, rebuilt
from app.store.player_ports import Placement, Result, Standing


def game(n: int, rated: bool, order: list[str | None]) -> Result:
    """Result n: the seats in `order` (a player's id, or None for a bot) placed 1, 2, 3..."""
    placements = [
        Placement(
            seat=seat, name=who or "Bot", player_id=who, rating_key=who or "bot:hard",
            bot_kind=None if who else "hard", left=False, score=4 - place, place=place,
        )
        for seat, (place, who) in enumerate(enumerate(order, start=1))
    ]  # fmt: skip
    return Result(n, f"g{n}", f"t{n}", len(order), rated, datetime.now(UTC), placements, "L")


def games(count: int) -> list[Result]:
    rng = random.Random(5)
    out = []
    for n in range(1, count + 1):
        order: list[str | None] = ["zoe", "amy", "max", None]
        rng.shuffle(order)
        out.append(game(n, rated=n % 7 != 0, order=order[: rng.choice((3, 4))]))
    return out


def test_folding_a_few_games_at_a_time_gives_the_rebuild() -> None:
    results = games(40)
    whole = rebuilt("L", results)
    standing = Standing("L", 0, {}, {})
    for start in range(0, len(results), 6):
        step = fold(standing, results[start : start + 6])
        standing = Standing(
            "L", step.folded_through,
            {**standing.ratings, **step.ratings}, {**standing.pairs, **step.pairs},
        )  # fmt: skip
    assert standing == whole
    assert whole.folded_through == 40
    assert whole.ratings == ratings.rebuild(results)
    # Every game counts in the head-to-head, the unrated ones too.
    together = sum(1 for r in results if {"amy", "zoe"} <= {p.player_id for p in r.placements})
    assert whole.pairs[("amy", "zoe")].games == together


def test_a_pair_reads_in_the_members_order() -> None:
    results = [game(1, True, ["zoe", "amy", None]), game(2, True, ["zoe", None, "amy"])]
    standing = rebuilt("L", results)
    assert head_to_head(standing, ["zoe", "amy", "max"]) == [Pair("zoe", "amy", 2, 2, 0)]
    assert head_to_head(standing, ["amy", "zoe"]) == [Pair("amy", "zoe", 2, 0, 2)]
