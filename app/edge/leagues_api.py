"""Friends' leagues over HTTP (`/api/leagues`; joining: `/api/me/leagues`): make one, join by its invite link, make a table
for it, and its page: members, standings over its games only, each pair's head-to-head, its last
games. Only members see a league; the invite code is shown to them only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi import Path as PathParam

from app.core.player_schemas import (
    CreateLeague,
    JoinLeague,
    LeagueOut,
    LeaguePage,
    MemberOut,
    PairOut,
    RatingOut,
    StandingOut,
)
from app.core.schemas import ID_PATTERN, CreateTable, TableOut
from app.edge.api import ERRORS, table_limits
from app.edge.players_api import HistoryDep, PlayersDep, Secret, finished_out
from app.edge.ratelimit import client_address, parse_proxies
from app.lobby.leagues import Leagues
from app.lobby.ratings import conservative
from app.store.player_ports import LeagueRec

router = APIRouter(prefix="/api", responses=ERRORS, tags=["leagues"])
LeagueId = Annotated[str, PathParam(pattern=ID_PATTERN, description="a league's id")]


async def get_leagues(request: Request) -> Leagues:
    return request.app.state.leagues  # type: ignore[no-any-return]


LeaguesDep = Annotated[Leagues, Depends(get_leagues)]


def league_out(league: LeagueRec) -> LeagueOut:
    return LeagueOut(id=league.id, name=league.name, invite_path=f"/leagues/join#{league.invite}")


@router.post("/leagues", response_model=LeagueOut, status_code=201)
async def create_league(
    body: CreateLeague, players: PlayersDep, leagues: LeaguesDep, secret: Secret = None
) -> LeagueOut:
    """Make a league (you are its first member); share its invite link with your friends."""
    me = await players.signed_in(secret)
    return league_out(await leagues.create(me, body.name))


# Not under /api/leagues/: "join" would read as a league's id there.
@router.post("/me/leagues", response_model=LeagueOut)
async def join_league(
    body: JoinLeague, players: PlayersDep, leagues: LeaguesDep, secret: Secret = None
) -> LeagueOut:
    """Join by the invite link's code. Refused `name_taken` when a member's name looks like
    yours, `invalid_name` while you have none."""
    me = await players.signed_in(secret)
    return league_out(await leagues.join(me, body.code))


@router.get("/leagues", response_model=list[LeagueOut])
async def my_leagues(
    players: PlayersDep, leagues: LeaguesDep, secret: Secret = None
) -> list[LeagueOut]:
    me = await players.signed_in(secret)
    return [league_out(league) for league in await leagues.leagues_of(me)]


@router.post("/leagues/{league_id}/tables", response_model=TableOut, status_code=201)
async def league_table(
    request: Request,
    league_id: LeagueId,
    body: CreateTable,
    players: PlayersDep,
    leagues: LeaguesDep,
    secret: Secret = None,
) -> TableOut:
    """A private table for the league (a member only): its game counts in the league's
    standings. The body is `POST /api/tables`'s (`public` is ignored)."""
    me = await players.signed_in(secret)
    settings = request.app.state.settings
    return await leagues.new_table(
        me, league_id,
        client_address(request.scope, parse_proxies(settings.trusted_proxies)),
        seats=body.seats, **table_limits(settings, body),
    )  # fmt: skip


@router.get("/leagues/{league_id}", response_model=LeaguePage)
async def league_page(
    league_id: LeagueId,
    players: PlayersDep,
    leagues: LeaguesDep,
    history: HistoryDep,
    secret: Secret = None,
) -> LeaguePage:
    """The league as its members see it: members, standings (OpenSkill over its games only,
    best first), each pair's head-to-head, its last games. `not_member` to anyone else."""
    me = await players.signed_in(secret)
    await history.record_pending()  # a game that just ended counts at once
    s = await leagues.standings(me, league_id)
    named = {m.id: m.name for m in s.members}
    for game in s.games:
        for p in game.placements:
            if p.rating_key:
                named.setdefault(p.rating_key, p.name if p.player_id else p.rating_key)
    # Equal ratings (a shared place) by key: the same order on every read.
    table = sorted(s.ratings.values(), key=lambda r: (-conservative(r.mu, r.sigma), r.key))
    return LeaguePage(
        league=league_out(s.league),
        members=[MemberOut(id=m.id, name=m.name) for m in s.members],
        standings=[
            StandingOut(
                key=r.key, name=named.get(r.key),
                rating=RatingOut(
                    shown=round(conservative(r.mu, r.sigma), 2), mu=r.mu, sigma=r.sigma,
                    games=r.games, wins=r.wins,
                ),
            )
            for r in table
        ],
        head_to_head=[PairOut(a=p.a, b=p.b, games=p.games, a_ahead=p.a_ahead, b_ahead=p.b_ahead) for p in s.pairs],
        games=[finished_out(g) for g in s.games],
    )  # fmt: skip
