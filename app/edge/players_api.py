"""The players' HTTP routes: the browser's player (`/api/me`: made on a first visit, renamed,
signed out here or everywhere), one-time sign-in links (`/api/me/claims`, redeemed at
`/api/claims`), the seats a player takes back on another browser, their games, a player's public
page (`/api/players/{id}`), and the pages that show them.

The player's secret travels only in its cookie: HttpOnly (no script reads it), SameSite=Lax (no
other site's form posts with it), Secure when PUBLIC_URL is https, renewed on every visit. It is
never in an answer's body, and neither is anyone else's link or secret."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Cookie, Depends, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import FileResponse

from app.core.player_schemas import (
    ClaimOut,
    CurrentOut,
    FinishedOut,
    LinkSeat,
    MeOut,
    MyGames,
    PlacementOut,
    PlayerPage,
    RatingOut,
    RedeemClaim,
    Rename,
)
from app.core.schemas import ID_PATTERN, JoinOut
from app.edge.api import ERRORS, TableId, _page
from app.edge.ratelimit import client_address, parse_proxies
from app.lobby.history import History
from app.lobby.players import Players, Visit
from app.lobby.ratings import conservative
from app.store.player_ports import Result
from app.store.records import utcnow

COOKIE = "ds_player"
COOKIE_SECONDS = 400 * 24 * 3600  # the longest a browser keeps a cookie
PAGE = 20

router = APIRouter(prefix="/api", responses=ERRORS, tags=["players"])
pages = APIRouter(include_in_schema=False)


async def get_players(request: Request) -> Players:
    return request.app.state.players  # type: ignore[no-any-return]


async def get_history(request: Request) -> History:
    return request.app.state.history  # type: ignore[no-any-return]


PlayersDep = Annotated[Players, Depends(get_players)]
HistoryDep = Annotated[History, Depends(get_history)]
Secret = Annotated[str | None, Cookie(alias=COOKIE, include_in_schema=False)]
PlayerId = Annotated[str, PathParam(pattern=ID_PATTERN, description="a player's id")]


def _set_cookie(request: Request, response: Response, secret: str) -> None:
    public = request.app.state.settings.public_url or ""
    response.set_cookie(
        COOKIE, secret, max_age=COOKIE_SECONDS, path="/", httponly=True, samesite="lax",
        secure=public.startswith("https://"),
    )  # fmt: skip


def _me(request: Request, response: Response, visit: Visit, secret: str | None) -> MeOut:
    # A new secret, or the same one renewed: a player who keeps coming back stays signed in.
    kept = visit.secret or secret
    if kept:
        _set_cookie(request, response, kept)
    return MeOut(
        id=visit.player.id, name=visit.player.name, notice="new_player" if visit.notice else None
    )


@router.get("/me", response_model=MeOut)
async def me(
    request: Request, response: Response, players: PlayersDep, secret: Secret = None
) -> MeOut:
    """This browser's player; a first visit makes one and sets its cookie. A cookie that names
    no player (signed out everywhere, forged) gets a new player, with `notice: new_player`."""
    return _me(request, response, await players.visit(secret), secret)


@router.patch("/me", response_model=MeOut)
async def rename(
    request: Request, response: Response, body: Rename, players: PlayersDep, secret: Secret = None
) -> MeOut:
    """Choose or change the name used at every table (the same rules as a table's names)."""
    player = await players.rename(secret, body.name)
    return _me(request, response, Visit(player), secret)


@router.post("/me/claims", response_model=ClaimOut, status_code=201)
async def new_claim(request: Request, players: PlayersDep, secret: Secret = None) -> ClaimOut:
    """A one-time link that signs another browser in as this player, for 10 minutes. Shown only
    to this player."""
    base = request.app.state.settings.public_url or str(request.base_url)
    claim = await players.new_claim(secret, base)
    return ClaimOut(
        path=claim.path, code=claim.code, expires_at=utcnow() + claim.expires_in,
        qr_svg=claim.qr_svg,
    )  # fmt: skip


@router.post("/claims", response_model=MeOut)
async def redeem_claim(
    request: Request, response: Response, body: RedeemClaim, players: PlayersDep
) -> MeOut:
    """Sign this browser in by a one-time link. Refused `claim_used` (each link signs in once),
    `claim_expired`, `claim_unknown`; failed attempts are limited per address."""
    settings = request.app.state.settings
    address = client_address(request.scope, parse_proxies(settings.trusted_proxies))
    visit = await players.redeem(body.code, address)
    return _me(request, response, visit, None)


@router.post("/me/signout", status_code=204)
async def sign_out(request: Request, players: PlayersDep, secret: Secret = None) -> Response:
    """Sign this browser out (its secret forgotten, its alerts ended); the player's other
    browsers stay."""
    await request.app.state.hub.push.signed_out(secret)
    await players.sign_out(secret)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.post("/me/signout-everywhere", response_model=MeOut)
async def sign_out_everywhere(
    request: Request, response: Response, players: PlayersDep, secret: Secret = None
) -> MeOut:
    """Every browser of this player signed out (their alerts ended) and their open links void;
    this one stays signed in with a new secret."""
    visit = await players.sign_out_everywhere(secret)
    await request.app.state.hub.push.signed_out_everywhere(visit.player.id)
    return _me(request, response, visit, None)


@router.post("/me/seats", status_code=204)
async def link_seat(body: LinkSeat, players: PlayersDep, secret: Secret = None) -> Response:
    """Bind a seat this browser holds (its token) to the signed-in player."""
    await players.link_seat(secret, body.table_id, body.token)
    return Response(status_code=204)


@router.post(
    "/me/tables/{table_id}/seat",
    response_model=JoinOut,
    responses={204: {"description": "the player holds no seat at this table"}},
)
async def seat_back(
    table_id: TableId, players: PlayersDep, secret: Secret = None
) -> JoinOut | Response:
    """The player's seat at this table on this browser: a new token (the one the seat had before
    holds nothing any more). 204 when the player holds no seat there (an answer, not an error:
    the page then offers to join)."""
    back = await players.seat_back(secret, table_id)
    return back if back is not None else Response(status_code=204)


def finished_out(r: Result) -> FinishedOut:
    return FinishedOut(
        result_id=r.id, game_id=r.game_id, table_id=r.table_id, finished_at=r.finished_at,
        rated=r.rated, replay=f"/replay/{r.game_id}",
        placements=[
            PlacementOut(
                seat=p.seat, name=p.name, player_id=p.player_id, bot_kind=p.bot_kind,
                left=p.left, score=p.score, place=p.place,
            )
            for p in r.placements
        ],
    )  # fmt: skip


@router.get("/me/games", response_model=MyGames)
async def my_games(
    players: PlayersDep,
    history: HistoryDep,
    secret: Secret = None,
    before: Annotated[int | None, Query(ge=1)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = PAGE,
) -> MyGames:
    """The games I am in now, and my finished ones, newest first (`before`: the next page)."""
    player = await players.signed_in(secret)
    # The games being played come with the first page only.
    current = await players.playing(player) if before is None else []
    results = await history.games_of(player.id, before, limit)
    return MyGames(
        current=[
            CurrentOut(
                table_id=c.held.table_id,
                seat=c.held.seat,
                name=c.held.name,
                status=c.held.table_status,
                your_move=c.your_move,
                turn=c.turn,
                deadline=c.deadline,
            )
            for c in current
        ],
        awaiting=sum(1 for c in current if c.your_move),
        finished=[finished_out(r) for r in results],
        before=results[-1].id if len(results) == limit else None,
    )


@router.get("/players/{player_id}", response_model=PlayerPage)
async def player_page(player_id: PlayerId, players: PlayersDep, history: HistoryDep) -> PlayerPage:
    """A player's public page: their name, their rating and how sure it is, their last games."""
    player = await players.public(player_id)
    rated, last = await history.page(player.id, 10)
    rating = None
    if rated is not None:
        rating = RatingOut(
            shown=round(conservative(rated.mu, rated.sigma), 2), mu=rated.mu, sigma=rated.sigma,
            games=rated.games, wins=rated.wins,
        )  # fmt: skip
    return PlayerPage(
        id=player.id, name=player.name, rating=rating, last_games=[finished_out(r) for r in last]
    )


@pages.get("/me")
@pages.get("/me/claim")
@pages.get("/players/{player_id}")
@pages.get("/leagues/join")
@pages.get("/leagues/{league_id}")
async def player_pages(request: Request) -> FileResponse:
    return _page(request, "me.html")
