"""FastAPI dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.service import GameService


def get_service(request: Request) -> GameService:
    return request.app.state.service  # type: ignore[no-any-return]


def bearer_token(request: Request) -> str | None:
    """The seat token from `Authorization: Bearer <token>`, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


Service = Annotated[GameService, Depends(get_service)]
Token = Annotated[str | None, Depends(bearer_token)]
