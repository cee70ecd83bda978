"""FastAPI dependencies shared by the routes: the lobby, the read model, how tables are shown, the
seat token.

Every dependency is `async def`, here and beside the other routers: FastAPI runs a plain `def`
one on a worker thread, two thread switches per request for an attribute read."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.lobby.tables import Lobby
from app.store.lobby_ports import ReadModel
from app.table.listing import Listing


async def get_lobby(request: Request) -> Lobby:
    return request.app.state.lobby  # type: ignore[no-any-return]


async def get_reads(request: Request) -> ReadModel:
    return request.app.state.reads  # type: ignore[no-any-return]


async def get_listing(request: Request) -> Listing:
    return request.app.state.hub.listing  # type: ignore[no-any-return]


async def bearer_token(request: Request) -> str | None:
    """The seat token from `Authorization: Bearer <token>`, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


LobbyDep = Annotated[Lobby, Depends(get_lobby)]
ReadsDep = Annotated[ReadModel, Depends(get_reads)]
ListingDep = Annotated[Listing, Depends(get_listing)]
Token = Annotated[str | None, Depends(bearer_token)]
