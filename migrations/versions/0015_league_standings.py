"""A league's standings stored: each rated key's OpenSkill rating over the league's games and
each pair of players' head-to-head, folded in up to `leagues.folded_through` (the last recorded
game taken in), so that a league's page reads them instead of replaying its games; and the
league's games indexed in recording order (its last games, and those not folded in yet).

Leagues start at 0: their games recorded before are folded in at the first read of the league.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _league_id(table: str) -> sa.Column[str]:
    return sa.Column(
        "league_id",
        sa.String(32),
        sa.ForeignKey("leagues.id", ondelete="CASCADE", name=f"fk_{table}_league_id_leagues"),
        nullable=False,
    )


def upgrade() -> None:
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(
            sa.Column("folded_through", BIG_ID, nullable=False, server_default=sa.text("0"))
        )
    op.create_table(
        "league_ratings",
        _league_id("league_ratings"),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("league_id", "key", name="pk_league_ratings"),
    )
    # a < b: a pair is stored once.
    op.create_table(
        "league_pairs",
        _league_id("league_pairs"),
        sa.Column("a", sa.String(32), nullable=False),
        sa.Column("b", sa.String(32), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("a_ahead", sa.Integer(), nullable=False),
        sa.Column("b_ahead", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("league_id", "a", "b", name="pk_league_pairs"),
    )
    op.drop_index("ix_game_results_league_id", table_name="game_results")
    op.create_index("ix_game_results_league_result", "game_results", ["league_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_game_results_league_result", table_name="game_results")
    op.create_index("ix_game_results_league_id", "game_results", ["league_id"])
    op.drop_table("league_pairs")
    op.drop_table("league_ratings")
    with op.batch_alter_table("leagues") as batch:
        batch.drop_column("folded_through")
