"""The analyses of finished games: which were asked for, at which budget, and each decision's
result as it is computed (one row per decision), so that an analysis a restart interrupted is
resumed where it stopped. The same on Postgres and SQLite."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update

from app.store.db import Database
from app.store.errors import mapped
from app.store.models import AnalysisDecisionRow, AnalysisRow, utcnow


@mapped
class SqlAnalyses:
    """Analyses (app.store.ports.AnalysisStore)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def request(self, game_id: str, worlds: int, total: int) -> bool:
        """Ask for the analysis of a finished game; False when it was asked for already."""
        async with self.db.write() as session:
            if await session.get(AnalysisRow, (game_id, worlds)) is not None:
                return False
            session.add(AnalysisRow(game_id=game_id, worlds=worlds, total=total))
            return True

    async def decisions(self, game_id: str, worlds: int) -> list[dict[str, Any]]:
        """The decisions analysed so far, in the game's order."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(AnalysisDecisionRow.data)
                .where(AnalysisDecisionRow.game_id == game_id, AnalysisDecisionRow.worlds == worlds)
                .order_by(AnalysisDecisionRow.idx)
            )
            return [dict(data) for (data,) in rows]

    async def add(self, game_id: str, worlds: int, decisions: list[dict[str, Any]]) -> None:
        """Store analysed decisions (each with its `index`); those stored already are kept as
        they are (the same game and budget give the same figures)."""
        async with self.db.write() as session:
            have = set(
                (
                    await session.execute(
                        select(AnalysisDecisionRow.idx).where(
                            AnalysisDecisionRow.game_id == game_id,
                            AnalysisDecisionRow.worlds == worlds,
                        )
                    )
                ).scalars()
            )
            session.add_all(
                AnalysisDecisionRow(game_id=game_id, worlds=worlds, idx=d["index"], data=d)
                for d in decisions
                if d["index"] not in have
            )

    async def finish(self, game_id: str, worlds: int) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(AnalysisRow)
                .where(AnalysisRow.game_id == game_id, AnalysisRow.worlds == worlds)
                .values(finished_at=utcnow())
            )

    async def unfinished(self, worlds: int) -> list[str]:
        """The games whose analysis at this budget was asked for and is not finished."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(AnalysisRow.game_id)
                .where(AnalysisRow.worlds == worlds, AnalysisRow.finished_at.is_(None))
                .order_by(AnalysisRow.requested_at)
            )
            return list(rows.scalars())
