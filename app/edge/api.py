"""HTTP routes: the lobby, the public game records, the health check and the static client."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, Response

import engine
from app.core.actions import shown
from app.core.config import Settings
from app.core.errors import Code, ServiceError
from app.core.schemas import (
    ID_PATTERN,
    MAX_SEATS,
    AddBots,
    CreateTable,
    ErrorResponse,
    GameRecord,
    JoinOut,
    JoinTable,
    QuickPlay,
    RecordedAction,
    RecordPlayer,
    Rematch,
    StartTable,
    TableOut,
    TableSettings,
)
from app.edge.deps import ListingDep, LobbyDep, ReadsDep, Token
from app.edge.ratelimit import client_address, parse_proxies
from app.edge.replay_cache import published, respond
from app.lobby import rematch, tutorial
from app.store.lobby_ports import ReadModel
from app.store.records import as_utc

ERRORS: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorResponse} for code in (400, 401, 403, 404, 409, 410, 422, 429, 503)
}

# Identifiers are checked here, at the edge: an id that no table or game can have (NUL, 2 KB of
# text) or a seat outside the table never reaches the database. Refused with 422 invalid_request.
TableId = Annotated[str, PathParam(pattern=ID_PATTERN, description="a table's id")]
GameId = Annotated[str, PathParam(pattern=ID_PATTERN, description="a game's id")]
SeatNo = Annotated[int, PathParam(ge=0, le=MAX_SEATS - 1, description="a seat, 0 to 5")]

api = APIRouter(prefix="/api", responses=ERRORS)
pages = APIRouter(include_in_schema=False)


def table_limits(settings: Settings, body: CreateTable) -> dict[str, int | None]:
    """The time-limit columns of a new table (`turn_seconds`, `choose_seconds`, `grace_seconds`),
    from its pace and the limits the body names."""
    # A time limit left out is the server's default; `null` is none.
    paces = {"relaxed": settings.relaxed_limits, "slow": settings.slow_limits}
    limits = paces.get(body.pace, settings.default_limits)()
    limits.update(body.model_dump(include=body.model_fields_set & limits.keys()))
    grace = body.grace_seconds
    if body.pace == "slow" and grace is None:
        # Away for two limits in a row, not 30 s: at a slow table people come and go.
        grace = 2 * max(s or 0 for s in limits.values()) or None
    return {**limits, "grace_seconds": grace}


@api.post("/tables", status_code=201, response_model=TableOut, tags=["lobby"])
async def create_table(request: Request, body: CreateTable, lobby: LobbyDep) -> TableOut:
    """Open a table with 3 to 6 seats; a private table is reached only by its invite link. The
    tables an address opened that nobody sits at are limited (`429 too_many_tables`)."""
    limits = table_limits(lobby.hub.settings, body)
    return await lobby.create_table(
        seats=body.seats,
        public=body.public,
        turn_seconds=limits["turn_seconds"],
        choose_seconds=limits["choose_seconds"],
        grace_seconds=limits["grace_seconds"],
        address=client_address(request.scope, parse_proxies(lobby.settings.trusted_proxies)),
    )


@api.post("/learn", status_code=201, response_model=JoinOut, tags=["lobby"])
async def learn(request: Request, body: JoinTable, lobby: LobbyDep) -> JoinOut:
    """Learn to play: a private table without time limits where `name` plays the tutorial's
    fixed deal against two easy bots, already started. Counted like a table this address
    opened (`429 too_many_tables`)."""
    address = client_address(request.scope, parse_proxies(lobby.settings.trusted_proxies))
    return await tutorial.start(lobby, name=body.name, address=address)


@api.get("/tables", response_model=list[TableOut], tags=["lobby"])
async def list_tables(
    listing: ListingDep, status: Literal["open", "playing"] = "open"
) -> list[TableOut]:
    """`open` (default): public tables that have not started and still have a free seat, those
    with a person online first, then those with a person seated, then empty ones (listed for
    `EMPTY_TABLE_LISTED_SECONDS` only), each newest first. `playing`: public tables whose game
    is being played (games to watch), the most recently active first, with the players' scores
    and the turn."""
    if status == "playing":
        return await listing.playing_tables()
    return await listing.open_tables()


@api.post(
    "/quickplay",
    response_model=JoinOut,
    tags=["lobby"],
    responses={204: {"description": "open_only: no open table waits for players"}},
)
async def quickplay(body: QuickPlay, lobby: LobbyDep) -> JoinOut | Response:
    """Matchmaking: a seat at the public open table closest to full (of the size asked, if
    any), else at a new public table. The seat is taken under the table's lock, like join.
    With `open_only`, no table is created: 204 when none waits (an answer, not an error: the
    browser then queues)."""
    try:
        return await lobby.quickplay(name=body.name, seats=body.seats, open_only=body.open_only)
    except ServiceError as exc:
        if exc.code == Code.NO_OPEN_TABLE:
            return Response(status_code=204)
        raise


@api.get("/tables/{table_id}", response_model=TableOut, tags=["lobby"])
async def get_table(table_id: TableId, listing: ListingDep) -> TableOut:
    return await listing.table(table_id)


@api.post("/tables/{table_id}/join", response_model=JoinOut, tags=["lobby"])
async def join_table(table_id: TableId, body: JoinTable, lobby: LobbyDep) -> JoinOut:
    """Take the lowest free seat. The token is shown once: keep it to act for the seat."""
    return await lobby.join(table_id=table_id, name=body.name)


@api.post("/tables/{table_id}/leave", response_model=TableOut, tags=["lobby"])
async def leave_table(table_id: TableId, lobby: LobbyDep, token: Token) -> TableOut:
    """Give the seat back (before the game starts only)."""
    return await lobby.leave(table_id=table_id, token=token)


@api.post("/tables/{table_id}/bots", response_model=TableOut, tags=["lobby"])
async def add_bots(table_id: TableId, body: AddBots, lobby: LobbyDep, token: Token) -> TableOut:
    """Bots take `count` empty seats (the host's token is required)."""
    return await lobby.add_bots(table_id=table_id, token=token, count=body.count, kind=body.kind)


@api.delete("/tables/{table_id}/bots/{seat}", response_model=TableOut, tags=["lobby"])
async def remove_bot(table_id: TableId, seat: SeatNo, lobby: LobbyDep, token: Token) -> TableOut:
    """Give a bot's seat back before the game starts (the host's token is required)."""
    return await lobby.remove_bot(table_id=table_id, token=token, seat=seat)


@api.post("/tables/{table_id}/start", response_model=TableOut, tags=["lobby"])
async def start_table(
    table_id: TableId, lobby: LobbyDep, token: Token, body: StartTable | None = None
) -> TableOut:
    """Start the game once every seat is taken (the host's token is required). The body is
    optional; its `seed` is for tests only (a server started with TEST_SEED)."""
    return await lobby.start(table_id=table_id, token=token, seed=body.seed if body else None)


# -- timers and absent players --


@api.post("/tables/{table_id}/seats/{seat}/standin", response_model=TableOut, tags=["game"])
async def hand_to_bot(request: Request, table_id: TableId, seat: SeatNo, token: Token) -> TableOut:
    """Another seated person hands an absent player's seat to a bot (a seated person's token is
    required): once the seat's person has been disconnected for the table's `grace_seconds`.
    Refused `seat_online`, `too_early`, `own_seat`, `not_a_person`, `already_stand_in`,
    `not_started`, `game_over`. The person takes the seat back by connecting again."""
    hub = request.app.state.hub
    return await hub.room(table_id).standins.hand_over(seat=seat, token=token)  # type: ignore[no-any-return]


@api.delete("/tables/{table_id}/seats/{seat}/standin", response_model=TableOut, tags=["game"])
async def take_seat_back(
    request: Request, table_id: TableId, seat: SeatNo, token: Token
) -> TableOut:
    """The seat's own person takes it back from the bot standing in (the seat's token is
    required); a socket of the seat connecting does the same. Refused `no_stand_in`."""
    hub = request.app.state.hub
    return await hub.room(table_id).standins.take_back(seat=seat, token=token)  # type: ignore[no-any-return]


# -- hosts and rematch ------------------------------------------------------------


@api.delete("/tables/{table_id}/seats/{seat}", response_model=TableOut, tags=["lobby"])
async def remove_seat(table_id: TableId, seat: SeatNo, lobby: LobbyDep, token: Token) -> TableOut:
    """The host gives a seat back before the start (a player who went away, or a bot): the
    removed player's token no longer works and their sockets are closed (`removed`)."""
    return await lobby.remove_seat(table_id=table_id, token=token, seat=seat)


@api.patch("/tables/{table_id}", response_model=TableOut, tags=["lobby"])
async def update_table(
    table_id: TableId, body: TableSettings, lobby: LobbyDep, token: Token
) -> TableOut:
    """The host changes the table's settings before the start; fields left out are kept."""
    return await lobby.update_settings(table_id=table_id, token=token, settings=body)


@api.post("/tables/{table_id}/rematch", response_model=JoinOut, tags=["lobby"])
async def rematch_table(
    table_id: TableId, lobby: LobbyDep, token: Token, body: Rematch | None = None
) -> JoinOut:
    """Play again with the same players (the game must be over; a seated person's token): the
    first call opens a new table with the same settings, linked as `rematch_id`; each caller is
    seated there under the same name. Asking twice answers the same seat and token."""
    return await rematch.play_again(
        lobby, table_id=table_id, token=token, bots=body.bots if body else None
    )


@api.get("/games/{game_id}", response_model=GameRecord, tags=["games"])
async def game_record(request: Request, game_id: GameId, reads: ReadsDep) -> Response:
    """The public record of a finished game: every action in order and the seed, to replay it.
    Computed once (app.edge.replay_cache): cacheable for good, with an ETag."""

    async def make() -> bytes:
        record = await public_record(reads, game_id)
        return await asyncio.to_thread(lambda: record.model_dump_json().encode())

    return respond(request, await published(request).get(f"record:{game_id}", make))


async def public_record(reads: ReadModel, game_id: str) -> GameRecord:
    """The public record of a finished game: enough to replay and check it (refused with 404
    game_not_found, or 409 not_over while it is played: the seed and the actions would give
    away hidden information)."""
    game = await reads.finished_game(game_id)
    state = engine.loads(game.state)
    return GameRecord(
        id=game.id,
        table_id=game.table_id,
        seats=game.players,
        players=[RecordPlayer(seat=s, name=n, bot=b) for s, n, b in game.seats],
        seed=game.seed,
        seed_commitment=game.seed_commitment,
        winner=game.winner,
        version=game.version,
        final_state_sha256=hashlib.sha256(engine.dumps(state).encode("utf-8")).hexdigest(),
        final_view=engine.view(state, None),
        actions=[RecordedAction(version=v, seat=s, action=shown(a)) for v, s, a in game.actions],
        created_at=as_utc(game.created_at),
        finished_at=as_utc(game.finished_at) if game.finished_at else None,
    )


@pages.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _page(request: Request, name: str) -> FileResponse:
    static_dir: Path = request.app.state.settings.static_dir
    path = static_dir / name
    if not path.is_file():
        raise HTTPException(404, {"code": "not_found", "message": f"{name} is not installed"})
    return FileResponse(path, media_type="text/html")


# The installable app (a PWA): its manifest, served from the site's root like its service worker
# (app.edge.app_shell), whose scope is then every page (under /static/ only /static/).
SHELL_FILES = {"manifest.webmanifest": "application/manifest+json"}


@pages.get("/manifest.webmanifest")
async def app_shell(request: Request) -> FileResponse:
    name = request.url.path.lstrip("/")
    static_dir: Path = request.app.state.settings.static_dir
    path = static_dir / name
    if not path.is_file():
        raise HTTPException(404, {"code": "not_found", "message": f"{name} is not installed"})
    # Looked at on every load: a new version is found (and then taken on the next load).
    return FileResponse(path, media_type=SHELL_FILES[name], headers={"Cache-Control": "no-cache"})


@pages.get("/static/README.md")
async def client_readme() -> None:
    """The client's notes for contributors are in the repository, not on the site."""
    raise HTTPException(404, {"code": "not_found", "message": "not found"})


@pages.get("/")
async def index(request: Request) -> FileResponse:
    return _page(request, "index.html")


@pages.get("/t/{table_id}")
async def table_page(request: Request, table_id: str) -> FileResponse:
    return _page(request, "table.html")
