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
    # Tables with a time limit: when the open bids or tie-breaks will be taken as empty (Unix
    # time, seconds). null: no limit, or nothing sealed is awaited.
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


ServerMessage = HelloOut | TableMsg | StateOut | AckOut | ErrorOut | PongOut


# --- matchmaking queue (issue 8): the socket /ws/queue ------------------------------------------


class QueueBotsIn(BaseModel):
    """Accept bots for the empty seats (after the wait the player picked)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["bots"]


class QueueLeaveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["leave"]


QueueClientMessage = Annotated[QueueBotsIn | QueueLeaveIn | PingIn, Field(discriminator="type")]
queue_client_message = TypeAdapter(QueueClientMessage)
QUEUE_CLIENT_TYPES = ("bots", "leave", "ping")


class QueueOut(BaseModel):
    """Still waiting: the table being gathered for this player, and who waits for it."""

    type: Literal["queue"] = "queue"
    ticket: str
    size: int | Literal["any"]  # what the player asked for
    target: int  # the table size being gathered ("2 of 4": waiting of target)
    waiting: int  # players waiting who fit that table, this one included
    needed: int  # players still missing for it
    bots_at: float  # Unix time from which bots may be accepted
    can_accept_bots: bool
    server_time: float = Field(default_factory=time.time)


class MatchedOut(BaseModel):
    """Seated: keep the token exactly as a join's, then open the table."""

    type: Literal["matched"] = "matched"
    ticket: str
    table_id: str
    seat: int
    token: str
    bots: int


class QueueLeftOut(BaseModel):
    type: Literal["left"] = "left"
    ticket: str
    reason: str  # left | expired
