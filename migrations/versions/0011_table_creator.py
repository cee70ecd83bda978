"""Who opened a table: tables.creator_address, the client address of `POST
/api/tables`, so that the open tables nobody sits at count against the address that made them
(MAX_EMPTY_TABLES_PER_ADDRESS). Null for tables opened with a player already seated (quick play,
the queue, play again) and for tables from before.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-15
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("creator_address", sa.String(64), nullable=True))
    op.create_index("ix_tables_creator_address", "tables", ["creator_address"])


def downgrade() -> None:
    op.drop_index("ix_tables_creator_address", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("creator_address")
