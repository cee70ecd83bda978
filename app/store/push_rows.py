"""The rows of Web Push (SQLAlchemy 2, on the same metadata as app.store.models): the server's
VAPID key pair, each player's push subscriptions, and when a player was last pushed about a
table. Schema changes go through migrations/ (0016)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.store.models import Base, utcnow


class PushKeyRow(Base):
    """The server's VAPID key pair (one row, id 1), base64url."""

    __tablename__ = "push_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    private_key: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PushSubscriptionRow(Base):
    """One browser's subscription: where its push service takes pushes, and its keys."""

    __tablename__ = "push_subscriptions"

    endpoint_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    endpoint: Mapped[str] = mapped_column(String(1024))
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    # The sha256 of the subscribing browser's secret: signing that browser out ends its pushes.
    secret_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PushSentRow(Base):
    """When a player was last pushed about a table: at most one push per table per player per
    PUSH_EVERY_MINUTES, whichever process sends it."""

    __tablename__ = "push_sent"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
