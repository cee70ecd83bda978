"""The analysis of finished games: `analyses` (one per game and budget asked for, finished or
not: unfinished ones are resumed at start) and `analysis_decisions` (one row per decision).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("worlds", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_analyses_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "worlds", name=op.f("pk_analyses")),
    )
    op.create_table(
        "analysis_decisions",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("worlds", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "worlds"],
            ["analyses.game_id", "analyses.worlds"],
            name=op.f("fk_analysis_decisions_game_id_analyses"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "worlds", "idx", name=op.f("pk_analysis_decisions")),
    )


def downgrade() -> None:
    op.drop_table("analysis_decisions")
    op.drop_table("analyses")
