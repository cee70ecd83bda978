"""Games store actions, not the whole state: games.snapshot_version.

`games.state` is now a snapshot, written at the start, every SNAPSHOT_EVERY versions and at the
end; `games.snapshot_version` says which version it holds, and loading replays the actions after
it. Rows written before hold the state of their `version`, which the upgrade copies.

Like every migration, this one imports neither `engine` nor `app` (tests/design checks it): a
migration is run by whatever code is installed later, and an old database's migration must do
the same thing then as on the day it was written. So the downgrade does not replay actions (only
the engine could): a game whose snapshot is behind its version (a game being played; a finished
game's last snapshot is its end) goes back to that snapshot, its later actions deleted and its
stored deadline cleared (the prompt it timed is no longer open). Those are at most
SNAPSHOT_EVERY - 1 moves of each game being played; the downgrade says how many. Its players
reconnect and see the game at that version.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("snapshot_version", sa.Integer(), nullable=True))
    op.execute("UPDATE games SET snapshot_version = version")


def downgrade() -> None:
    # An older server reads `state` as the state of `version`: bring `version` back to the
    # snapshot's where they differ (see the docstring: replaying would need the engine).
    bind = op.get_bind()
    behind = "snapshot_version IS NOT NULL AND snapshot_version < version"
    games, moves = bind.execute(
        sa.text(
            f"SELECT COUNT(*), COALESCE(SUM(version - snapshot_version), 0) FROM games WHERE {behind}"
        )
    ).one()
    if games:
        # On standard error: `dragonstones db downgrade` configures no logging.
        print(
            f"0009 downgrade: {games} game(s) being played go back to their last snapshot "
            f"({moves} move(s) undone in all)",
            file=sys.stderr,
        )
        bind.execute(
            sa.text(
                "DELETE FROM actions WHERE EXISTS (SELECT 1 FROM games WHERE games.id = "
                "actions.game_id AND games.snapshot_version IS NOT NULL "
                "AND actions.version > games.snapshot_version)"
            )
        )
        bind.execute(
            sa.text(
                "UPDATE games SET version = snapshot_version, deadline_at = NULL, "
                f"deadline_key = NULL WHERE {behind}"
            )
        )
    with op.batch_alter_table("games") as batch:
        batch.drop_column("snapshot_version")
