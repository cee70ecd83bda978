"""WebSocket messages, both ways. Every message in or out is one of these models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from pydantic_core import PydanticCustomError

from app.core import names
from app.core.actions import GameAction
from app.core.clock import server_clock
from app.core.schemas import BotKind, TableOut

# The server's own action ids (bots, time-outs) start with this (app.table.room).
SERVER_ID_PREFIX = "~"

# --- client -> server -------------------------------------------------------------------------


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["action"]
    action: GameAction
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


class SyncIn(BaseModel):
    """A socket that takes deltas got one whose `base` is not the version it holds: it asks for
    the whole `state` again, with the events after `since` (the version it holds)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["sync"]
    since: int | None = Field(default=None, ge=-1, le=2**31 - 1, strict=True)


ClientMessage = Annotated[ActionIn | PingIn | SyncIn, Field(discriminator="type")]
client_message = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("action", "ping", "sync")

# --- server -> client -------------------------------------------------------------------------


# The version of this protocol, sent in `hello`. It rises by one whenever the server adds
# something a client may rely on (a message, a field, a code); nothing is renamed or dropped.
# docs/protocol-changelog.md says what each version added.
PROTOCOL_VERSION = 3


class HelloOut(BaseModel):
    type: Literal["hello"] = "hello"
    table_id: str
    seat: int | None  # null: a spectator
    name: str | None
    protocol: int = PROTOCOL_VERSION


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
    server_time: float = Field(default_factory=server_clock.time)


class DeltaOut(BaseModel):
    """Instead of a `state`, to a socket that asked for deltas (`?deltas=1`) and was sent
    version `base`: what changed in its view and prompts (app.table.changes) and the events of
    `version`. A client that does not hold `base` sends `sync`."""

    type: Literal["delta"] = "delta"
    game_id: str
    base: int
    version: int
    # Applied in order to {"view": ..., "prompts": ...} of `base`: that document at `version`.
    changes: list[list[Any]]
    events: list[dict[str, Any]]
    deadline: float | None = None
    server_time: float = Field(default_factory=server_clock.time)


class AckOut(BaseModel):
    type: Literal["ack"] = "ack"
    action_id: str
    version: int
    duplicate: bool = False  # true: this action_id had already been applied; nothing new happened


