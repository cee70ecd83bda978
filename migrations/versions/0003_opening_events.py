"""Games keep the engine's opening events (turn 1 announced, the Witch up): the events of version 0.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable: games started before this revision have none stored; the server derives them
    # from the game's seed (engine.start is deterministic).
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("opening_events", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("opening_events")
