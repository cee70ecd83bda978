"""How a finished game places its seats and moves ratings (pure): places read from the game's
final state, OpenSkill's Plackett-Luce model over every placement, and a rebuild of every rating
from the recorded games in the order they were recorded, which gives the stored numbers again.

Who is rated: a person signed in as a player (their id), and each bot level ("bot:<kind>"). A
guest (a person not signed in) plays in the update with a new player's rating and keeps none. A
game moves ratings when it ended with a winner and at least two of its seats were people."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from openskill.models import PlackettLuce

import engine
from app.store.player_ports import Ended, Placement, RatingRec, Result, Skill

MODEL = PlackettLuce()
BOT_KEY = "bot:"


def conservative(mu: float, sigma: float) -> float:
    """The rating as shown: what the player is at least, almost surely (mu - 3 sigma)."""
    return mu - 3 * sigma


def rating_key(bot: bool, bot_kind: str | None, player_id: str | None) -> str | None:
    if bot:
        return BOT_KEY + (bot_kind or "default")
    return player_id


def placements(ended: Ended) -> tuple[bool, list[Placement]]:
    """(whether it moves ratings, each seat's placement). The winner is first; the others by
    score, equal scores sharing a place."""
    state = engine.loads(ended.state)
    view = engine.view(state, None)
    winner = engine.winner(state)
    scores = {p["seat"]: int(p["score"]) for p in view["players"]}
    order = sorted(scores, key=lambda s: (s != winner, -scores[s], s))
    places: dict[int, int] = {}
    for i, seat in enumerate(order):
        prev = order[i - 1] if i else None
        tied = prev is not None and prev != winner and scores[prev] == scores[seat]
        places[seat] = places[prev] if tied and prev is not None else i + 1
    seats = {s.seat: s for s in ended.seats}
    out = []
    for seat in sorted(scores):
        s = seats.get(seat)
        bot = s.bot if s else True
        out.append(
            Placement(
                seat=seat,
                name=s.name if s else f"Bot {seat + 1}",
                player_id=s.player_id if s and not bot else None,
                rating_key=rating_key(bot, s.bot_kind if s else None, s.player_id if s else None),
                bot_kind=s.bot_kind if s and bot else None,
                left=bool(s and s.stand_in),
                score=scores[seat],
                place=places[seat],
            )
        )
    people = sum(1 for p in out if not p.rating_key or not p.rating_key.startswith(BOT_KEY))
    return winner is not None and people >= 2, out


def moved(placed: list[Placement], before: Mapping[str, Skill]) -> dict[str, Skill]:
    """The new ratings of the rated seats' keys. A key held by several seats (two bots of one
    level) plays each of them at its rating; its lowest seat's outcome is the key's new one."""
    teams = []
    for p in placed:
        skill = before.get(p.rating_key) if p.rating_key else None
        teams.append(
            [MODEL.rating() if skill is None else MODEL.rating(mu=skill[0], sigma=skill[1])]
        )
    after = MODEL.rate(teams, ranks=[p.place for p in placed])
    out: dict[str, Skill] = {}
    for p, team in zip(placed, after, strict=True):
        if p.rating_key is not None and p.rating_key not in out:
            out[p.rating_key] = (team[0].mu, team[0].sigma)
    return out


def counted(placed: list[Placement], key: str) -> tuple[int, int]:
    """(games, wins) one game adds to a key's record."""
    mine = [p for p in placed if p.rating_key == key]
    return (1 if mine else 0), (1 if any(p.place == 1 for p in mine) else 0)


def advance(placed: list[Placement], before: Mapping[str, RatingRec]) -> dict[str, RatingRec]:
    """The rated seats' records after this game, from theirs before it (a key absent: new)."""
    out: dict[str, RatingRec] = {}
    for key, (mu, sigma) in moved(placed, {k: (r.mu, r.sigma) for k, r in before.items()}).items():
        games, wins = counted(placed, key)
        old = before.get(key)
        out[key] = RatingRec(
            key, mu, sigma, games + (old.games if old else 0), wins + (old.wins if old else 0)
        )
    return out


def rebuild(results: Iterable[Result]) -> dict[str, RatingRec]:
    """Every rating, from the recorded games in their order: the same numbers as stored."""
    ratings: dict[str, RatingRec] = {}
    for result in results:
        if result.rated:
            ratings.update(advance(result.placements, ratings))
    return ratings
