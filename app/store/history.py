"""Finished games recorded per seat, and ratings (app.store.player_ports.HistoryStore).

A game is recorded once (the unique `game_id`) in one transaction with the ratings it moves, so
that a crash leaves either both or neither, and the next pass records it. Recordings are
serialised (SQLite's single writer; on Postgres a transaction-scoped advisory lock): each reads
the ratings the previous one wrote, and `game_results.id` is the order a rebuild follows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, delete, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.db import Database
from app.store.errors import mapped, translated
from app.store.models import GameRow, SeatRow, TableRow, as_utc, utcnow
from app.store.player_ports import Ended, Placement, Rate, RatingRec, Result, SeatAtEnd
from app.store.player_rows import GameResultRow, PlacementRow, RatingRow
from app.store.reads import reading

RECORDING_LOCK = 0x0D5A_0012  # Postgres's advisory lock of a recording
# The tables themselves: Core statements of many rows, not the ORM's bulk modes.
PLACEMENTS = cast(Table, PlacementRow.__table__)
RATINGS = cast(Table, RatingRow.__table__)


def _placement(row: PlacementRow) -> Placement:
    return Placement(
        seat=row.seat,
        name=row.name,
        player_id=row.player_id,
        rating_key=row.rating_key,
        bot_kind=row.bot_kind,
        left=row.left,
        score=row.score,
        place=row.place,
    )


# The reads of every page, built once: building a statement costs more CPU than Postgres takes
# to answer it.
_PLACED = (
    select(PlacementRow)
    .where(PlacementRow.result_id.in_(bindparam("ids", expanding=True)))
    .order_by(PlacementRow.result_id, PlacementRow.seat)
)
_UNRECORDED = (
    select(GameRow, TableRow.league_id)
    .join(TableRow, TableRow.id == GameRow.table_id)
    .where(
        GameRow.status == "over",
        ~select(GameResultRow.id).where(GameResultRow.game_id == GameRow.id).exists(),
    )
    .order_by(GameRow.finished_at, GameRow.id)
    .limit(bindparam("limit"))
)
_UNRECORDED_SINCE = _UNRECORDED.where(GameRow.finished_at >= bindparam("since"))
_RESULTS_OF = (
    select(GameResultRow)
    .join(PlacementRow, PlacementRow.result_id == GameResultRow.id)
    .where(PlacementRow.player_id == bindparam("player"))
    .order_by(PlacementRow.result_id.desc())
    .limit(bindparam("limit"))
)
_RESULTS_OF_BEFORE = _RESULTS_OF.where(PlacementRow.result_id < bindparam("before"))


def _rating(row: RatingRow) -> RatingRec:
    return RatingRec(key=row.key, mu=row.mu, sigma=row.sigma, games=row.games, wins=row.wins)


async def results_with_placements(session: AsyncSession, rows: list[GameResultRow]) -> list[Result]:
    if not rows:
        return []
    by_result: dict[int, list[Placement]] = {r.id: [] for r in rows}
    placed = await session.scalars(_PLACED, {"ids": list(by_result)})
    for p in placed:
        by_result[p.result_id].append(_placement(p))
    return [
        Result(
            id=r.id,
            game_id=r.game_id,
            table_id=r.table_id,
            players=r.players,
            rated=r.rated,
            finished_at=as_utc(r.finished_at),
            placements=by_result[r.id],
            league_id=r.league_id,
        )
        for r in rows
    ]


@mapped
class SqlHistory:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def _serialise(self, session: AsyncSession) -> None:
        if not self.db.sqlite:
            await session.execute(text(f"SELECT pg_advisory_xact_lock({RECORDING_LOCK})"))

    async def unrecorded(self, limit: int, since: datetime | None = None) -> list[Ended]:
        query, params = (
            (_UNRECORDED, {"limit": limit})
            if since is None
            else (_UNRECORDED_SINCE, {"limit": limit, "since": since})
        )
        async with reading(self.db) as session:
            found = (await session.execute(query, params)).all()
            games = [g for g, _league in found]
            leagues = {g.id: league for g, league in found}
            seats: dict[str, list[SeatAtEnd]] = {g.table_id: [] for g in games}
            if games:
                for s in await session.scalars(
                    select(SeatRow).where(SeatRow.table_id.in_(list(seats))).order_by(SeatRow.seat)
                ):
                    seats[s.table_id].append(
                        SeatAtEnd(s.seat, s.name, s.bot, s.bot_kind, s.stand_in, s.player_id)
                    )
        return [
            Ended(
                game_id=g.id,
                table_id=g.table_id,
                players=g.players,
                state=g.state,
                finished_at=as_utc(g.finished_at or g.updated_at),
                seats=seats[g.table_id],
                league_id=leagues[g.id],
            )
            for g in games
        ]

    async def record(
        self, ended: Ended, rated: bool, placements: list[Placement], rate: Rate
    ) -> bool:
        # Core statements, not the ORM's unit of work: a recording is a handful of rows, and the
        # unit of work cost most of its CPU.
        async with self.db.write() as session:
            await self._serialise(session)
            done = await session.scalar(
                select(GameResultRow.id).where(GameResultRow.game_id == ended.game_id)
            )
            if done is not None:
                return False
            result_id = await session.scalar(
                insert(GameResultRow)
                .values(
                    game_id=ended.game_id, table_id=ended.table_id, players=ended.players,
                    rated=rated, finished_at=ended.finished_at, league_id=ended.league_id,
                )
                .returning(GameResultRow.id)
            )  # fmt: skip
            await session.execute(
                insert(PLACEMENTS),
                [
                    {
                        "result_id": result_id, "seat": p.seat, "player_id": p.player_id,
                        "rating_key": p.rating_key, "name": p.name[:64], "bot_kind": p.bot_kind,
                        "left": p.left, "score": p.score, "place": p.place,
                    }
                    for p in placements
                ],
            )  # fmt: skip
            if rated:
                await self._rate(session, placements, rate)
        return True

    async def _rate(self, session: AsyncSession, placements: list[Placement], rate: Rate) -> None:
        keys = sorted({p.rating_key for p in placements if p.rating_key is not None})
        found = await session.execute(
            select(
                RatingRow.key, RatingRow.mu, RatingRow.sigma, RatingRow.games, RatingRow.wins
            ).where(RatingRow.key.in_(keys))
        )
        before = {row.key: RatingRec(*row) for row in found}
        now = utcnow()
        moved = rate(before)
        changed = [
            {"k": key, "mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins, "at": now}
            for key, r in moved.items()
            if key in before
        ]
        if changed:
            await session.execute(
                update(RATINGS)
                .where(RATINGS.c.key == bindparam("k"))
                .values(
                    mu=bindparam("mu"), sigma=bindparam("sigma"), games=bindparam("games"),
                    wins=bindparam("wins"), updated_at=bindparam("at"),
                )
                ,
                changed,
            )  # fmt: skip
        added = [
            {"key": key, "mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins,
             "updated_at": now}
            for key, r in moved.items()
            if key not in before
        ]  # fmt: skip
        if added:
            await session.execute(insert(RATINGS), added)

    async def results_of(self, player_id: str, before: int | None, limit: int) -> list[Result]:
        async with reading(self.db) as session:
            return await _results_of(session, player_id, before, limit)

    async def rating_and_results(
        self, player_id: str, limit: int
    ) -> tuple[RatingRec | None, list[Result]]:
        # One session for a player's page: each costs a transaction's round trips and set-up.
        async with reading(self.db) as session:
            row = await session.get(RatingRow, player_id)
            return (
                _rating(row) if row is not None else None,
                await _results_of(session, player_id, None, limit),
            )

    async def ratings(self, keys: list[str]) -> dict[str, RatingRec]:
        async with reading(self.db) as session:
            rows = await session.scalars(select(RatingRow).where(RatingRow.key.in_(keys)))
            return {r.key: _rating(r) for r in rows}

    async def everything(self, batch: int = 500) -> AsyncIterator[Result]:
        after = 0
        while True:
            with translated():
                async with reading(self.db) as session:
                    rows = list(
                        await session.scalars(
                            select(GameResultRow)
                            .where(GameResultRow.id > after)
                            .order_by(GameResultRow.id)
                            .limit(batch)
                        )
                    )
                    results = await results_with_placements(session, rows)
            if not results:
                return
            for r in results:
                yield r
            after = results[-1].id

    async def replace_ratings(self, ratings: Mapping[str, RatingRec]) -> None:
        async with self.db.write() as session:
            await self._serialise(session)
            await session.execute(delete(RatingRow))
            now = utcnow()
            for r in ratings.values():
                session.add(
                    RatingRow(
                        key=r.key, mu=r.mu, sigma=r.sigma, games=r.games, wins=r.wins,
                        updated_at=now,
                    )
                )  # fmt: skip


async def _results_of(
    session: AsyncSession, player_id: str, before: int | None, limit: int
) -> list[Result]:
    """The player's recorded games, newest first, those older than result `before`."""
    params: dict[str, object] = {"player": player_id, "limit": limit}
    query = _RESULTS_OF
    if before is not None:
        query, params["before"] = _RESULTS_OF_BEFORE, before
    rows = list(await session.scalars(query, params))
    return await results_with_placements(session, rows)
