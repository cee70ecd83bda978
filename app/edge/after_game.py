"""After the game: every screen opened, and the hard bot's view of each decision.

`GET /api/games/{id}/screens`: for every version of a finished game, what was behind each
player's screen (coins, the sealed bid and tie-break bid not yet revealed), as that player's own
view showed it. `GET /api/games/{id}/analysis`: the analysis so far (app.table.analysis), asking
for it on the first call. Both are refused (409 not_over) while the game is played, as its record
is: its secrets matter until the end.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

import engine
from app.edge.api import ERRORS, GameId
from app.edge.replay_cache import published, respond
from app.table.analysis import Analyst, figures


class Screen(BaseModel):
    seat: int
    coins: dict[str, int] = Field(description="behind this player's screen")
    bid: dict[str, Any] | None = Field(description="its sealed bid, until the reveal")
    tiebreak: dict[str, Any] | None = Field(description="its sealed tie-break bid")


class ScreensVersion(BaseModel):
    version: int
    screens: list[Screen]


class ScreensOut(BaseModel):
    """What every player saw behind their own screen, version by version."""

    id: str
    versions: list[ScreensVersion]


class AnalysisOut(BaseModel):
    """The analysis of a finished game so far: estimates, from each seat's own view."""

    id: str
    worlds: int = Field(description="the budget: worlds drawn per decision")
    total: int = Field(description="the decisions to analyse (the game's actions)")
    done: int = Field(description="the decisions analysed so far")
    complete: bool
    decisions: list[dict[str, Any]] = Field(description="engine.analysis.Decision, in order")
    summary: list[dict[str, Any]] = Field(description="per seat: decisions, labels, average loss")
    key_moments: list[dict[str, Any]] = Field(description="the largest swings of chance")
    thresholds: dict[str, float] = Field(description="the losses that earn each label")


def _screens_at(state: engine.State, version: int) -> ScreensVersion:
    screens = []
    for seat in range(len(state.players)):
        me = engine.view(state, seat)["me"]
        screens.append(Screen(seat=seat, coins=me["coins"], bid=me["bid"], tiebreak=me["tiebreak"]))
    return ScreensVersion(version=version, screens=screens)


def screens(game_id: str, players: int, seed: int, actions: list[tuple[int, int, Any]]) -> bytes:
    state, _ = engine.start(players, seed)
    versions = [_screens_at(state, 0)]
    for version, seat, action in actions:
        state, _ = engine.apply(state, seat, action)
        versions.append(_screens_at(state, version))
    return ScreensOut(id=game_id, versions=versions).model_dump_json().encode()


router = APIRouter()


@router.get(
    "/api/games/{game_id}/screens", response_model=ScreensOut, tags=["games"], responses=ERRORS
)
async def game_screens(request: Request, game_id: GameId) -> Response:
    """Every player's screen at every version of a finished game (409 not_over before)."""

    async def make() -> bytes:
        game = await request.app.state.reads.finished_game(game_id)
        try:
            return await asyncio.to_thread(
                screens, game.id, game.players, int(game.seed), game.actions
            )
        except engine.IllegalAction as exc:
            raise HTTPException(
                409, {"code": "replay_failed", "message": f"the record does not replay: {exc}"}
            ) from exc

    return respond(request, await published(request).get(f"screens:{game_id}", make))


@router.get(
    "/api/games/{game_id}/analysis", response_model=AnalysisOut, tags=["games"], responses=ERRORS
)
async def game_analysis(request: Request, game_id: GameId) -> AnalysisOut:
    """The analysis of a finished game so far, started by the first call (409 not_over before);
    ask again until `complete`."""
    game = await request.app.state.reads.finished_game(game_id)
    analyst: Analyst = request.app.state.analyst
    stored = await analyst.store.decisions(game.id, analyst.worlds)
    if len(stored) < len(game.actions):
        await analyst.request(game)
    return AnalysisOut(
        id=game.id,
        worlds=analyst.worlds,
        total=len(game.actions),
        done=len(stored),
        complete=len(stored) >= len(game.actions),
        **figures(stored, game.players),
    )
