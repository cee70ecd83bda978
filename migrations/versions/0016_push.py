"""Web Push: the server's VAPID key pair (one row, made at first start unless a setting gives
one), each player's push subscriptions (one per browser: the push service's endpoint and the
browser's keys), and when a player was last pushed about a table (the rate limit, shared by every
process).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _stamp(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "push_keys",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        # base64url: the raw 32-byte private key, and the public key as an uncompressed point.
        sa.Column("private_key", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(100), nullable=False),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_push_keys"),
    )
    # Keyed by the sha256 of the endpoint: an endpoint is long, and one browser's belongs to
    # whoever subscribed with it last.
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint_hash", sa.String(64), nullable=False),
        sa.Column(
            "player_id",
            sa.String(32),
            sa.ForeignKey(
                "players.id", ondelete="CASCADE", name="fk_push_subscriptions_player_id_players"
            ),
            nullable=False,
        ),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        # The sha256 of the secret of the browser that subscribed: signing it out ends its pushes.
        sa.Column("secret_hash", sa.String(64), nullable=True),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("endpoint_hash", name="pk_push_subscriptions"),
    )
    op.create_index("ix_push_subscriptions_player_id", "push_subscriptions", ["player_id"])
    op.create_index("ix_push_subscriptions_secret_hash", "push_subscriptions", ["secret_hash"])
    op.create_table(
        "push_sent",
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        _stamp("sent_at"),
        sa.PrimaryKeyConstraint("player_id", "table_id", name="pk_push_sent"),
    )


def downgrade() -> None:
    op.drop_table("push_sent")
    op.drop_index("ix_push_subscriptions_secret_hash", table_name="push_subscriptions")
    op.drop_index("ix_push_subscriptions_player_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("push_keys")
