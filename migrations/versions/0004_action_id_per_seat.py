"""An action_id belongs to the seat that sent it: the idempotency key is (game, seat, action_id).

Before, one id per game: a player could send the id a bot or the time limit was about to use and
turn that action into a "duplicate" of his own (issue: spoofed action ids).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_constraint("uq_actions_game_action_id", type_="unique")
        batch.create_unique_constraint(
            "uq_actions_game_seat_action_id", ["game_id", "seat", "action_id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_constraint("uq_actions_game_seat_action_id", type_="unique")
        batch.create_unique_constraint("uq_actions_game_action_id", ["game_id", "action_id"])
