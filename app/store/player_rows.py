"""The rows of players (SQLAlchemy 2, on the same metadata as app.store.models): a player, the
hashes of their browsers' secrets and of their one-time sign-in links, finished games recorded per
seat, and ratings. Schema changes go through migrations/ (0012, 0015)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.store.models import Base, BigId, utcnow


class PlayerRow(Base):
    """A person who comes back: a random id and the name they chose (null until chosen)."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerSecretRow(Base):
    """One signed-in browser: the sha256 of its cookie's secret (the secret is never stored)."""

    __tablename__ = "player_secrets"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerClaimRow(Base):
    """A one-time sign-in link: the sha256 of its code, its expiry, when it was used."""

    __tablename__ = "player_claims"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class GameResultRow(Base):
    """A finished game as recorded for history and ratings. `id` is the order in which ratings
    were updated, which a rebuild follows."""

    __tablename__ = "game_results"
    # A league's games in recording order: its last ones, and those not folded in yet.
    __table_args__ = (Index("ix_game_results_league_result", "league_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(32), unique=True)
    table_id: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    # It moved ratings: it ended normally and at least two of its seats were people.
    rated: Mapped[bool] = mapped_column(Boolean)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The league its table was made for: it counts in that league's standings.
    league_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class PlacementRow(Base):
    """One seat of a recorded game: who sat there, their score and place."""

    __tablename__ = "game_placements"
    __table_args__ = (
        UniqueConstraint("result_id", "seat", name="uq_game_placements_result_seat"),
        Index("ix_game_placements_player_result", "player_id", "result_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    result_id: Mapped[int] = mapped_column(BigId, ForeignKey("game_results.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rating_key: Mapped[str | None] = mapped_column(String(40), nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    bot_kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    left: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)


class RatingRow(Base):
    """A rated player's OpenSkill rating: a player's id, or "bot:<kind>" for a bot level."""

    __tablename__ = "ratings"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LeagueRow(Base):
    """A friends' league: a name and an invite link's code."""

    __tablename__ = "leagues"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    invite: Mapped[str] = mapped_column(String(32), unique=True)
    created_by: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The last recorded game (game_results.id) folded into its stored standings.
    folded_through: Mapped[int] = mapped_column(BigId, default=0, server_default=text("0"))


class LeagueMemberRow(Base):
    __tablename__ = "league_members"

    league_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("leagues.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(32), primary_key=True, index=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def _league_fk() -> Mapped[str]:
    return mapped_column(String(32), ForeignKey("leagues.id", ondelete="CASCADE"), primary_key=True)


class LeagueRatingRow(Base):
    """A rated key's OpenSkill rating over one league's games (folded in up to the league's
    `folded_through`)."""

    __tablename__ = "league_ratings"

    league_id: Mapped[str] = _league_fk()
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)


class LeaguePairRow(Base):
    """Two players' games together in one league and how often each finished ahead (a < b)."""

    __tablename__ = "league_pairs"

    league_id: Mapped[str] = _league_fk()
    a: Mapped[str] = mapped_column(String(32), primary_key=True)
    b: Mapped[str] = mapped_column(String(32), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    a_ahead: Mapped[int] = mapped_column(Integer)
    b_ahead: Mapped[int] = mapped_column(Integer)
