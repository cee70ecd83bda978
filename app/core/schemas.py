"""HTTP request and response bodies (the lobby and the public game record)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from annotated_types import Ge, Le
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError

from app.core import names
from app.core.actions import GameAction

MIN_SEATS, MAX_SEATS = 3, 6
# Table and game ids as app.core.security.new_id makes them (checked at the edge, before the database).
ID_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
MAX_NAME_LENGTH = 64
# "heuristic" is the normal bot the interface offers; "hard" searches; "random" tests.
BotKind = Literal["heuristic", "random", "hard"]


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """Every refused HTTP call answers 4xx with this body."""

    detail: ErrorBody


# A number of seconds in a table's settings. Numbers are JSON integers on every route:
# `3.0`, `"3"` and `true` are refused (422), as the queue's are.
Seconds = Annotated[int, Ge(1), Le(3600), Field(strict=True)]


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="ignore")

    seats: int = Field(ge=MIN_SEATS, le=MAX_SEATS, strict=True, description="3 to 6 players")
    # Strict: `"public": 0.0` or `"public": "no"` is a mistake, not a boolean to guess.
    public: StrictBool = Field(
        True, description="listed in the lobby; private tables join by invite link"
    )
    turn_seconds: Seconds | None = Field(
        None,
        description="time to submit a sealed bid or tie-break; who submits nothing in time bids "
        "nothing (R13). null: no limit",
    )
    # -- timers and absent players --
    choose_seconds: Seconds | None = Field(
        None,
        description="time for a power decision (a `choose` prompt); who decides nothing in time "
        "gets the prompt's documented default. null: no limit",
    )
    grace_seconds: Seconds | None = Field(
        None,
        description="how long a seat's player may be disconnected before another seated person "
        "may hand the seat to a bot. null: 120, or 30 at a table with a time limit",
    )
    pace: Literal["normal", "relaxed", "slow"] = Field(
        "normal",
        description='"relaxed": a time limit left out is the default times `RELAXED_FACTOR` '
        '(10: 7 min 30 s to bid, 10 min for a power) instead of the default. "slow" (play over '
        "days): every limit left out is `SLOW_DECISION_HOURS` (24 h), and the grace period, "
        "left out, two such limits",
    )


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        strict=True,
        description="1 to 64 printable characters, shown to everyone at the table. Stored "
        "normalised (NFKC, spaces collapsed, at most 2 combining marks per character); names "
        "like 'Bot 3' are the bots'; unique at a table whatever the case",
        # Made when the schema is (a second of work over all of Unicode), not at import.
        json_schema_extra=lambda schema: schema.update(pattern=names.schema_pattern()),
    )

    @field_validator("name")
    @classmethod
    def _clean_name(cls, value: str) -> str:
        try:
            return names.normalise(value, MAX_NAME_LENGTH)
        except ValueError as exc:
            # Answered 422 with the code invalid_name (app.errors).
            raise PydanticCustomError("invalid_name", str(exc)) from None


class QuickPlay(JoinTable):
    seats: int | None = Field(
        None,
        ge=MIN_SEATS,
        le=MAX_SEATS,
        strict=True,
        description="the table size wanted: preferred among open tables, and the size of a new "
        "one (default 4)",
    )
    # The browser fills waiting tables first, and queues when none fits.
    open_only: StrictBool = Field(
        False,
        description="only an open public table that waits for players (of `seats`, when given); "
        "none: 404 no_open_table, and no table is created",
    )


class AddBots(BaseModel):
    model_config = ConfigDict(extra="forbid")

    count: int = Field(ge=1, le=MAX_SEATS - 1, strict=True)
    kind: BotKind = "heuristic"


class StartTable(BaseModel):
    """The optional body of POST /api/tables/{id}/start."""

    model_config = ConfigDict(extra="forbid")

    seed: int | None = Field(
        None,
        ge=0,
        le=2**64 - 1,
        strict=True,
        description="for tests only: the seed the game is dealt from; refused (400 "
        "invalid_request) unless the server was started with TEST_SEED",
    )


class AcceptBots(BaseModel):
    """The optional body of POST /api/queue/{ticket}/bots."""

    model_config = ConfigDict(extra="forbid")

    kind: BotKind = "heuristic"


class PlayerOut(BaseModel):
    seat: int
    name: str
    bot: bool
    bot_kind: str | None = Field(
        default=None,
        description="the kind of bot playing this seat (a bot's, or a stand-in's): heuristic "
        "(the normal bot), hard or random; null for a person",
    )
    connected: bool = Field(description="a socket of this seat is open on some server now")
    score: int | None = Field(
        default=None, description="public score; only in the list of games being played (else null)"
    )
    # -- timers and absent players --
    stand_in: bool = Field(
        default=False, description="a bot plays for this person's seat until they come back"
    )
    absent: bool = Field(
        default=False,
        description="disconnected for longer than the table's grace_seconds: another seated "
        "person may hand the seat to a bot (only on the table socket; false elsewhere)",
    )
    away_since: datetime | None = Field(
        default=None,
        description="when this person's seat went away (last socket closed, or joined without "
        "one yet); null while online, and for bots",
    )


class TableOut(BaseModel):
    id: str
    seats: int
    taken: int
    public: bool
    turn_seconds: int | None
    # -- timers and absent players --
    choose_seconds: int | None = None
    grace_seconds: int = Field(
        default=120, description="seconds away before a bot may stand in for a seat"
    )
    stand_in_kind: str | None = Field(
        default=None,
        description="the bot that stands in for absent people; null: the server's default "
        "(the normal bot)",
    )
    status: Literal["open", "playing", "over", "closed"]
    players: list[PlayerOut]
    game_id: str | None
    winner: int | None
    invite_path: str
    watch_path: str
    invite_url: str | None = Field(
        default=None, description="the invite link on PUBLIC_URL; null when it is not set"
    )
    watch_url: str | None = Field(
        default=None, description="the watch link on PUBLIC_URL; null when it is not set"
    )
    created_at: datetime
    turn: int | None = Field(
        default=None,
        description="the game's turn; only in the list of games being played (else null)",
    )
    # -- hosts, presence and rematch --
    host: int | None = Field(
        default=None,
        description="the host's seat: the earliest seated person; only the host adds or removes "
        "bots, removes players, changes the settings and starts. null: nobody seated",
    )
    online: int = Field(default=0, description="seated people with a socket open now")
    last_active: datetime | None = Field(
        default=None, description="the last change of the seats or of someone's presence"
    )
    rematch_id: str | None = Field(
        default=None, description="the table opened to play again with the same players"
    )
    rematch_path: str | None = Field(default=None, description="/t/<rematch_id>")


# -- hosts and rematch ------------------------------------------------------------


class TableSettings(BaseModel):
    """What the host may change before the start (PATCH /api/tables/{id}); a field left out is
    kept. Each field is a column of the same name on `tables` (app.lobby.tables.SETTINGS_COLUMNS), so a
    new setting is one field here and one column; "play again" copies them all."""

    model_config = ConfigDict(extra="forbid")

    # Left out: kept. Never null (a table is listed or not).
    public: StrictBool = Field(  # type: ignore[assignment]
        None, description="listed in the lobby; private tables join by invite link"
    )
    turn_seconds: Seconds | None = Field(
        None, description="time limit for sealed bids and tie-breaks; null: none"
    )
    # -- timers and absent players --
    choose_seconds: Seconds | None = Field(
        None, description="time limit for power decisions (`choose` prompts); null: none"
    )
    grace_seconds: Seconds | None = Field(
        None,
        description="seconds a player may be away before a bot may stand in; null: the default "
        "(120, or 30 at a table with a time limit)",
    )
    # -- the hard bot --
    stand_in_kind: BotKind | None = Field(
        None,
        description="the bot that stands in for absent people: heuristic (the normal bot), hard "
        "or random; null: the server's default (DEFAULT_BOT_KIND, the normal bot)",
    )


class Rematch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bots: StrictBool | None = Field(
        None,
        description="the bots keep their seats at the new table; honoured only from the host "
        "who opens it (default: they do)",
    )


class JoinOut(BaseModel):
    table_id: str
    seat: int
    token: str = Field(description="the seat's secret; send it as Authorization: Bearer <token>")


class RecordedAction(BaseModel):
    version: int
    seat: int
    action: GameAction


class RecordPlayer(BaseModel):
    seat: int
    name: str
    bot: bool


class GameRecord(BaseModel):
    """Everything needed to replay a finished game with the engine and check it."""

    id: str
    table_id: str
    seats: int
    players: list[RecordPlayer]
    seed: str = Field(description="decimal; engine.new_game(players=seats, seed=int(seed))")
    seed_commitment: str
    winner: int | None
    version: int
    final_state_sha256: str = Field(description="sha256 of engine.dumps(final state)")
    final_view: dict[str, Any] = Field(description="engine.view(final state, None)")
    actions: list[RecordedAction]
    created_at: datetime
    finished_at: datetime | None


# --- matchmaking queue ---------------------------------------------------------------


def _whole_number(value: object) -> object:
    """A JSON integer, as on every route: never 4.0, text or a boolean."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("a whole number is expected")
    return value


