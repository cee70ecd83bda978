"""Database models (SQLAlchemy 2). Schema changes go through migrations/, never create_all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.store.records import as_utc as as_utc
from app.store.records import utcnow as utcnow

# Stable constraint names so that migrations can drop and alter them on every backend.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only autoincrements INTEGER PRIMARY KEY; Postgres gets a 64-bit key.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class TableRow(Base):
    """A table in the lobby: seats to fill, then one game."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seats: Mapped[int] = mapped_column(Integer)
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    # open (filling seats) -> playing -> over
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    # Seconds to submit a sealed bid or tie-break; null: no limit (R13).
    turn_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # -- timers and absent players --
    # Seconds for a power decision (a `choose` prompt); null: no limit.
    choose_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Seconds a seat's player may be away before a bot may stand in; null: the default
    # (app.store.presence.grace_seconds).
    grace_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The bot kind that stands in for absent people; null: DEFAULT_BOT_KIND.
    stand_in_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
    # -- hosts, presence and rematch --
    # The table opened by "play again" at the end of this one's game (same settings).
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # The client address that opened it with POST /api/tables (null: opened with a player seated,
    # by quick play, the queue or play again): its open tables nobody sits at count against it.
    creator_address: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # The friends' league the table was made for (app.store.league_rows): its game counts there.
    league_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class SeatRow(Base):
    """A taken seat: a person (holding a token, stored hashed) or a bot."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat", name="uq_seats_table_seat"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), index=True
    )
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    # sha256 of the seat token; the token itself is never stored. Null for bots.
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Decimal text: a 64-bit unsigned seed does not fit a signed BIGINT.
    bot_seed: Mapped[str | None] = mapped_column(String(24), nullable=True)
    # A bot (bot_kind, bot_seed) plays for this person's absent seat until they come back.
    stand_in: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # -- presence: stored so that every server process agrees --
    # When this person's last socket closed (or they joined without one yet); null while a
    # socket of this seat is connected somewhere, and for bots.
    away_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Refreshed on connect and by the heartbeat of the process holding a socket of this seat:
    # a crashed process's seats count as away once it is older than a few heartbeats.
    seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The player (app.store.player_rows) signed in where this seat was taken; null: a guest or
    # a bot. Their other browsers get the seat back through it.
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)


class GameRow(Base):
    """The one game of a table: the latest snapshot, its version and the secret seed."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), unique=True
    )
    players: Mapped[int] = mapped_column(Integer)
    # Secret until the game is over; the commitment is public from the start.
    seed: Mapped[str] = mapped_column(String(24))
    seed_commitment: Mapped[str] = mapped_column(String(128))
    # engine.dumps() of the game at `snapshot_version`: written at the start, every
    # SNAPSHOT_EVERY versions and at the end, not with every action (the actions after it
    # replay to the current version; app.store.games).
    state: Mapped[str] = mapped_column(Text)
    # The version `state` holds; null (rows written before snapshots): `version`.
    snapshot_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # engine.start's events (turn 1 announced, the Witch up): the events of version 0, raw like
    # ActionRow.events. Null for games started before they were kept.
    opening_events: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    # playing -> over
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
    # Indexed: the history's pass reads the games that ended since its last one (app.lobby.history).
    finished_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )
    # The open prompt's deadline at a timed table, written with the action that opened it, and
    # the prompt it belongs to (app.table.clock.prompt_key); null: nothing is timed.
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    deadline_key: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ActionRow(Base):
    """Append-only log: the action that produced `version`, from which the game replays."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("game_id", "version", name="uq_actions_game_version"),
        # An action_id is the sending seat's: the same id from two seats is two actions.
        UniqueConstraint("game_id", "seat", "action_id", name="uq_actions_game_seat_action_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    action_id: Mapped[str] = mapped_column(String(64))
    # The engine's raw events, private ones included: they let a reconnecting client catch up
    # and only ever leave the server through engine.visible_events.
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# --- matchmaking queue ---------------------------------------------------------------


class QueueEntryRow(Base):
    """A player waiting in the matchmaking queue (a ticket): waiting -> matched | left.

    The ticket's token is stored hashed, like a seat token. Once matched, the seat's token is
    kept here (readable with the ticket's token only) until the entry is purged, a few minutes
    later: a player whose socket was gone at the match must still get the seat."""

    __tablename__ = "queue_entries"
    # The matching pass reads the waiting entries in queue order.
    __table_args__ = (Index("ix_queue_entries_status_created", "status", "created_at"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    # The table size wanted: 3..6, or null for any.
    size: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Seconds after joining from which the player may accept bots for the empty seats.
    bots_after: Mapped[int] = mapped_column(Integer)
    # The client address, for the per-address limit on waiting entries.
    address: Mapped[str] = mapped_column(String(64), index=True)
    # waiting -> matched (seated) | left (left, or expired: its socket did not come back)
    status: Mapped[str] = mapped_column(String(16), default="waiting")
    left_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Refreshed while a queue socket of this ticket is open (in any process): an entry not
    # refreshed within the grace is never matched and expires (a crashed process's too).
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # When its last socket closed (null while one is open): not matched meanwhile; it leaves
    # after the grace unless a socket comes back (a page reload).
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Once matched: the table, the seat and the seat's token (until the entry is purged).
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seat_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bots: Mapped[int] = mapped_column(Integer, default=0)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


# --- table chat ----------------------------------------------------------------------


class TableMessageRow(Base):
    """One line of a table's feed: a player's or a spectator's chat line, or a server notice.
    `seq` is the feed's own version (1, 2, 3... per table), separate from the game's."""

    __tablename__ = "table_messages"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_table_messages_table_seq"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    # players | spectators | notices
    channel: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)  # chat lines
    kind: Mapped[str | None] = mapped_column(String(32), nullable=True)  # notices
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # notices
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# --- the analysis of finished games ------------------------------------------------------------


class AnalysisRow(Base):
    """A finished game's analysis asked for, at a budget (`worlds` per decision): `total`
    decisions to analyse; `finished_at` once every one is stored. Unfinished rows are resumed
    when a server starts."""

    __tablename__ = "analyses"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    worlds: Mapped[int] = mapped_column(Integer, primary_key=True)
    total: Mapped[int] = mapped_column(Integer)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AnalysisDecisionRow(Base):
    """One decision's analysis (engine.analysis.Decision as JSON), the `idx`-th action of the
    game. The same game and budget always give the same row: a second writer's is a duplicate."""

    __tablename__ = "analysis_decisions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "worlds"],
            ["analyses.game_id", "analyses.worlds"],
            ondelete="CASCADE",
        ),
    )

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    worlds: Mapped[int] = mapped_column(Integer, primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
