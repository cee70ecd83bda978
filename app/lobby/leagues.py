"""Friends' leagues: a player makes one (a name and an invite link), others join by the link,
members make tables for it, and its games count in its own standings (OpenSkill over the
league's games only, app.lobby.ratings) and in each pair's head-to-head. Within a league no two
members' names look alike (app.core.names)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from app.core import names
from app.core.errors import Code, ServiceError
from app.core.schemas import TableOut
from app.core.security import new_id
from app.lobby import ratings
from app.lobby.tables import Lobby
from app.store.player_ports import LeagueRec, LeagueStore, PlayerRec, RatingRec, Result

# The games a league's standings are computed from (the latest): a friends' league plays far
# fewer.
STANDINGS_GAMES = 5000


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


def head_to_head(results: list[Result], members: list[str]) -> list[Pair]:
    """Each pair of members who played together: games, and who finished ahead how often."""
    pairs = []
    for a, b in combinations(members, 2):
        games = a_ahead = b_ahead = 0
        for r in results:
            places = {p.player_id: p.place for p in r.placements if p.player_id}
            if a in places and b in places:
                games += 1
                a_ahead += places[a] < places[b]
                b_ahead += places[b] < places[a]
        if games:
            pairs.append(Pair(a, b, games, a_ahead, b_ahead))
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
        league, members = await self.member_of(player, league_id)
        results = await self.store.results(league_id, STANDINGS_GAMES)
        return Standings(
            league=league,
            members=members,
            ratings=ratings.rebuild(results),
            pairs=head_to_head(results, [m.id for m in members]),
            games=results[::-1][:20],
        )

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
