"""Hosts, presence and rematch (issue: playing with real people). Owned by the lobby work.

Seats record presence (away_since, seen_at) so that every server process agrees on who is online;
a finished table links the table its players opened to play again (rematch_id). The host needs no
column: it is the earliest seated person.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rematch_id", sa.String(length=32), nullable=True))
    # People seated before presence was stored: away since they joined.
    seats = sa.table(
        "seats",
        sa.column("away_since", sa.DateTime(timezone=True)),
        sa.column("joined_at", sa.DateTime(timezone=True)),
        sa.column("bot", sa.Boolean()),
    )
    op.execute(seats.update().where(seats.c.bot == sa.false()).values(away_since=seats.c.joined_at))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch_id")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("seen_at")
        batch.drop_column("away_since")
