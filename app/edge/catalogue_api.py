"""The card catalogue over HTTP (`GET /api/cards`) and the rules page (`/rules`) built from it.

The document is the engine's catalogue (`engine.catalogue`): every card's name, power and rules
text in each language, and the rules page's sections. It changes only with a release, so it is
made once per process, answered with an ETag and revalidated by the browser (`no-cache`: a new
release is seen at once, an unchanged one costs a 304).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

import engine
from app.edge.api import ERRORS
from engine import catalogue

CACHE_CONTROL = "no-cache"


class CardLang(BaseModel):
    name: str
    power: str = Field(description="the card's power in one sentence")
    rules: str = Field(description="the card's full rules text")
    article: str = Field(description="the French article (la, le, l’); empty in English")


class CatalogueCard(BaseModel):
    id: str = Field(description="the character id of the protocol")
    special: bool
    copies: int
    glyph: str = Field(description="the symbol drawn on the card")
    colour: str = Field(description="red, blue, yellow or empty")
    text: dict[str, CardLang] = Field(description="by language")


class GuideSection(BaseModel):
    id: str = Field(description="goal, start, turn, bids, tiebreak, scoring, end or cards")
    title: str
    paragraphs: list[str]


class CatalogueOut(BaseModel):
    """Every card in every language, and the rules page's sections."""

    version: str = Field(description="a hash of the content: changes when any text does")
    langs: list[str]
    scoring: list[str] = Field(description="the cards whose power turns stones into points")
    cards: list[CatalogueCard]
    guide: dict[str, list[GuideSection]] = Field(description="the rules page, by language")


@cache
def _document(lang: str | None) -> tuple[bytes, str]:
    body = catalogue.document({c.id: (c.special, c.copies) for c in engine.CARDS.values()})
    if lang is not None:
        # One language asked: the others are left out of every card and of the guide.
        body["langs"] = [lang]
        body["guide"] = {lang: body["guide"][lang]}
        for card in body["cards"]:
            card["text"] = {lang: card["text"][lang]}
    out = CatalogueOut.model_validate(body).model_dump_json().encode("utf-8")
    return out, f'"{body["version"]}-{lang or "all"}"'


router = APIRouter()


@router.get("/api/cards", response_model=CatalogueOut, tags=["cards"], responses=ERRORS)
async def cards(
    request: Request,
    lang: Literal["en", "fr"] | None = Query(None, description="one language; all if absent"),
) -> Response:
    """The card catalogue: every card's name, power and rules text (in every language, or in
    `lang`), with an ETag (`304` to `If-None-Match`)."""
    body, etag = _document(lang)
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


@router.get("/rules", include_in_schema=False)
async def rules_page(request: Request) -> FileResponse:
    static_dir: Path = request.app.state.settings.static_dir
    path = static_dir / "rules.html"
    if not path.is_file():
        raise HTTPException(404, {"code": "not_found", "message": "rules.html is not installed"})
    return FileResponse(path, media_type="text/html")
