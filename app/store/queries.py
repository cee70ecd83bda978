"""The read model: a table as stored, the lists of tables, the seat a token holds, and what the
public record of a finished game is made of, as records (app.store.records). Nothing here writes,
and nothing here shapes what a client receives: the table layer and the edge do (app.table.listing,
app.edge.api)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, exists, func, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

import engine
from app.core.errors import Code, ServiceError
from app.core.security import hash_token
from app.store.db import Database
from app.store.errors import mapped
from app.store.models import ActionRow, GameRow, SeatRow, TableRow, utcnow
from app.store.records import FinishedGame, GameRef, SeatRec, TableRec, TableRows, record_of
from app.store.tables import seat_rows, table_row


def rows_of(table: TableRow, seats: list[SeatRow], game: GameRow | None) -> TableRows:
    return TableRows(
        record_of(TableRec, table),
        [record_of(SeatRec, s) for s in seats],
        GameRef(game.id, game.winner) if game is not None else None,
    )


@mapped
class Queries:
    def __init__(
        self,
        db: Database,
        *,
        idle_minutes: float = 0.0,
        presence_stale: timedelta = timedelta(seconds=60),
        empty_listed: timedelta = timedelta(0),
    ) -> None:
        self.db = db
        # The lobby lists an open table only while it changed within idle_minutes (0: always)
        # or a seated person is online (somewhere as the database says, or here: `here`).
        self.idle_minutes = idle_minutes
        # A seat whose process has not refreshed its presence for this long is away.
        self.presence_stale = presence_stale
        # A table with no person seated is listed this long after its last change (0: never).
        self.empty_listed = empty_listed

    async def table(self, table_id: str) -> TableRows:
        async with self.db.sessions() as session:
            table = await table_row(session, table_id)
            return rows_of(
                table,
                await seat_rows(session, table_id),
                await session.scalar(select(GameRow).where(GameRow.table_id == table_id)),
            )

    async def open_tables(self, limit: int, here: Collection[str]) -> list[TableRows]:
        now = utcnow()
        person = select(SeatRow.id).where(SeatRow.table_id == TableRow.id, SeatRow.bot.is_(False))
        seated = person.exists()
        online = person.where(
            SeatRow.away_since.is_(None), SeatRow.seen_at >= now - self.presence_stale
        ).exists()
        here = sorted(here)[:1000]  # a person with a socket in this process
        someone_online = or_(online, TableRow.id.in_(here)) if here else online
        async with self.db.sessions() as session:
            taken = (
                select(SeatRow.table_id, func.count().label("taken"))
                .group_by(SeatRow.table_id)
                .subquery()
            )
            rows = await session.execute(
                select(TableRow)
                .outerjoin(taken, taken.c.table_id == TableRow.id)
                .where(
                    TableRow.public.is_(True),
                    TableRow.status == "open",
                    func.coalesce(taken.c.taken, 0) < TableRow.seats,
                    self._alive(here),
                    or_(seated, TableRow.updated_at >= now - self.empty_listed)
                    if self.empty_listed > timedelta(0)
                    else seated,
                )
                .order_by(
                    case((someone_online, 0), (seated, 1), else_=2), TableRow.created_at.desc()
                )
                .limit(limit)
            )
            tables = list(rows.scalars())
            if not tables:
                return []
            by_table = await self._seats_of(session, [t.id for t in tables])
            return [rows_of(t, by_table.get(t.id, []), None) for t in tables]

    def _alive(self, here: list[str], changed: Any = TableRow.updated_at) -> ColumnElement[bool]:
        """Not idle: changed within the idle limit, or a seated person online (here, or
        somewhere as the database says). Idle tables close (app.store.presence); until the closing
        task gets to them they already leave the lobby. `changed`: the column that says when
        (a game being played: its last action)."""
        if self.idle_minutes <= 0:
            return true()
        now = utcnow()
        cutoff = now - timedelta(minutes=self.idle_minutes)
        someone = exists().where(
            and_(
                SeatRow.table_id == TableRow.id,
                SeatRow.bot.is_(False),
                or_(
                    SeatRow.away_since >= cutoff,
                    and_(SeatRow.away_since.is_(None), SeatRow.seen_at >= cutoff),
                ),
            )
        )
        if not here:
            return or_(changed >= cutoff, someone)
        return or_(changed >= cutoff, someone, TableRow.id.in_(here))

    async def _seats_of(
        self, session: AsyncSession, table_ids: list[str]
    ) -> dict[str, list[SeatRow]]:
        seat_result = await session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(table_ids)).order_by(SeatRow.seat)
        )
        by_table: dict[str, list[SeatRow]] = {}
        for s in seat_result:
            by_table.setdefault(s.table_id, []).append(s)
        return by_table

    async def playing_tables(
        self, limit: int, here: Collection[str], live: Mapping[str, tuple[int, engine.State]]
    ) -> list[tuple[TableRows, engine.State]]:
        async with self.db.sessions() as session:
            rows = (
                await session.execute(
                    select(TableRow, GameRow)
                    .join(GameRow, GameRow.table_id == TableRow.id)
                    .where(
                        TableRow.public.is_(True),
                        TableRow.status == "playing",
                        GameRow.status == "playing",
                        # An abandoned game (nobody there, no move for the idle time) is not
                        # one to watch.
                        self._alive(sorted(here)[:1000], GameRow.updated_at),
                    )
                    .order_by(GameRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            if not rows:
                return []
            by_table = await self._seats_of(session, [t.id for t, _g in rows])
            states = await self._current_states(session, [g for _t, g in rows], live)
        return [(rows_of(t, by_table.get(t.id, []), g), states[g.id]) for t, g in rows]

    async def _current_states(
        self,
        session: AsyncSession,
        games: list[GameRow],
        live: Mapping[str, tuple[int, engine.State]],
    ) -> dict[str, engine.State]:
        """Each game's current state: this process's live one, else the stored snapshot and the
        actions after it replayed (one query for all)."""
        states: dict[str, engine.State] = {}
        behind: dict[str, GameRow] = {}
        for game in games:
            held = live.get(game.table_id)
            if held is not None and held[0] >= game.version:
                states[game.id] = held[1]
                continue
            states[game.id] = engine.loads(game.state)
            snapshot = game.version if game.snapshot_version is None else game.snapshot_version
            if snapshot < game.version:
                behind[game.id] = game
        if behind:
            rows = await session.execute(
                select(ActionRow.game_id, ActionRow.seat, ActionRow.action)
                .join(GameRow, GameRow.id == ActionRow.game_id)
                .where(
                    ActionRow.game_id.in_(list(behind)),
                    ActionRow.version > func.coalesce(GameRow.snapshot_version, GameRow.version),
                    ActionRow.version <= GameRow.version,
                )
                .order_by(ActionRow.game_id, ActionRow.version)
            )
            for game_id, seat, action in rows:
                states[game_id] = engine.apply(states[game_id], seat, action)[0]
        return states

    async def seat_for_token(self, table_id: str, token: str | None) -> SeatRec:
        if not token:
            raise ServiceError(
                Code.MISSING_TOKEN, "send your seat token (Authorization: Bearer ...)"
            )
        async with self.db.sessions() as session:
            await table_row(session, table_id)
            seat = await session.scalar(
                select(SeatRow).where(SeatRow.token_hash == hash_token(token))
            )
        if seat is None:
            raise ServiceError(Code.INVALID_TOKEN, "this token holds no seat")
        if seat.table_id != table_id:
            raise ServiceError(Code.NOT_SEATED, "this token holds a seat at another table")
        return record_of(SeatRec, seat)

    async def finished_game(self, game_id: str) -> FinishedGame:
        async with self.db.sessions() as session:
            game = await session.get(GameRow, game_id)
            if game is None:
                raise ServiceError(Code.GAME_NOT_FOUND, f"there is no game {game_id!r}")
            if game.status != "over":
                # The seed and the actions would give away hidden information.
                raise ServiceError(Code.NOT_OVER, "the record is published when the game is over")
            seats = await seat_rows(session, game.table_id)
            actions = await session.execute(
                select(ActionRow.version, ActionRow.seat, ActionRow.action)
                .where(ActionRow.game_id == game_id)
                .order_by(ActionRow.version)
            )
            return FinishedGame(
                id=game.id,
                table_id=game.table_id,
                players=game.players,
                seed=game.seed,
                seed_commitment=game.seed_commitment,
                winner=game.winner,
                version=game.version,
                state=game.state,
                created_at=game.created_at,
                finished_at=game.finished_at,
                seats=[(s.seat, s.name, s.bot) for s in seats],
                actions=[(v, s, a) for v, s, a in actions],
            )
