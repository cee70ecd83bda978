"""Games store actions, not the whole state: games.snapshot_version.

`games.state` is now a snapshot, written at the start, every SNAPSHOT_EVERY versions and at the
end; `games.snapshot_version` says which version it holds, and loading replays the actions after
it. Rows written before hold the state of their `version`, which the upgrade copies.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
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
    # An older server reads `state` as the state of `version`: bring it there first. The
    # engine replays the log from the snapshot (it is deterministic).
    import engine

    bind = op.get_bind()
    games = bind.execute(
        sa.text(
            "SELECT id, state, snapshot_version FROM games "
            "WHERE snapshot_version IS NOT NULL AND snapshot_version < version"
        )
    ).all()
    for game_id, state_text, snapshot in games:
        state = engine.loads(state_text)
        actions = bind.execute(
            sa.text(
                "SELECT seat, action FROM actions WHERE game_id = :g AND version > :v "
                "ORDER BY version"
            ),
            {"g": game_id, "v": snapshot},
        ).all()
        for seat, action in actions:
            data = action if isinstance(action, dict) else json.loads(action)
            state, _events = engine.apply(state, seat, data)
        bind.execute(
            sa.text("UPDATE games SET state = :s WHERE id = :g"),
            {"s": engine.dumps(state), "g": game_id},
        )
    with op.batch_alter_table("games") as batch:
        batch.drop_column("snapshot_version")
