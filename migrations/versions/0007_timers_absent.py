"""Time limits on every decision, stored deadlines, bots standing in for absent players.

tables.choose_seconds: the limit of power decisions (null: none); tables.grace_seconds: how long
a seat's player may be away before another seated person may hand the seat to a bot (null: the
default, 120 s, or 30 s at a timed table). games.deadline_at/deadline_key: the open prompt's
deadline and which prompt it belongs to, written with the action that opened it. seats.stand_in:
a bot plays for this person's seat (seats.bot_kind/bot_seed name that bot).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("choose_seconds", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("grace_seconds", sa.Integer(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("deadline_key", sa.String(64), nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(
            sa.Column("stand_in", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("stand_in")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deadline_key")
        batch.drop_column("deadline_at")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("grace_seconds")
        batch.drop_column("choose_seconds")