def encodable(text: str) -> bool:
    """Whether a string can be sent: JSON text may escape a lone surrogate ("\\ud800"), which
    parses into a str that UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class ErrorOut(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str
    action_id: str | None = None

    # An error may echo what a client sent before it was validated (its action_id, a text):
    # whatever it holds, the reply must encode, or the socket fails instead of answering.
    @field_validator("action_id")
    @classmethod
    def _echoable(cls, value: str | None) -> str | None:
        return value if value is None or encodable(value) else None

    @field_validator("message")
    @classmethod
    def _sendable(cls, value: str) -> str:
        if encodable(value):
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8")


class PongOut(BaseModel):
    type: Literal["pong"] = "pong"


class MoreTimeIn(BaseModel):
    """A seated player asks for more time for the open decision (anyone's): `EXTRA_TIME_SECONDS`
    more, `EXTRA_TIME_PER_GAME` times a game per seat (app.table.extra_time)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["more_time"]
    deadline: float | None = Field(
        default=None,
        description="the deadline the client saw (optional): refused with `conflict` when the "
        "open decision's deadline is another, so a late click never extends the next decision",
    )


class DeadlineOut(BaseModel):
    """The open decision's deadline moved (more time was given): every socket of the table gets
    it; the next `state` carries the same `deadline`."""

    type: Literal["deadline"] = "deadline"
    deadline: float
    server_time: float
    seat: int | None = Field(description="who asked for it (None: learnt from another process)")
    left: int | None = Field(description="how many more times that seat may ask in this game")


ServerMessage = HelloOut | TableMsg | StateOut | DeltaOut | AckOut | ErrorOut | PongOut


# --- matchmaking queue: the socket /ws/queue ------------------------------------------


class QueueBotsIn(BaseModel):
    """Accept bots for the empty seats (after the wait the player picked)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["bots"]
    kind: BotKind = Field(default="heuristic", description="which bots: heuristic (normal), hard")


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
    server_time: float = Field(default_factory=server_clock.time)


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


# --- table chat: see app.table.chat and docs/protocol.md, "Table chat" ------------------

CHAT_MAX_CHARS = 300
# Line breaks and tabs become spaces; other control characters and the bidirectional overrides
# (which could make a line read as someone else's) are dropped.
_CHAT_SPACES = {ord(c): " " for c in "\t\n\r\v\f\x85\u2028\u2029"}
_CHAT_DROPPED = (
    set(range(0x00, 0x20))
    | set(range(0x7F, 0xA0))
    | {0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
)
# Chat's own validation codes: sent as the `error` code instead of invalid_message.
CHAT_CODES = ("chat_empty", "chat_too_long")


def clean_chat_text(value: str) -> str:
    """A line as stored and shown: one line of printable text, trimmed; zero-width, tag and
    other invisible characters removed, and combining marks capped as in names."""
    value = value.translate(_CHAT_SPACES)
    value = "".join(c for c in value if ord(c) not in _CHAT_DROPPED)
    return names.tidy_chat(value).strip()


class ChatIn(BaseModel):
    """A chat line. The channel follows from who sends it (a seat: players; a spectator:
    spectators); a client may name it, and naming another one is refused."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["chat"]
    text: str = Field(strict=True, max_length=4 * CHAT_MAX_CHARS)
    channel: Literal["players", "spectators"] | None = None

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = clean_chat_text(value)
        if not value:
            raise PydanticCustomError("chat_empty", "a chat line holds 1 to 300 characters")
        if len(value) > CHAT_MAX_CHARS:
            raise PydanticCustomError("chat_too_long", "a chat line holds 300 characters at most")
        return value


class ChatShowIn(BaseModel):
    """A player shows (true) or hides (false) the spectators' channel on this socket."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["chat_show"]
    spectators: bool = Field(strict=True)


class SpectatorNameIn(BaseModel):
    """A spectator asks for a name; the server checks it as a player's name and answers a new
    `viewer` (its lines then carry "<name> (spectator)") or an `error`."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["spectator_name"]
    name: str = Field(strict=True, max_length=200)


chat_message = TypeAdapter(
    Annotated[ChatIn | ChatShowIn | SpectatorNameIn, Field(discriminator="type")]
)
CHAT_TYPES = ("chat", "chat_show", "spectator_name")


class ChatLine(BaseModel):
    id: int  # the feed's own version: 1, 2, 3... per table
    channel: Literal["players", "spectators", "notices"]
    seat: int | None  # the speaker's seat (notices: the seat it is about, if any)
    name: str | None  # the seat's stored name, a spectator's label; notices: the seat's name
    text: str | None  # chat lines: plain text, never markup
    kind: str | None  # notices: what happened (stand_in, back, joined, left...)
    data: dict[str, Any] | None  # notices: the kind's fields
    at: float  # when it was stored (Unix seconds)


class ChatOut(BaseModel):
    type: Literal["chat"] = "chat"
    line: ChatLine


class ChatLinesOut(BaseModel):
    """A batch: on connect (the lines after chat_since, or the last 100), or the spectators'
    lines a player missed when showing their channel. Merge by id."""

    type: Literal["chat_lines"] = "chat_lines"
    lines: list[ChatLine]
    # The last line number this socket has been considered for: live `chat` lines follow it.
    last: int


class ViewerOut(BaseModel):
    """To a spectator, before its first `chat_lines`: the label its lines carry, chosen by the
    server, and the key that keeps it: send it back as `viewer=<key>` when reconnecting."""

    type: Literal["viewer"] = "viewer"
    name: str
    viewer: str
