"""Friends' leagues as stored (app.store.player_ports.LeagueStore): a league and its invite code,
its members, the tables made for it, and its recorded games. The same SQL on both databases."""

from __future__ import annotations

from sqlalchemy import select, update

from app.store.db import Database
from app.store.errors import mapped
from app.store.history import results_with_placements
from app.store.models import TableRow, as_utc, utcnow
from app.store.player_ports import LeagueRec, PlayerRec, Result
from app.store.player_rows import GameResultRow, LeagueMemberRow, LeagueRow, PlayerRow


def _rec(row: LeagueRow) -> LeagueRec:
    return LeagueRec(id=row.id, name=row.name, invite=row.invite, created_by=row.created_by)


@mapped
class SqlLeagues:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(self, league: LeagueRec) -> None:
        now = utcnow()
        async with self.db.write() as session:
            session.add(
                LeagueRow(
                    id=league.id, name=league.name, invite=league.invite,
                    created_by=league.created_by, created_at=now,
                )
            )  # fmt: skip
            await session.flush()
            session.add(
                LeagueMemberRow(league_id=league.id, player_id=league.created_by, joined_at=now)
            )

    async def league(self, league_id: str) -> LeagueRec | None:
        async with self.db.sessions() as session:
            row = await session.get(LeagueRow, league_id)
        return _rec(row) if row is not None else None

    async def by_invite(self, invite: str) -> LeagueRec | None:
        async with self.db.sessions() as session:
            row = await session.scalar(select(LeagueRow).where(LeagueRow.invite == invite))
        return _rec(row) if row is not None else None

    async def join(self, league_id: str, player_id: str) -> bool:
        async with self.db.write() as session:
            if await session.get(LeagueMemberRow, (league_id, player_id)) is not None:
                return False
            session.add(
                LeagueMemberRow(league_id=league_id, player_id=player_id, joined_at=utcnow())
            )
        return True

    async def members(self, league_id: str) -> list[PlayerRec]:
        async with self.db.sessions() as session:
            rows = await session.scalars(
                select(PlayerRow)
                .join(LeagueMemberRow, LeagueMemberRow.player_id == PlayerRow.id)
                .where(LeagueMemberRow.league_id == league_id)
                .order_by(LeagueMemberRow.joined_at, PlayerRow.id)
            )
            return [PlayerRec(r.id, r.name, as_utc(r.created_at)) for r in rows]

    async def leagues_of(self, player_id: str) -> list[LeagueRec]:
        async with self.db.sessions() as session:
            rows = await session.scalars(
                select(LeagueRow)
                .join(LeagueMemberRow, LeagueMemberRow.league_id == LeagueRow.id)
                .where(LeagueMemberRow.player_id == player_id)
                .order_by(LeagueRow.created_at)
                .limit(100)
            )
            return [_rec(r) for r in rows]

    async def set_table_league(self, table_id: str, league_id: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(TableRow).where(TableRow.id == table_id).values(league_id=league_id)
            )

    async def results(self, league_id: str, limit: int) -> list[Result]:
        async with self.db.sessions() as session:
            rows = list(
                await session.scalars(
                    select(GameResultRow)
                    .where(GameResultRow.league_id == league_id)
                    .order_by(GameResultRow.id.desc())
                    .limit(limit)
                )
            )
            return await results_with_placements(session, rows[::-1])
