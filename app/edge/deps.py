"""FastAPI dependencies shared by the routes: the lobby, the read models, the seat token."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.lobby.tables import Lobby
from app.store.queries import Queries


def get_lobby(request: Request) -> Lobby:
    return request.app.state.lobby  # type: ignore[no-any-return]


def get_queries(request: Request) -> Queries:
    return request.app.state.queries  # type: ignore[no-any-return]


def bearer_token(request: Request) -> str | None:
    """The seat token from `Authorization: Bearer <token>`, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


LobbyDep = Annotated[Lobby, Depends(get_lobby)]
QueriesDep = Annotated[Queries, Depends(get_queries)]
Token = Annotated[str | None, Depends(bearer_token)]
