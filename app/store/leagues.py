"""Friends' leagues as stored (app.store.player_ports.LeagueStore): a league and its invite code,
its members, the tables made for it, its recorded games, and its standings (ratings and pairs)
folded in up to a recorded game. The same SQL on both databases: a fold is written only if the
league's `folded_through` is still what the reader saw (one guarded UPDATE, which also makes a
second reader folding at once wait for the first and then write nothing)."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.db import Database
from app.store.errors import mapped
from app.store.history import results_with_placements
from app.store.models import TableRow, as_utc, utcnow
from app.store.player_ports import (
    LeagueRec,
    LeagueView,
    PairRec,
    PlayerRec,
    RatingRec,
    Result,
    Standing,
)
from app.store.player_rows import (
    GameResultRow,
    LeagueMemberRow,
    LeaguePairRow,
    LeagueRatingRow,
    LeagueRow,
    PlayerRow,
)
from app.store.reads import reading
from app.store.tables import one_row


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
        async with reading(self.db) as session:
            row = await session.get(LeagueRow, league_id)
        return _rec(row) if row is not None else None

    async def by_invite(self, invite: str) -> LeagueRec | None:
        async with reading(self.db) as session:
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
        async with reading(self.db) as session:
            return await _members(session, league_id)

    async def leagues_of(self, player_id: str) -> list[LeagueRec]:
        async with reading(self.db) as session:
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

    async def results_after(self, league_id: str, after: int, limit: int) -> list[Result]:
        async with reading(self.db) as session:
            rows = list(
                await session.scalars(
                    select(GameResultRow)
                    .where(GameResultRow.league_id == league_id, GameResultRow.id > after)
                    .order_by(GameResultRow.id)
                    .limit(limit)
                )
            )
            return await results_with_placements(session, rows)

    async def view(self, league_id: str, last: int) -> LeagueView | None:
        # One session for the page: each costs a transaction's round trips and its set-up.
        async with reading(self.db) as session:
            row = await session.get(LeagueRow, league_id)
            if row is None:
                return None
            return LeagueView(
                league=_rec(row),
                members=await _members(session, league_id),
                standing=await _standing(session, league_id, row.folded_through),
                last=await _last(session, league_id, last),
            )

    async def standing(self, league_id: str) -> Standing:
        async with reading(self.db) as session:
            folded = await session.scalar(
                select(LeagueRow.folded_through).where(LeagueRow.id == league_id)
            )
            return await _standing(session, league_id, folded or 0)

    async def fold(self, was: Standing, now: Standing) -> bool:
        async with self.db.write() as session:
            moved = await session.execute(
                update(LeagueRow)
                .where(
                    LeagueRow.id == was.league_id, LeagueRow.folded_through == was.folded_through
                )
                .values(folded_through=now.folded_through)
            )
            if not one_row(moved):
                return False
            await _write(session, now)
        return True

    async def replace_standing(self, standing: Standing) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(LeagueRow)
                .where(LeagueRow.id == standing.league_id)
                .values(folded_through=standing.folded_through)
            )
            for row in (LeagueRatingRow, LeaguePairRow):
                await session.execute(delete(row).where(row.league_id == standing.league_id))
            await _write(session, standing, fresh=True)


# The reads of a league's page, built once (building a statement cost more than answering it).
_MEMBERS = (
    select(PlayerRow)
    .join(LeagueMemberRow, LeagueMemberRow.player_id == PlayerRow.id)
    .where(LeagueMemberRow.league_id == bindparam("league"))
    .order_by(LeagueMemberRow.joined_at, PlayerRow.id)
)
_LAST = (
    select(GameResultRow)
    .where(GameResultRow.league_id == bindparam("league"))
    .order_by(GameResultRow.id.desc())
    .limit(bindparam("limit"))
)
_RATED = select(LeagueRatingRow).where(LeagueRatingRow.league_id == bindparam("league"))
_PAIRED = select(LeaguePairRow).where(LeaguePairRow.league_id == bindparam("league"))


async def _members(session: AsyncSession, league_id: str) -> list[PlayerRec]:
    rows = await session.scalars(_MEMBERS, {"league": league_id})
    return [PlayerRec(r.id, r.name, as_utc(r.created_at)) for r in rows]


async def _last(session: AsyncSession, league_id: str, limit: int) -> list[Result]:
    """The league's last `limit` games, in recording order."""
    rows = list(await session.scalars(_LAST, {"league": league_id, "limit": limit}))
    return await results_with_placements(session, rows[::-1])


async def _standing(session: AsyncSession, league_id: str, folded: int) -> Standing:
    rated = await session.scalars(_RATED, {"league": league_id})
    ratings = {
        r.key: RatingRec(key=r.key, mu=r.mu, sigma=r.sigma, games=r.games, wins=r.wins)
        for r in rated
    }
    paired = await session.scalars(
        select(LeaguePairRow).where(LeaguePairRow.league_id == league_id)
    )
    pairs = {(p.a, p.b): PairRec(p.a, p.b, p.games, p.a_ahead, p.b_ahead) for p in paired}
    return Standing(league_id, folded, ratings, pairs)


async def _write(session: AsyncSession, standing: Standing, fresh: bool = False) -> None:
    """These ratings and pairs of the league, updated or added (`fresh`: none is stored)."""
    league = standing.league_id
    if fresh:
        session.add_all(
            LeagueRatingRow(
                league_id=league, key=k, mu=r.mu, sigma=r.sigma, games=r.games, wins=r.wins
            )
            for k, r in standing.ratings.items()
        )
        session.add_all(
            LeaguePairRow(
                league_id=league, a=p.a, b=p.b, games=p.games, a_ahead=p.a_ahead, b_ahead=p.b_ahead
            )
            for p in standing.pairs.values()
        )
        return
    if standing.ratings:
        keys = list(standing.ratings)
        rated = {
            r.key: r
            for r in await session.scalars(
                select(LeagueRatingRow).where(
                    LeagueRatingRow.league_id == league, LeagueRatingRow.key.in_(keys)
                )
            )
        }
        for key, new in standing.ratings.items():
            row = rated.get(key)
            if row is None:
                row = LeagueRatingRow(league_id=league, key=key)
                session.add(row)
            row.mu, row.sigma, row.games, row.wins = new.mu, new.sigma, new.games, new.wins
    if standing.pairs:
        paired = {
            (p.a, p.b): p
            for p in await session.scalars(
                select(LeaguePairRow).where(
                    LeaguePairRow.league_id == league,
                    tuple_(LeaguePairRow.a, LeaguePairRow.b).in_(list(standing.pairs)),
                )
            )
        }
        for ab, pair in standing.pairs.items():
            prow = paired.get(ab)
            if prow is None:
                prow = LeaguePairRow(league_id=league, a=pair.a, b=pair.b)
                session.add(prow)
            prow.games, prow.a_ahead, prow.b_ahead = pair.games, pair.a_ahead, pair.b_ahead
