"""How a finished game places its seats and which games move ratings (app.lobby.ratings, pure):
the winner first, then by score with ties sharing a place; a game moves ratings only when at
least two seats were people; two bots of one level move that level once; the rebuild gives the
numbers the game-by-game updates gave."""

from __future__ import annotations

from datetime import UTC, datetime

import engine
from app.lobby import ratings
from app.store.player_ports import Ended, RatingRec, Result, SeatAtEnd


def finished(scores: list[int], winner: int, seats: list[SeatAtEnd]) -> Ended:
    state = engine.new_game(players=len(scores), seed=3)
    for player, score in zip(state.players, scores, strict=True):
        player.score = score
    state.winner = winner
    return Ended("g", "t", len(scores), engine.dumps(state), datetime.now(UTC), seats)


def person(seat: int, player: str | None, stand_in: bool = False) -> SeatAtEnd:
    return SeatAtEnd(seat, f"P{seat}", False, None, stand_in, player)


def bot(seat: int, kind: str = "hard") -> SeatAtEnd:
    return SeatAtEnd(seat, f"Bot {seat + 1}", True, kind, False, None)


def test_places_the_winner_first_then_by_score_with_ties_shared() -> None:
    seats = [person(0, "a"), person(1, "b", stand_in=True), bot(2), person(3, None)]
    rated, placed = ratings.placements(finished([5, 9, 5, 2], 0, seats))
    assert rated
    assert [(p.seat, p.place) for p in placed] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    rated, placed = ratings.placements(finished([5, 9, 9, 2], 0, seats))
    assert [p.place for p in placed] == [1, 2, 2, 4]
    assert [p.rating_key for p in placed] == ["a", "b", "bot:hard", None]
    assert [p.left for p in placed] == [False, True, False, False]


def test_a_game_moves_ratings_only_with_two_people() -> None:
    rated, _ = ratings.placements(finished([5, 3, 1], 0, [person(0, "a"), bot(1), bot(2)]))
    assert not rated
    rated, _ = ratings.placements(finished([5, 3, 1], 0, [person(0, "a"), person(1, None), bot(2)]))
    assert rated


def test_two_bots_of_a_level_move_it_once_and_the_rebuild_agrees() -> None:
    seats = [person(0, "a"), person(1, "b"), bot(2), bot(3)]
    _, placed = ratings.placements(finished([1, 9, 5, 7], 1, seats))
    first = ratings.advance(placed, {})
    assert first["bot:hard"].games == 1 and first["b"].wins == 1
    assert first["b"].mu > 25 > first["a"].mu
    _, again = ratings.placements(finished([9, 1, 5, 7], 0, seats))
    second = {**first, **ratings.advance(again, first)}
    results = [
        Result(i, f"g{i}", "t", 4, True, datetime.now(UTC), p) for i, p in ((1, placed), (2, again))
    ]
    assert ratings.rebuild(results) == second
    unrated = Result(3, "g3", "t", 4, False, datetime.now(UTC), placed)
    assert ratings.rebuild([*results, unrated]) == second
    assert second["a"] == RatingRec("a", second["a"].mu, second["a"].sigma, 2, 1)
