"""WebSocket messages, both ways. Every message in or out is one of these models."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from app.schemas import TableOut

# The server's own action ids (bots, time-outs) start with this (app.game.room).
SERVER_ID_PREFIX = "~"

# --- client -> server -------------------------------------------------------------------------


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["action"]
    action: dict[str, Any]
    # Chosen by the client, unique per game: a retry with the same id has no second effect.
    action_id: str = Field(min_length=1, max_length=64, strict=True)

    @field_validator("action_id")
    @classmethod
    def _printable(cls, value: str) -> str:
        # Stored and echoed: no NUL or control characters (Postgres refuses NUL in text), and
        # "~" starts the server's own ids (bots, time-outs), which no client may write.
        if not value.isprintable():
            raise ValueError("an action_id holds printable characters only")
        if value.startswith(SERVER_ID_PREFIX):
            raise ValueError(f"action ids starting with {SERVER_ID_PREFIX!r} are the server's")
        return value


class PingIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["ping"]


ClientMessage = Annotated[ActionIn | PingIn, Field(discriminator="type")]
client_message = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("action", "ping")

# --- server -> client -------------------------------------------------------------------------


class HelloOut(BaseModel):
    type: Literal["hello"] = "hello"
    table_id: str
    seat: int | None  # null: a spectator
    name: str | None


class TableMsg(BaseModel):
    type: Literal["table"] = "table"
    table: TableOut


class StateOut(BaseModel):
    type: Literal["state"] = "state"
    game_id: str
    version: int
    view: dict[str, Any]
    prompts: list[dict[str, Any]]
    # The events this connection may see for the versions in (events_from, version]; each carries
    # the "version" its action produced. events_from below the client's last version means the
    # log was reset (fresh connection, or a gap too old to replay event by event).
    events_from: int
    events: list[dict[str, Any]]
    resync: bool = False
    # Tables with a time limit: when the open prompt (bids, a tie-break, or a power decision at
    # a table with choose_seconds) times out to its default (Unix time, seconds). null: no
    # limit, or nothing timed is awaited.
    deadline: float | None = None
    # The server's clock when this message was made (Unix seconds), to correct a client's clock
    # when it counts down to the deadline.
    server_time: float = Field(default_factory=time.time)


class AckOut(BaseModel):
    type: Literal["ack"] = "ack"
    action_id: str
    version: int
    duplicate: bool = False  # true: this action_id had already been applied; nothing new happened


class ErrorOut(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str
    action_id: str | None = None


class PongOut(BaseModel):
    type: Literal["pong"] = "pong"


# -- timers and absent players (issue 8) --


class NoticeOut(BaseModel):
    """A table notice that is not a game action: `stand_in` (a bot plays for `seat`; `by` the
    seat that handed it over, null when the server did after two time-outs in a row) or `back`
    (the seat's person took it back). Every notice of the table is sent again on connect; `id`
    rises, so a client keeps each once."""

    type: Literal["notice"] = "notice"
    id: int
    kind: Literal["stand_in", "back"]
    seat: int
    by: int | None = None
    version: int = Field(description="the game version it came after, to place it in the log")
    at: float = Field(description="when (Unix seconds)")


ServerMessage = HelloOut | TableMsg | StateOut | AckOut | ErrorOut | PongOut | NoticeOut
