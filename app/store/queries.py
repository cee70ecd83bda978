"""Read models: a table as the lobby shows it, the lists of tables, the seat a token holds, and the
public record of a finished game. Nothing here writes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, exists, func, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

import engine
from app.core.errors import Code, ServiceError
from app.core.schemas import GameRecord, PlayerOut, RecordedAction, RecordPlayer, TableOut
from app.core.security import hash_token
from app.store.db import Database
from app.store.models import ActionRow, GameRow, SeatRow, TableRow, as_utc, utcnow
from app.store.presence import away_since, grace_seconds, host_seat, is_online, last_active


def state_sha256(state: Any) -> str:
    return hashlib.sha256(engine.dumps(state).encode("utf-8")).hexdigest()


async def table_row(session: AsyncSession, table_id: str) -> TableRow:
    row = await session.get(TableRow, table_id)
    if row is None:
        raise ServiceError(Code.NOT_FOUND, f"there is no table {table_id!r}")
    return row


async def seat_rows(session: AsyncSession, table_id: str) -> list[SeatRow]:
    result = await session.scalars(
        select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
    )
    return list(result)


class Queries:
    def __init__(
        self,
        db: Database,
        online: Callable[[str], set[int]],
        *,
        idle_minutes: float = 0.0,
        online_tables: Callable[[], Collection[str]] | None = None,
        public_url: str | None = None,
        presence_stale: timedelta = timedelta(seconds=60),
        empty_listed: timedelta = timedelta(0),
    ) -> None:
        self.db = db
        self.public_url = public_url  # PUBLIC_URL: invite links are built on it
        self.online = online  # table id -> seats with a socket in this process
        # The lobby lists an open table only while it changed within idle_minutes (0: always)
        # or a seated person is online (online_tables: the tables where one is, here).
        self.idle_minutes = idle_minutes
        self.online_tables = online_tables or (lambda: ())
        # A seat whose process has not refreshed its presence for this long is away.
        self.presence_stale = presence_stale
        # A table with no person seated is listed this long after its last change (0: never).
        self.empty_listed = empty_listed
        # table id -> (version, state) of the game this process plays there, if it does (the
        # hub's rooms): the stored `state` is only a snapshot (app.store.games).
        self.live_state: Callable[[str], tuple[int, Any] | None] = lambda _t: None

    def online_now(self, table_id: str, seats: list[SeatRow], now: datetime) -> set[int]:
        """Seats of people with a socket open now: on this process, or on another as the
        database says."""
        here = self.online(table_id)
        return {
            s.seat
            for s in seats
            if not s.bot and (s.seat in here or is_online(s, now, self.presence_stale))
        }

    def table_out(self, table: TableRow, seats: list[SeatRow], game: GameRow | None) -> TableOut:
        now = utcnow()
        online = self.online_now(table.id, seats, now)
        return TableOut(
            id=table.id,
            seats=table.seats,
            taken=len(seats),
            public=table.public,
            turn_seconds=table.turn_seconds,
            choose_seconds=table.choose_seconds,
            grace_seconds=grace_seconds(table),
            stand_in_kind=table.stand_in_kind,
            status=table.status,  # type: ignore[arg-type]
            players=[
                PlayerOut(
                    seat=s.seat,
                    name=s.name,
                    bot=s.bot,
                    connected=s.bot or s.seat in online,
                    away_since=None
                    if s.seat in online
                    else away_since(s, now, self.presence_stale),
                    stand_in=bool(s.stand_in),
                    bot_kind=s.bot_kind if s.bot or s.stand_in else None,
                )
                for s in seats
            ],
            game_id=game.id if game else None,
            winner=game.winner if game else None,
            invite_path=f"/t/{table.id}",
            watch_path=f"/t/{table.id}?watch=1",
            invite_url=f"{self.public_url}/t/{table.id}" if self.public_url else None,
            watch_url=f"{self.public_url}/t/{table.id}?watch=1" if self.public_url else None,
            created_at=as_utc(table.created_at),
            host=host_seat(seats),
            online=len(online),
            last_active=last_active(table, seats, now, self.presence_stale),
            rematch_id=table.rematch_id,
            rematch_path=f"/t/{table.rematch_id}" if table.rematch_id else None,
        )

    async def presence(self, table_id: str) -> dict[int, datetime | None]:
        """Each seat's `away_since`: null while its person is online (and for bots)."""
        table = await self.table(table_id)
        return {p.seat: p.away_since for p in table.players}

    async def table(self, table_id: str) -> TableOut:
        async with self.db.sessions() as session:
            table = await table_row(session, table_id)
            return self.table_out(
                table,
                await seat_rows(session, table_id),
                await session.scalar(select(GameRow).where(GameRow.table_id == table_id)),
            )

    async def open_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables that have not started and still have a free seat: those with a person
        online first, then those with a person seated, then those with nobody seated (listed
        only for `empty_listed` after their last change), each newest first. So a flood of
        empty tables from one address neither hides a table where someone waits nor lasts."""
        now = utcnow()
        person = select(SeatRow.id).where(SeatRow.table_id == TableRow.id, SeatRow.bot.is_(False))
        seated = person.exists()
        online = person.where(
            SeatRow.away_since.is_(None), SeatRow.seen_at >= now - self.presence_stale
        ).exists()
        here = sorted(self.online_tables())[:1000]  # a person with a socket in this process
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
                    self._alive(),
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
            return [self.table_out(t, by_table.get(t.id, []), None) for t in tables]

    async def empty_tables_of(
        self, session: AsyncSession, address: str
    ) -> tuple[int, datetime | None]:
        """How many open tables opened from `address` have no person seated and changed within
        `empty_listed` (those the lobby lists), and the oldest change among them."""
        person = select(SeatRow.id).where(SeatRow.table_id == TableRow.id, SeatRow.bot.is_(False))
        count, oldest = (
            await session.execute(
                select(func.count(), func.min(TableRow.updated_at)).where(
                    TableRow.creator_address == address,
                    TableRow.status == "open",
                    TableRow.updated_at >= utcnow() - self.empty_listed,
                    ~person.exists(),
                )
            )
        ).one()
        return int(count), as_utc(oldest) if oldest is not None else None

    def _alive(self, changed: Any = TableRow.updated_at) -> ColumnElement[bool]:
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
        online = sorted(self.online_tables())[:1000]
        if not online:
            return or_(changed >= cutoff, someone)
        return or_(changed >= cutoff, someone, TableRow.id.in_(online))

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

    async def playing_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables whose game is being played (games to watch), the most recently active
        first, with each player's score and the turn from the game's public view."""
        async with self.db.sessions() as session:
            rows = (
                await session.execute(
                    select(TableRow, GameRow)
                    .join(GameRow, GameRow.table_id == TableRow.id)
                    .where(
                        TableRow.public.is_(True),
                        TableRow.status == "playing",
                        GameRow.status == "playing",
                        # Issue 18: an abandoned game (nobody there, no move for the idle
                        # time) is not one to watch.
                        self._alive(GameRow.updated_at),
                    )
                    .order_by(GameRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            if not rows:
                return []
            by_table = await self._seats_of(session, [t.id for t, _g in rows])
            states = await self._current_states(session, [g for _t, g in rows])
        out = []
        for table, game in rows:
            # Scores are public: read from the public view of the current state.
            view = engine.view(states[game.id], None)
            scores = {p["seat"]: p["score"] for p in view["players"]}
            listed = self.table_out(table, by_table.get(table.id, []), game)
            for player in listed.players:
                player.score = scores.get(player.seat)
            listed.turn = view["turn"]
            out.append(listed)
        return out

    async def _current_states(self, session: AsyncSession, games: list[GameRow]) -> dict[str, Any]:
        """Each game's current state: this process's live one, else the stored snapshot and the
        actions after it replayed (one query for all)."""
        states: dict[str, Any] = {}
        behind: dict[str, GameRow] = {}
        for game in games:
            live = self.live_state(game.table_id)
            if live is not None and live[0] >= game.version:
                states[game.id] = live[1]
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

    async def seat_for_token(self, table_id: str, token: str | None) -> SeatRow:
        """The seat a token holds at this table, or a ServiceError."""
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
        return seat

    async def record(self, game_id: str) -> GameRecord:
        """The public record of a finished game: enough to replay and check it."""
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
            state = engine.loads(game.state)
            return GameRecord(
                id=game.id,
                table_id=game.table_id,
                seats=game.players,
                players=[RecordPlayer(seat=s.seat, name=s.name, bot=s.bot) for s in seats],
                seed=game.seed,
                seed_commitment=game.seed_commitment,
                winner=game.winner,
                version=game.version,
                final_state_sha256=state_sha256(state),
                final_view=engine.view(state, None),
                actions=[RecordedAction(version=v, seat=s, action=a) for v, s, a in actions],
                created_at=as_utc(game.created_at),
                finished_at=as_utc(game.finished_at) if game.finished_at else None,
            )
