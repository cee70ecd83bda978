"""Initial schema: tables (lobby), seats, games and the append-only action log.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("updated_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
    )
    op.create_index("ix_tables_status", "tables", ["status"])

    op.create_table(
        "seats",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("bot_kind", sa.String(32), nullable=True),
        sa.Column("bot_seed", sa.String(24), nullable=True),
        sa.Column("joined_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_seats"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_seats_table_id_tables", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("table_id", "seat", name="uq_seats_table_seat"),
        sa.UniqueConstraint("token_hash", name="uq_seats_token_hash"),
    )
    op.create_index("ix_seats_table_id", "seats", ["table_id"])

    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(24), nullable=False),
        sa.Column("seed_commitment", sa.String(128), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("updated_at", Stamp, nullable=False),
        sa.Column("finished_at", Stamp, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_games_table_id_tables", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("table_id", name="uq_games_table_id"),
    )
    op.create_index("ix_games_status", "games", ["status"])

    op.create_table(
        "actions",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("action_id", sa.String(64), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_actions"),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_actions_game_id_games", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("game_id", "version", name="uq_actions_game_version"),
        sa.UniqueConstraint("game_id", "action_id", name="uq_actions_game_action_id"),
    )
    op.create_index("ix_actions_game_id", "actions", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_actions_game_id", table_name="actions")
    op.drop_table("actions")
    op.drop_index("ix_games_status", table_name="games")
    op.drop_table("games")
    op.drop_index("ix_seats_table_id", table_name="seats")
    op.drop_table("seats")
    op.drop_index("ix_tables_status", table_name="tables")
    op.drop_table("tables")
