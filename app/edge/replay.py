"""The replay of a finished game, as a spectator saw it: the page `/replay/{game_id}` and its data.

`public_replay` plays the public record (`app.core.schemas.GameRecord`) again with the engine and keeps,
for every version 0..N, the public view, the public prompts and the public events of that version:
exactly what a spectator's socket received, nothing private (no coins behind a screen, no sealed
bid before its reveal, no private event). The seed is in the record already once the game is over,
so the page can check the commitment published at the start itself.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

import engine
from app.core.actions import GameAction
from app.core.schemas import GameRecord, RecordPlayer
from app.edge.api import ERRORS, GameId, public_record
from app.edge.replay_cache import published, respond

# What a spectator learns of another seat's prompt (the same fields the table socket keeps):
# limits and options could reveal coins behind a screen.
PUBLIC_PROMPT_FIELDS = ("seat", "kind", "character")


class ReplayVersion(BaseModel):
    version: int
    seat: int | None = Field(
        description="the seat whose action made this version (null: version 0)"
    )
    action: GameAction | None = Field(description="that action, as in the public record")
    view: dict[str, Any] = Field(description="engine.view(state, None) after this version")
    prompts: list[dict[str, Any]] = Field(description="open prompts, public fields only")
    events: list[dict[str, Any]] = Field(description="this version's public events, tagged with it")


class ReplayOut(BaseModel):
    """A finished game, version by version, as a spectator saw it."""

    id: str
    table_id: str
    seats: int
    players: list[RecordPlayer]
    seed: str
    seed_commitment: str
    winner: int | None
    final_state_matches: bool = Field(
        description="the replayed final state hashes to the record's final_state_sha256"
    )
    versions: list[ReplayVersion]


def _public_prompts(state: engine.State) -> list[dict[str, Any]]:
    return [{k: p[k] for k in PUBLIC_PROMPT_FIELDS if k in p} for p in engine.prompts(state)]


def _tagged(events: list[dict[str, object]], version: int) -> list[dict[str, Any]]:
    return [{**e, "version": version} for e in engine.visible_events(events, None)]


def public_replay(record: GameRecord) -> ReplayOut:
    """Replay `record` with the engine; raises engine.IllegalAction on a record that does not play."""
    state, opening = engine.start(record.seats, int(record.seed))
    versions = [
        ReplayVersion(
            version=0,
            seat=None,
            action=None,
            view=engine.view(state, None),
            prompts=_public_prompts(state),
            events=_tagged(opening, 0),
        )
    ]
    for recorded in record.actions:
        state, events = engine.apply(state, recorded.seat, recorded.action.engine_action())
        versions.append(
            ReplayVersion(
                version=recorded.version,
                seat=recorded.seat,
                action=recorded.action,
                view=engine.view(state, None),
                prompts=_public_prompts(state),
                events=_tagged(events, recorded.version),
            )
        )
    final_sha = hashlib.sha256(engine.dumps(state).encode("utf-8")).hexdigest()
    return ReplayOut(
        id=record.id,
        table_id=record.table_id,
        seats=record.seats,
        players=record.players,
        seed=record.seed,
        seed_commitment=record.seed_commitment,
        winner=record.winner,
        final_state_matches=final_sha == record.final_state_sha256,
        versions=versions,
    )


router = APIRouter()


async def _record(request: Request, game_id: str) -> GameRecord:
    # The one place that knows where records come from (refused with 404 / 409 not_over there).
    return await public_record(request.app.state.reads, game_id)


@router.get(
    "/api/games/{game_id}/replay", response_model=ReplayOut, tags=["games"], responses=ERRORS
)
async def game_replay(request: Request, game_id: GameId) -> Response:
    """A finished game version by version, as a spectator saw it (public views, prompts, events).
    Computed once (app.edge.replay_cache): cacheable for good, with an ETag."""

    async def make() -> bytes:
        record = await _record(request, game_id)
        try:
            # A few hundred engine steps and megabytes of JSON: off the event loop.
            return await asyncio.to_thread(lambda: public_replay(record).model_dump_json().encode())
        except engine.IllegalAction as exc:
            raise HTTPException(
                409, {"code": "replay_failed", "message": f"the record does not replay: {exc}"}
            ) from exc

    return respond(request, await published(request).get(f"replay:{game_id}", make))


@router.get("/replay/{game_id}", include_in_schema=False)
async def replay_page(request: Request, game_id: GameId) -> FileResponse:
    static_dir: Path = request.app.state.settings.static_dir
    path = static_dir / "replay.html"
    if not path.is_file():
        raise HTTPException(404, {"code": "not_found", "message": "replay.html is not installed"})
    return FileResponse(path, media_type="text/html")