QueueSize = (
    Literal["any"]
    | Annotated[
        int,
        BeforeValidator(_whole_number),
        Field(ge=MIN_SEATS, le=MAX_SEATS),
        WithJsonSchema({"type": "integer", "minimum": MIN_SEATS, "maximum": MAX_SEATS}),
    ]
)
MAX_BOTS_AFTER = 3600
BotsAfter = Annotated[
    int,
    BeforeValidator(_whole_number),
    Field(ge=0, le=MAX_BOTS_AFTER),
    WithJsonSchema({"type": "integer", "minimum": 0, "maximum": MAX_BOTS_AFTER}),
]


class JoinQueue(JoinTable):
    """Join the matchmaking queue: the name is checked exactly like a join's."""

    size: QueueSize = Field("any", description='the table size wanted: 3 to 6, or "any" (3 to 6)')
    bots_after: BotsAfter | None = Field(
        None,
        description="seconds of waiting after which you may accept bots for the empty seats "
        "(default: the server's QUEUE_BOTS_AFTER_SECONDS, 60)",
    )


class TicketOut(BaseModel):
    """A queue ticket as its holder sees it (the token only in the answer to the join)."""

    ticket: str
    token: str | None = Field(
        default=None, description="the ticket's secret, shown once: Authorization: Bearer <token>"
    )
    status: Literal["waiting", "matched", "left"]
    reason: str | None = Field(default=None, description="left: `left` or `expired`")
    name: str
    size: int | Literal["any"]
    bots_after: int
    bots_at: float = Field(description="Unix time from which bots may be accepted")
    # Waiting: the table being gathered for this player ("2 of 4").
    target: int | None = None
    waiting: int | None = None
    # Matched: the seat, exactly as a join answers it.
    table_id: str | None = None
    seat: int | None = None
    seat_token: str | None = None
    bots: int = 0
