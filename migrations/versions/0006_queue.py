"""The matchmaking queue (issue: playing with real people): one row per ticket.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "queue_entries",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=True),
        sa.Column("bots_after", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("left_reason", sa.String(16), nullable=True),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("heartbeat_at", Stamp, nullable=False),
        sa.Column("closed_at", Stamp, nullable=True),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("seat_token", sa.String(64), nullable=True),
        sa.Column("bots", sa.Integer(), nullable=False),
        sa.Column("ended_at", Stamp, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_queue_entries"),
        sa.UniqueConstraint("token_hash", name="uq_queue_entries_token_hash"),
    )
    op.create_index("ix_queue_entries_address", "queue_entries", ["address"])
    # The matching pass reads the waiting entries in queue order.
    op.create_index("ix_queue_entries_status_created", "queue_entries", ["status", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_queue_entries_status_created", table_name="queue_entries")
    op.drop_index("ix_queue_entries_address", table_name="queue_entries")
    op.drop_table("queue_entries")
