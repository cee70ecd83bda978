"""The HTTP bodies and answers about players (pydantic models): the browser's player, renaming,
one-time sign-in links, the seats a player takes back, their games and a player's public page.
A player's secret never appears in any of them: it travels only in its HttpOnly cookie."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from app.core import names
from app.core.schemas import ID_PATTERN, JoinTable

# A sign-in link's code and a seat token: URL-safe base64 of 32 random bytes.
SECRET_PATTERN = r"^[A-Za-z0-9_-]{20,64}$"


class MeOut(BaseModel):
    id: str
    name: str | None = Field(
        description="the name chosen once and used at every table; null until chosen"
    )
    notice: Literal["new_player"] | None = Field(
        None,
        description="`new_player`: this browser's cookie named no player any more (signed out "
        "elsewhere, or forged), so it is a new player now",
    )


class Rename(JoinTable):
    """The player's name: the same rules as a name at a table."""


class ClaimOut(BaseModel):
    path: str = Field(
        description="the one-time link (its code after `#`, never sent to the server by a browser)"
    )
    code: str
    expires_at: datetime
    qr_svg: str = Field(description="the link as a QR code (SVG), for a phone's camera")


class RedeemClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(pattern=SECRET_PATTERN, max_length=64)


class LinkSeat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table_id: str = Field(pattern=ID_PATTERN)
    token: str = Field(pattern=SECRET_PATTERN, max_length=64)


class PlacementOut(BaseModel):
    seat: int
    name: str
    player_id: str | None
    bot_kind: str | None
    left: bool = Field(description="a stand-in finished the game for this person")
    score: int
    place: int


class FinishedOut(BaseModel):
    result_id: int = Field(
        description="its place in the history: pass it as `before` for older ones"
    )
    game_id: str
    table_id: str
    finished_at: datetime
    rated: bool
    placements: list[PlacementOut]
    replay: str


class CurrentOut(BaseModel):
    table_id: str
    seat: int
    name: str
    status: str
    your_move: bool = Field(False, description="the game waits for this seat now")
    turn: int | None = None
    deadline: datetime | None = Field(None, description="when this seat's open prompt times out")


class MyGames(BaseModel):
    current: list[CurrentOut] = Field(
        description="those waiting for me (`your_move`) first, the soonest `deadline` first, "
        "then the others, the latest change first"
    )
    awaiting: int = Field(
        0, description="how many of `current` wait for me: the count on the page's badge"
    )
    finished: list[FinishedOut]
    before: int | None = Field(description="pass as `before` for the next page; null: no more")


class RatingOut(BaseModel):
    shown: float = Field(description="the conservative rating, mu - 3 sigma")
    mu: float
    sigma: float = Field(description="how unsure it is: smaller is surer")
    games: int
    wins: int


class PlayerPage(BaseModel):
    id: str
    name: str | None
    rating: RatingOut | None
    last_games: list[FinishedOut]


class CreateLeague(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64, description="the league's name")

    @field_validator("name")
    @classmethod
    def _clean_name(cls, value: str) -> str:
        try:
            return names.normalise(value, 64)
        except ValueError as exc:
            raise PydanticCustomError("invalid_name", str(exc)) from None


class JoinLeague(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(pattern=ID_PATTERN, description="the invite link's code (after `#`)")


class LeagueOut(BaseModel):
    id: str
    name: str
    invite_path: str = Field(description="the invite link, shown to members only")


class MemberOut(BaseModel):
    id: str
    name: str | None


class StandingOut(BaseModel):
    key: str = Field(description="a player's id, or `bot:<level>`")
    name: str | None
    rating: RatingOut


class PairOut(BaseModel):
    a: str
    b: str
    games: int
    a_ahead: int
    b_ahead: int


class LeaguePage(BaseModel):
    league: LeagueOut
    members: list[MemberOut]
    standings: list[StandingOut] = Field(
        description="OpenSkill over this league's games only, best first"
    )
    head_to_head: list[PairOut]
    games: list[FinishedOut]
