"""Table chat, stored with the table: one row per line of a table's feed (players' and
spectators' lines, the server's notices), numbered per table.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_messages",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey(
                "tables.id",
                ondelete="CASCADE",
                name="fk_table_messages_table_id_tables",
            ),
            nullable=False,
        ),
        # The feed's own version: 1, 2, 3... per table, separate from the game's version.
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("kind", sa.String(32), nullable=True),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_table_messages"),
        # Also the index of "lines of this table after seq n".
        sa.UniqueConstraint("table_id", "seq", name="uq_table_messages_table_seq"),
    )


def downgrade() -> None:
    op.drop_table("table_messages")
