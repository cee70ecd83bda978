"""Players who come back: a player (a random id and a name), the hashes of their secrets (one per
signed-in browser) and of their one-time sign-in links; seats linked to the player who took them;
finished games recorded per seat with placements; each rated player's OpenSkill rating; and
friends' leagues (members, tables made for a league, the league of each recorded game).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _stamp(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        _stamp("created_at"),
        _stamp("seen_at"),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
    )
    # One row per signed-in browser: the sha256 of the cookie's secret, never the secret.
    op.create_table(
        "player_secrets",
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column(
            "player_id",
            sa.String(32),
            sa.ForeignKey(
                "players.id", ondelete="CASCADE", name="fk_player_secrets_player_id_players"
            ),
            nullable=False,
        ),
        _stamp("created_at"),
        _stamp("used_at"),
        sa.PrimaryKeyConstraint("hash", name="pk_player_secrets"),
    )
    op.create_index("ix_player_secrets_player_id", "player_secrets", ["player_id"])
    # One-time sign-in links: the sha256 of the link's code, its expiry, when it was used.
    op.create_table(
        "player_claims",
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column(
            "player_id",
            sa.String(32),
            sa.ForeignKey(
                "players.id", ondelete="CASCADE", name="fk_player_claims_player_id_players"
            ),
            nullable=False,
        ),
        _stamp("created_at"),
        _stamp("expires_at"),
        _stamp("used_at", nullable=True),
        sa.PrimaryKeyConstraint("hash", name="pk_player_claims"),
    )
    op.create_index("ix_player_claims_player_id", "player_claims", ["player_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_id", sa.String(32), nullable=True))
    op.create_index("ix_seats_player_id", "seats", ["player_id"])
    # A finished game as recorded for history and ratings; `id` is the order ratings were
    # updated in, which `dragonstones ratings rebuild` follows.
    op.create_table(
        "game_results",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        _stamp("finished_at"),
        sa.PrimaryKeyConstraint("id", name="pk_game_results"),
        sa.UniqueConstraint("game_id", name="uq_game_results_game_id"),
    )
    op.create_table(
        "game_placements",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "result_id",
            BIG_ID,
            sa.ForeignKey(
                "game_results.id",
                ondelete="CASCADE",
                name="fk_game_placements_result_id_game_results",
            ),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=True),
        # Whose rating the seat moves: a player's id, "bot:<kind>", or null (a guest).
        sa.Column("rating_key", sa.String(40), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bot_kind", sa.String(32), nullable=True),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_game_placements"),
        sa.UniqueConstraint("result_id", "seat", name="uq_game_placements_result_seat"),
    )
    # "My games", newest first: a player's placements in recording order.
    op.create_index(
        "ix_game_placements_player_result", "game_placements", ["player_id", "result_id"]
    )
    op.create_table(
        "ratings",
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        _stamp("updated_at"),
        sa.PrimaryKeyConstraint("key", name="pk_ratings"),
    )

    _leagues()


def _leagues() -> None:
    op.create_table(
        "leagues",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        # The invite link's code: whoever has the link may join, like a private table's link.
        sa.Column("invite", sa.String(32), nullable=False),
        sa.Column("created_by", sa.String(32), nullable=False),
        _stamp("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_leagues"),
        sa.UniqueConstraint("invite", name="uq_leagues_invite"),
    )
    op.create_table(
        "league_members",
        sa.Column(
            "league_id",
            sa.String(32),
            sa.ForeignKey(
                "leagues.id", ondelete="CASCADE", name="fk_league_members_league_id_leagues"
            ),
            nullable=False,
        ),
        sa.Column("player_id", sa.String(32), nullable=False),
        _stamp("joined_at"),
        sa.PrimaryKeyConstraint("league_id", "player_id", name="pk_league_members"),
    )
    op.create_index("ix_league_members_player_id", "league_members", ["player_id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("league_id", sa.String(32), nullable=True))
    with op.batch_alter_table("game_results") as batch:
        batch.add_column(sa.Column("league_id", sa.String(32), nullable=True))
    op.create_index("ix_game_results_league_id", "game_results", ["league_id"])


def downgrade() -> None:
    op.drop_index("ix_game_results_league_id", table_name="game_results")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("league_id")
    op.drop_index("ix_league_members_player_id", table_name="league_members")
    op.drop_table("league_members")
    op.drop_table("leagues")
    op.drop_table("ratings")
    op.drop_index("ix_game_placements_player_result", table_name="game_placements")
    op.drop_table("game_placements")
    op.drop_table("game_results")
    op.drop_index("ix_seats_player_id", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("player_id")
    op.drop_index("ix_player_claims_player_id", table_name="player_claims")
    op.drop_table("player_claims")
    op.drop_index("ix_player_secrets_player_id", table_name="player_secrets")
    op.drop_table("player_secrets")
    op.drop_table("players")
