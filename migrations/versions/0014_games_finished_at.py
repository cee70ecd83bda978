"""An index on games.finished_at: the history's pass (app.lobby.history) reads the games that
ended since shortly before its previous pass, not every finished game, every few seconds.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_games_finished_at", "games", ["finished_at"])


def downgrade() -> None:
    op.drop_index("ix_games_finished_at", table_name="games")
