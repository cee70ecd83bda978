"""Friends' leagues: a player makes one (a name and an invite link), others join by the link,
members make tables for it, and its games count in its own standings (OpenSkill over the
league's games only, app.lobby.ratings) and in each pair's head-to-head. Within a league no two
members' names look alike (app.core.names).

The standings are stored and read as they are: a read first folds in the league's games recorded
since the last fold (usually none or a few; every game of a league that had none stored, once),
and `dragonstones ratings rebuild` recomputes them from every game of the league."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from app.core import names
from app.core.errors import Code, ServiceError
from app.core.schemas import TableOut
from app.core.security import new_id
from app.lobby import ratings
from app.lobby.tables import Lobby
from app.store.player_ports import (
    LeagueRec,
    LeagueStore,
    PairRec,
    PlayerRec,
    RatingRec,
    Result,
    Standing,
)

# The recorded games a read folds into the stored standings at a time.
FOLD_BATCH = 1000
LAST_GAMES = 20  # shown on the league's page


@dataclass(frozen=True, slots=True)
class Pair:
    """Two members' games together, and how often each finished ahead of the other."""

    a: str
    b: str
    games: int
    a_ahead: int
    b_ahead: int


@dataclass(frozen=True, slots=True)
class Standings:
    league: LeagueRec
    members: list[PlayerRec]
    ratings: dict[str, RatingRec]
    pairs: list[Pair]
    games: list[Result]


def fold(standing: Standing, results: Iterable[Result]) -> Standing:
    """The ratings and pairs these games (the league's next ones, in recording order) change,
    after them; `folded_through` the last game's."""
    ratings_now = dict(standing.ratings)
    pairs_now = dict(standing.pairs)
    changed: dict[str, RatingRec] = {}
    paired: dict[tuple[str, str], PairRec] = {}
    last = standing.folded_through
    for result in results:
        last = result.id
        if result.rated:
            moved = ratings.advance(result.placements, ratings_now)
            ratings_now.update(moved)
            changed.update(moved)
        places = {p.player_id: p.place for p in result.placements if p.player_id}
        for a, b in combinations(sorted(places), 2):
            old = pairs_now.get((a, b)) or PairRec(a, b, 0, 0, 0)
            new = PairRec(
                a, b, old.games + 1,
                old.a_ahead + (places[a] < places[b]), old.b_ahead + (places[b] < places[a]),
            )  # fmt: skip
            pairs_now[(a, b)] = paired[(a, b)] = new
    return Standing(standing.league_id, last, changed, paired)


def rebuilt(league_id: str, results: Iterable[Result]) -> Standing:
    """A league's standings from every one of its games, in recording order."""
    empty = Standing(league_id, 0, {}, {})
    return fold(empty, results)


async def rebuild_standings(store: LeagueStore, results: Iterable[Result]) -> tuple[int, list[str]]:
    """Every league's standings recomputed from its games (every recorded game, in recording
    order) and stored: how many leagues, and what was stored differently from the recomputation
    over the games it had folded in ("<league> <key>", "<league> <a>/<b>")."""
    by_league: dict[str, list[Result]] = {}
    for result in results:
        if result.league_id is not None:
            by_league.setdefault(result.league_id, []).append(result)
    differ = []
    for league_id, games in by_league.items():
        stored = await store.standing(league_id)
        upto = rebuilt(league_id, (g for g in games if g.id <= stored.folded_through))
        for key in sorted(set(upto.ratings) | set(stored.ratings)):
            if upto.ratings.get(key) != stored.ratings.get(key):
                differ.append(f"{league_id} {key}")
        for a, b in sorted(set(upto.pairs) | set(stored.pairs)):
            if upto.pairs.get((a, b)) != stored.pairs.get((a, b)):
                differ.append(f"{league_id} {a}/{b}")
        await store.replace_standing(rebuilt(league_id, games))
    return len(by_league), differ


def head_to_head(standing: Standing, members: list[str]) -> list[Pair]:
    """Each pair of members who played together: games, and who finished ahead how often, in
    the order the members joined."""
    pairs = []
    for a, b in combinations(members, 2):
        stored = standing.pairs.get((a, b) if a < b else (b, a))
        if stored is None:
            continue
        ahead = (stored.a_ahead, stored.b_ahead) if a < b else (stored.b_ahead, stored.a_ahead)
        pairs.append(Pair(a, b, stored.games, *ahead))
    return pairs


class Leagues:
    def __init__(self, store: LeagueStore, lobby: Lobby) -> None:
        self.store = store
        self.lobby = lobby

    async def create(self, player: PlayerRec, name: str) -> LeagueRec:
        league = LeagueRec(id=new_id(), name=name, invite=new_id(), created_by=player.id)
        await self.store.create(league)
        return league

    async def join(self, player: PlayerRec, invite: str) -> LeagueRec:
        league = await self.store.by_invite(invite)
        if league is None:
            raise ServiceError(Code.NOT_FOUND, "this league's link is not valid")
        members = await self.store.members(league.id)
        if player.id in {m.id for m in members}:
            return league
        if not player.name:
            raise ServiceError(Code.INVALID_NAME, "choose your name before joining a league")
        for m in members:
            if m.name and names.same(m.name, player.name):
                raise ServiceError(
                    Code.NAME_TAKEN,
                    f"someone in this league is called {m.name!r}: choose another name first",
                )
        await self.store.join(league.id, player.id)
        return league

    async def member_of(
        self, player: PlayerRec, league_id: str
    ) -> tuple[LeagueRec, list[PlayerRec]]:
        """The league and its members; refused unless the player is one."""
        league = await self.store.league(league_id)
        if league is None:
            raise ServiceError(Code.NOT_FOUND, "there is no such league")
        members = await self.store.members(league_id)
        if player.id not in {m.id for m in members}:
            raise ServiceError(Code.NOT_MEMBER, "only the league's members see it")
        return league, members

    async def standings(self, player: PlayerRec, league_id: str) -> Standings:
        view = await self.store.view(league_id, LAST_GAMES)
        if view is None:
            raise ServiceError(Code.NOT_FOUND, "there is no such league")
        if player.id not in {m.id for m in view.members}:
            raise ServiceError(Code.NOT_MEMBER, "only the league's members see it")
        standing = view.standing
        if view.last and view.last[-1].id > standing.folded_through:
            standing = await self.current(league_id)  # games recorded since: folded in first
        return Standings(
            league=view.league,
            members=view.members,
            ratings=standing.ratings,
            pairs=head_to_head(standing, [m.id for m in view.members]),
            games=view.last[::-1],
        )

    async def current(self, league_id: str) -> Standing:
        """The stored standings with the games recorded since folded in (and stored)."""
        standing = await self.store.standing(league_id)
        while True:
            pending = await self.store.results_after(league_id, standing.folded_through, FOLD_BATCH)
            if not pending:
                return standing
            now = fold(standing, pending)
            if not await self.store.fold(standing, now):
                # Another reader folded them first: theirs is as good.
                standing = await self.store.standing(league_id)
                continue
            standing = Standing(
                league_id, now.folded_through,
                {**standing.ratings, **now.ratings}, {**standing.pairs, **now.pairs},
            )  # fmt: skip

    async def new_table(
        self, player: PlayerRec, league_id: str, address: str, **settings: Any
    ) -> TableOut:
        """A private table made for the league (reached by its link): its game counts there.
        `settings`: those of `Lobby.create_table`."""
        await self.member_of(player, league_id)
        table = await self.lobby.create_table(public=False, address=address, **settings)
        await self.store.set_table_league(table.id, league_id)
        return table

    async def leagues_of(self, player: PlayerRec) -> list[LeagueRec]:
        return await self.store.leagues_of(player.id)
