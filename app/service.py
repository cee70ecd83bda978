"""The game service: the lobby, and the one writer per game.

Every change of a game goes through `GameService.submit_action`: under the table's asyncio lock the
engine validates the action, then the new snapshot, the version bump and the action log row are
committed in one transaction whose UPDATE is guarded by the expected version (so a second server
process on the same database can never apply another action at that version). Only after the
commit is the action acknowledged and the new state pushed to the table's sockets.

Errors are `ServiceError`s with a stable code; routes and sockets turn them into HTTP answers or
`error` messages at the edge.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import engine
import engine.bots
from app.config import Settings
from app.connections import CLOSE_RESTART, Connection
from app.messages import AckOut, HelloOut, StateOut, TableMsg
from app.models import ActionRow, GameRow, SeatRow, TableRow, utcnow
from app.schemas import (
    GameRecord,
    JoinOut,
    PlayerOut,
    RecordedAction,
    RecordPlayer,
    TableOut,
)
from app.security import hash_token, new_id, new_seed, new_token

log = logging.getLogger("dragonstones.service")

# HTTP status for each service error code; sockets send the code itself.
STATUS = {
    "not_found": 404,
    "no_bot": 404,
    "game_not_found": 404,
    "missing_token": 401,
    "invalid_token": 401,
    "not_seated": 403,
    "table_full": 409,
    "already_started": 409,
    "not_started": 409,
    "not_over": 409,
    "not_enough_seats": 409,
    "seats_empty": 409,
    "name_taken": 409,
    "conflict": 409,
}

# The size of the table quick play opens when no open table fits.
DEFAULT_QUICKPLAY_SEATS = 4

# Fields a prompt addressed to another seat keeps (CONTRACT §2): limits and options could
# reveal coins behind a screen.
PUBLIC_PROMPT_FIELDS = ("seat", "kind", "character")


class _StaleVersion(Exception):
    """The game's version in the database is not the one this process applied the action to."""


class ServiceError(Exception):
    """A refused request: nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return STATUS.get(self.code, 400)


def state_sha256(state: Any) -> str:
    return hashlib.sha256(engine.dumps(state).encode("utf-8")).hexdigest()


def redact_prompts(prompts: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    return [
        p if p["seat"] == seat else {k: p[k] for k in PUBLIC_PROMPT_FIELDS if k in p}
        for p in prompts
    ]


def as_utc(stamp: datetime) -> datetime:
    # SQLite keeps no time zone; every stamp is written in UTC.
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def tag_events(events: list[dict[str, Any]], version: int) -> list[dict[str, Any]]:
    return [{**e, "version": version} for e in events]


@dataclass(eq=False)
class GameRuntime:
    """The in-memory copy of a game being played: the latest committed state and its version."""

    id: str
    table_id: str
    players: int
    state: Any
    version: int
    over: bool
    # engine.start's raw events: the events of version 0 (turn 1 announced, the Witch up).
    opening: list[dict[str, Any]] = field(default_factory=list)
    bots: dict[int, Any] = field(default_factory=dict)  # seat -> engine bot
    # Every committed action_id of the game -> (seat, version): a retry is answered without a
    # database round trip. The unique constraint still guards against other processes.
    action_ids: dict[str, tuple[int, int]] = field(default_factory=dict)
    stale: bool = False  # a commit failed without a clear answer: reload before the next one
    # R13 time limit: the sealed round now open, when it ends, and the task that ends it.
    turn_seconds: int | None = None
    round_key: tuple[Any, ...] | None = None
    deadline: float | None = None
    timer: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    bot_task: asyncio.Task[None] | None = None


@dataclass(eq=False)
class Room:
    """Everything live about one table in this process: its lock, sockets and game."""

    table_id: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # tasks holding or waiting for the lock
    connections: set[Connection] = field(default_factory=set)
    game: GameRuntime | None = None

    def connected_seats(self) -> set[int]:
        return {c.seat for c in self.connections if c.seat is not None}


class GameService:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        *,
        single_writer: bool = False,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        # SQLite has one writer at a time: queueing writers here beats its busy-wait, which
        # sleeps in steps of up to 100 ms. (Other processes are still handled by busy_timeout.)
        self.write_lock: asyncio.Lock | None = asyncio.Lock() if single_writer else None
        self.rooms: dict[str, Room] = {}
        self.closed = False

    # -- rooms ------------------------------------------------------------------------------------

    def room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is None:
            room = self.rooms[table_id] = Room(table_id)
        return room

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        """A write transaction: committed on exit, rolled back on any exception."""
        async with contextlib.AsyncExitStack() as stack:
            if self.write_lock is not None:
                await stack.enter_async_context(self.write_lock)
            session = await stack.enter_async_context(self.sessions())
            await stack.enter_async_context(session.begin())
            yield session

    @contextlib.asynccontextmanager
    async def _hold(self, table_id: str) -> AsyncIterator[Room]:
        """The table's room, locked: one writer per table (and so per game) in this process."""
        room = self.room(table_id)
        room.users += 1
        try:
            async with room.lock:
                yield room
        finally:
            room.users -= 1
            self._forget_room_if_idle(room)

    def _forget_room_if_idle(self, room: Room) -> None:
        # A room nobody holds, waits for, or listens to, with no game being played in it, is
        # dropped (requests for unknown or idle tables must not pile up in memory). A room in
        # use is never dropped: it must stay the only room, and lock, of its table.
        game = room.game
        playing = game is not None and not game.over
        if room.users or room.connections or playing:
            return
        if self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]

    # -- reading ---------------------------------------------------------------------------------

    async def _table_row(self, session: AsyncSession, table_id: str) -> TableRow:
        row = await session.get(TableRow, table_id)
        if row is None:
            raise ServiceError("not_found", f"there is no table {table_id!r}")
        return row

    async def _open_table_row(
        self, session: AsyncSession, table_id: str, message: str = "this table's game has started"
    ) -> TableRow:
        """The table, which must not have started: the lobby changes only open tables."""
        table = await self._table_row(session, table_id)
        if table.status != "open":
            raise ServiceError("already_started", message)
        return table

    async def _seats(self, session: AsyncSession, table_id: str) -> list[SeatRow]:
        result = await session.scalars(
            select(SeatRow).where(SeatRow.table_id == table_id).order_by(SeatRow.seat)
        )
        return list(result)

    async def _game_row_for_table(self, session: AsyncSession, table_id: str) -> GameRow | None:
        return await session.scalar(select(GameRow).where(GameRow.table_id == table_id))

    def _table_out(self, table: TableRow, seats: list[SeatRow], game: GameRow | None) -> TableOut:
        room = self.rooms.get(table.id)
        online = room.connected_seats() if room else set()
        return TableOut(
            id=table.id,
            seats=table.seats,
            taken=len(seats),
            public=table.public,
            turn_seconds=table.turn_seconds,
            status=table.status,  # type: ignore[arg-type]
            players=[
                PlayerOut(seat=s.seat, name=s.name, bot=s.bot, connected=s.bot or s.seat in online)
                for s in seats
            ],
            game_id=game.id if game else None,
            winner=game.winner if game else None,
            invite_path=f"/t/{table.id}",
            watch_path=f"/t/{table.id}?watch=1",
            created_at=as_utc(table.created_at),
        )

    async def table(self, table_id: str) -> TableOut:
        async with self.sessions() as session:
            table = await self._table_row(session, table_id)
            return self._table_out(
                table,
                await self._seats(session, table_id),
                await self._game_row_for_table(session, table_id),
            )

    async def open_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables that have not started and still have a free seat, newest first."""
        async with self.sessions() as session:
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
                )
                .order_by(TableRow.created_at.desc())
                .limit(limit)
            )
            tables = list(rows.scalars())
            if not tables:
                return []
            by_table = await self._seats_of(session, [t.id for t in tables])
            return [self._table_out(t, by_table.get(t.id, []), None) for t in tables]

    async def _seats_of(
        self, session: AsyncSession, table_ids: list[str]
    ) -> dict[str, list[SeatRow]]:
        seat_rows = await session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(table_ids)).order_by(SeatRow.seat)
        )
        by_table: dict[str, list[SeatRow]] = {}
        for s in seat_rows:
            by_table.setdefault(s.table_id, []).append(s)
        return by_table

    async def playing_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables whose game is being played (games to watch), the most recently active
        first, with each player's score and the turn from the game's public view."""
        async with self.sessions() as session:
            rows = (
                await session.execute(
                    select(TableRow, GameRow)
                    .join(GameRow, GameRow.table_id == TableRow.id)
                    .where(
                        TableRow.public.is_(True),
                        TableRow.status == "playing",
                        GameRow.status == "playing",
                    )
                    .order_by(GameRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            if not rows:
                return []
            by_table = await self._seats_of(session, [t.id for t, _g in rows])
        out = []
        for table, game in rows:
            # Scores are public: read from the public view of the latest committed snapshot
            # (a few hundredths of a millisecond per game).
            view = engine.view(engine.loads(game.state), None)
            scores = {p["seat"]: p["score"] for p in view["players"]}
            listed = self._table_out(table, by_table.get(table.id, []), game)
            for player in listed.players:
                player.score = scores.get(player.seat)
            listed.turn = view["turn"]
            out.append(listed)
        return out

    async def seat_for_token(self, table_id: str, token: str | None) -> SeatRow:
        """The seat a token holds at this table, or a ServiceError."""
        if not token:
            raise ServiceError("missing_token", "send your seat token (Authorization: Bearer ...)")
        async with self.sessions() as session:
            await self._table_row(session, table_id)
            seat = await session.scalar(
                select(SeatRow).where(SeatRow.token_hash == hash_token(token))
            )
        if seat is None:
            raise ServiceError("invalid_token", "this token holds no seat")
        if seat.table_id != table_id:
            raise ServiceError("not_seated", "this token holds a seat at another table")
        return seat

    # -- lobby -----------------------------------------------------------------------------------

    async def create_table(
        self, *, seats: int, public: bool, turn_seconds: int | None = None
    ) -> TableOut:
        async with self._write() as session:
            table = TableRow(
                id=new_id(), seats=seats, public=public, status="open", turn_seconds=turn_seconds
            )
            session.add(table)
        return self._table_out(table, [], None)

    async def join(self, *, table_id: str, name: str) -> JoinOut:
        async with self._hold(table_id) as room:
            for _attempt in range(5):
                try:
                    async with self._write() as session:
                        table = await self._open_table_row(session, table_id)
                        seats = await self._seats(session, table_id)
                        if len(seats) >= table.seats:
                            raise ServiceError("table_full", "every seat of this table is taken")
                        if any(s.name.casefold() == name.casefold() for s in seats):
                            raise ServiceError(
                                "name_taken", f"someone at this table is called {name!r}"
                            )
                        free = min(set(range(table.seats)) - {s.seat for s in seats})
                        token = new_token()
                        session.add(
                            SeatRow(
                                table_id=table_id,
                                seat=free,
                                name=name,
                                token_hash=hash_token(token),
                                bot=False,
                            )
                        )
                        table.updated_at = utcnow()
                    break
                except IntegrityError:
                    # Another server process took that seat first: look again.
                    continue
            else:
                raise ServiceError("conflict", "the table changed too often; try again")
            await self._broadcast_table(room)
        return JoinOut(table_id=table_id, seat=free, token=token)

    async def quickplay(self, *, name: str, seats: int | None) -> JoinOut:
        """A seat at the public open table closest to full, else at a new public table.

        Each try is an ordinary join (the table's lock, the seat count read in the transaction
        and the unique seat): who loses the race for a last seat moves on to the next table."""
        for table in self._quickplay_order(await self.open_tables(), seats):
            try:
                return await self.join(table_id=table.id, name=name)
            except ServiceError as exc:
                if exc.code not in ("table_full", "already_started", "name_taken", "conflict"):
                    raise
        return await self._create_and_join(seats=seats or DEFAULT_QUICKPLAY_SEATS, name=name)

    @staticmethod
    def _quickplay_order(tables: list[TableOut], seats: int | None) -> list[TableOut]:
        # The size asked first; then the fewest free seats (it starts soonest); then the table
        # waiting longest.
        return sorted(
            tables,
            key=lambda t: (
                seats is not None and t.seats != seats,
                t.seats - t.taken,
                -t.taken / t.seats,
                t.created_at,
            ),
        )

    async def _create_and_join(self, *, seats: int, name: str) -> JoinOut:
        """A new public table with this player already seated, in one transaction: nobody can
        take the creator's seat between the two."""
        table_id, token = new_id(), new_token()
        async with self._write() as session:
            session.add(TableRow(id=table_id, seats=seats, public=True, status="open"))
            await session.flush()  # the table row first: the seat refers to it
            session.add(
                SeatRow(
                    table_id=table_id, seat=0, name=name, token_hash=hash_token(token), bot=False
                )
            )
        return JoinOut(table_id=table_id, seat=0, token=token)

    async def leave(self, *, table_id: str, token: str | None) -> TableOut:
        async with self._hold(table_id) as room:
            seat = await self.seat_for_token(table_id, token)
            async with self._write() as session:
                table = await self._open_table_row(
                    session, table_id, "you cannot leave a game that has started"
                )
                await session.execute(delete(SeatRow).where(SeatRow.id == seat.id))
                table.updated_at = utcnow()
            # Sockets of that seat now hold nothing: close them so they cannot pretend.
            for conn in list(room.connections):
                if conn.seat == seat.seat:
                    conn.close(1000, "you left the table")
            await self._broadcast_table(room)
            return await self.table(table_id)

    async def add_bots(
        self, *, table_id: str, token: str | None, count: int, kind: str
    ) -> TableOut:
        try:
            return await self._add_bots(table_id=table_id, token=token, count=count, kind=kind)
        except IntegrityError:
            # Another server process filled a seat at the same moment.
            raise ServiceError("conflict", "the table changed meanwhile; try again") from None

    async def _add_bots(
        self, *, table_id: str, token: str | None, count: int, kind: str
    ) -> TableOut:
        async with self._hold(table_id) as room:
            await self.seat_for_token(table_id, token)
            async with self._write() as session:
                table = await self._open_table_row(session, table_id)
                seats = await self._seats(session, table_id)
                free = sorted(set(range(table.seats)) - {s.seat for s in seats})
                if count > len(free):
                    raise ServiceError(
                        "not_enough_seats", f"{count} bots asked, {len(free)} seats free"
                    )
                for seat in free[:count]:
                    session.add(
                        SeatRow(
                            table_id=table_id,
                            seat=seat,
                            name=f"Bot {seat + 1}",
                            bot=True,
                            bot_kind=kind,
                            bot_seed=str(new_seed()),
                        )
                    )
                table.updated_at = utcnow()
            await self._broadcast_table(room)
            return await self.table(table_id)

    async def remove_bot(self, *, table_id: str, token: str | None, seat: int) -> TableOut:
        """Give a bot's seat back before the game starts (any seated player may)."""
        async with self._hold(table_id) as room:
            await self.seat_for_token(table_id, token)
            async with self._write() as session:
                table = await self._open_table_row(session, table_id)
                result = await session.execute(
                    delete(SeatRow).where(
                        SeatRow.table_id == table_id, SeatRow.seat == seat, SeatRow.bot.is_(True)
                    )
                )
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    raise ServiceError("no_bot", f"there is no bot in seat {seat}")
                table.updated_at = utcnow()
            await self._broadcast_table(room)
            return await self.table(table_id)

    async def start(self, *, table_id: str, token: str | None) -> TableOut:
        async with self._hold(table_id) as room:
            await self.seat_for_token(table_id, token)
            async with self._write() as session:
                table = await self._open_table_row(session, table_id)
                seats = await self._seats(session, table_id)
                if len(seats) < table.seats:
                    raise ServiceError(
                        "seats_empty", f"{table.seats - len(seats)} seats are still empty"
                    )
                seed = new_seed()
                state, opening = engine.start(players=table.seats, seed=seed)
                commitment = engine.view(state, None)["seed_commitment"]
                game = GameRow(
                    id=new_id(),
                    table_id=table_id,
                    players=table.seats,
                    seed=str(seed),
                    seed_commitment=commitment,
                    state=engine.dumps(state),
                    opening_events=opening,
                    version=0,
                    status="playing",
                )
                session.add(game)
                # Guarded so that two processes cannot both start the table.
                result = await session.execute(
                    update(TableRow)
                    .where(TableRow.id == table_id, TableRow.status == "open")
                    .values(status="playing", updated_at=utcnow())
                )
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    raise ServiceError("already_started", "this table's game has already started")
            room.game = self._runtime(game, state, seats, table.turn_seconds)
            self._arm_timer(room, room.game)
            await self._broadcast_table(room)
            # Every socket's log starts with the opening: "Turn 1: ...", "The Witch is up ...".
            await self._broadcast_state(room, events=opening)
            self._start_bots(room)
        return await self.table(table_id)

    # -- games -----------------------------------------------------------------------------------

    def _runtime(
        self, game: GameRow, state: Any, seats: list[SeatRow], turn_seconds: int | None
    ) -> GameRuntime:
        bots = {
            s.seat: engine.bots.make_bot(
                s.bot_kind or self.settings.default_bot_kind, int(s.bot_seed or 0)
            )
            for s in seats
            if s.bot
        }
        opening = game.opening_events
        if opening is None:
            # A game started before the opening was stored: engine.start is deterministic.
            opening = engine.start(players=game.players, seed=int(game.seed))[1]
        return GameRuntime(
            id=game.id,
            table_id=game.table_id,
            players=game.players,
            state=state,
            version=game.version,
            over=game.status == "over",
            opening=opening,
            bots=bots,
            turn_seconds=turn_seconds,
        )

    async def _load_game(self, room: Room) -> GameRuntime | None:
        """The room's game, read from the database when this process has not seen it yet."""
        if room.game is not None:
            return room.game
        async with self.sessions() as session:
            game = await self._game_row_for_table(session, room.table_id)
            if game is None:
                return None
            seats = await self._seats(session, room.table_id)
            table = await self._table_row(session, room.table_id)
        runtime = self._runtime(game, engine.loads(game.state), seats, table.turn_seconds)
        runtime.action_ids = await self._action_ids(game.id)
        room.game = runtime
        self._arm_timer(room, runtime)
        return runtime

    async def _action_ids(self, game_id: str) -> dict[str, tuple[int, int]]:
        async with self.sessions() as session:
            rows = await session.execute(
                select(ActionRow.action_id, ActionRow.seat, ActionRow.version).where(
                    ActionRow.game_id == game_id
                )
            )
            return {action_id: (seat, version) for action_id, seat, version in rows}

    async def _refresh_game(self, game: GameRuntime) -> None:
        """Re-read a game in place after another process moved it on."""
        async with self.sessions() as session:
            row = await session.get(GameRow, game.id, populate_existing=True)
        assert row is not None
        game.state, game.version = engine.loads(row.state), row.version
        game.over = row.status == "over"
        game.action_ids = await self._action_ids(game.id)

    async def submit_action(
        self, *, table_id: str, seat: int, action: dict[str, Any], action_id: str
    ) -> AckOut:
        """Validate and commit one action, then push the new state. Idempotent per action_id."""
        async with self._hold(table_id) as room:
            game = await self._load_game(room)
            if game is None:
                raise ServiceError("not_started", "the game has not started yet")
            if game.stale:
                # A commit failed without a clear answer: trust only the database.
                await self._catch_up_room(room, game)
                game.stale = False
            for _attempt in range(3):
                ack = await self._try_apply(room, game, seat, action, action_id)
                if ack is not None:
                    return ack
                # Another process committed this version first: catch up and validate again.
                await self._catch_up_room(room, game)
            raise ServiceError("conflict", "the game moved on too fast; send the action again")

    def _duplicate(self, game: GameRuntime, seat: int, action_id: str) -> AckOut | None:
        """The ack of an action_id already applied (None if it is new)."""
        known = game.action_ids.get(action_id)
        if known is None:
            return None
        if known[0] != seat:
            raise ServiceError(
                "duplicate_action_id", "this action_id was already used by another seat"
            )
        return AckOut(action_id=action_id, version=known[1], duplicate=True)

    async def _try_apply(
        self, room: Room, game: GameRuntime, seat: int, action: dict[str, Any], action_id: str
    ) -> AckOut | None:
        """One attempt; None when the version guard found the game moved on elsewhere."""
        duplicate = self._duplicate(game, seat, action_id)
        if duplicate is not None:
            return duplicate
        try:
            new_state, events = engine.apply(game.state, seat, action)
        except engine.IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None
        except Exception:
            log.exception("engine failure on %r by seat %s in game %s", action, seat, game.id)
            raise ServiceError("internal_error", "the server could not apply this action") from None
        version = game.version + 1
        winner = engine.winner(new_state)
        over = winner is not None or not engine.prompts(new_state)
        now = utcnow()
        try:
            async with self._write() as session:
                result = await session.execute(
                    update(GameRow)
                    .where(GameRow.id == game.id, GameRow.version == game.version)
                    .values(
                        state=engine.dumps(new_state),
                        version=version,
                        status="over" if over else "playing",
                        winner=winner,
                        updated_at=now,
                        finished_at=now if over else None,
                    )
                )
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    raise _StaleVersion  # rolls the transaction back
                session.add(
                    ActionRow(
                        game_id=game.id,
                        version=version,
                        seat=seat,
                        action=action,
                        action_id=action_id,
                        events=events,
                    )
                )
                if over:
                    await session.execute(
                        update(TableRow)
                        .where(TableRow.id == room.table_id)
                        .values(status="over", updated_at=now)
                    )
        except _StaleVersion:
            return None
        except IntegrityError:
            # The same action_id was committed by another process a moment ago.
            await self._catch_up_room(room, game)
            return self._duplicate(game, seat, action_id)
        except (SQLAlchemyError, OSError) as exc:
            # The database failed mid-transaction: the action may or may not be committed. The
            # client retries with the same action_id, which is safe either way.
            game.stale = True
            log.error("commit failed in game %s: %r", game.id, exc)
            raise ServiceError(
                "unavailable",
                "the database did not answer; send the action again with the same action_id",
            ) from None
        # Committed: now, and only now, the world may learn about it.
        game.state, game.version, game.over = new_state, version, over
        game.action_ids[action_id] = (seat, version)
        self._arm_timer(room, game)
        await self._broadcast_state(room, events=events)
        if over:
            await self._broadcast_table(room)
        game.wake.set()
        return AckOut(action_id=action_id, version=version)

    async def record(self, game_id: str) -> GameRecord:
        """The public record of a finished game: enough to replay and check it."""
        async with self.sessions() as session:
            game = await session.get(GameRow, game_id)
            if game is None:
                raise ServiceError("game_not_found", f"there is no game {game_id!r}")
            if game.status != "over":
                # The seed and the actions would give away hidden information.
                raise ServiceError("not_over", "the record is published when the game is over")
            seats = await self._seats(session, game.table_id)
            actions = await session.scalars(
                select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.version)
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
                actions=[
                    RecordedAction(version=a.version, seat=a.seat, action=a.action) for a in actions
                ],
                created_at=as_utc(game.created_at),
                finished_at=as_utc(game.finished_at) if game.finished_at else None,
            )

    # -- sockets ---------------------------------------------------------------------------------

    async def connect(self, conn: Connection, since: int | None) -> None:
        """Register a socket and send it hello, the table and (once started) the state."""
        async with self._hold(conn.table_id) as room:
            was_online = conn.seat in room.connected_seats()
            room.connections.add(conn)
            conn.send(HelloOut(table_id=conn.table_id, seat=conn.seat, name=conn.name))
            table = await self.table(conn.table_id)
            conn.send(TableMsg(table=table))
            game = await self._load_game(room)
            if game is not None:
                conn.send(await self._catch_up_state(game, conn.seat, since))
            if conn.seat is not None and not was_online:
                # Tell the others this seat is back.
                self._send_all(room, TableMsg(table=table), skip=conn)

    async def disconnect(self, conn: Connection) -> None:
        room = self.rooms.get(conn.table_id)
        if room is None or conn not in room.connections:
            return
        async with self._hold(conn.table_id) as room:
            room.connections.discard(conn)
            if (
                conn.seat is not None
                and conn.seat not in room.connected_seats()
                and not self.closed
            ):
                with contextlib.suppress(ServiceError):
                    await self._broadcast_table(room)

    async def _catch_up_state(
        self, game: GameRuntime, seat: int | None, since: int | None
    ) -> StateOut:
        """The full state plus the events this viewer missed after version `since`.

        A fresh connection (or one whose `since` is unusable) gets the log from before the
        opening: events_from -1, the opening's events (version 0) first."""
        start = -1 if since is None or since < 0 or since > game.version else since
        resync = since is not None and start != since
        if game.version - start > self.settings.max_event_gap:
            start, resync = game.version - self.settings.max_event_gap, True
        events: list[dict[str, Any]] = []
        if start < 0:
            events.extend(tag_events(engine.visible_events(game.opening, seat), 0))
        if start < game.version:
            async with self.sessions() as session:
                rows = await session.execute(
                    select(ActionRow.version, ActionRow.events)
                    .where(ActionRow.game_id == game.id, ActionRow.version > start)
                    .order_by(ActionRow.version)
                )
                for version, raw in rows:
                    events.extend(tag_events(engine.visible_events(raw, seat), version))
        return self._state_message(game, seat, events, start, resync)

    def _state_message(
        self,
        game: GameRuntime,
        seat: int | None,
        events: list[dict[str, Any]],
        events_from: int,
        resync: bool = False,
    ) -> StateOut:
        # The one place where game information leaves the server: engine.view, the redacted
        # prompts and engine.visible_events, always for this connection's seat.
        return StateOut(
            game_id=game.id,
            version=game.version,
            view=engine.view(game.state, seat),
            prompts=redact_prompts(engine.prompts(game.state), seat),
            events_from=events_from,
            events=events,
            resync=resync,
            deadline=game.deadline,
        )

    async def _broadcast_state(self, room: Room, events: list[dict[str, Any]]) -> None:
        """Push the room's current state to every socket, with the raw `events` of the last
        action filtered for each viewer."""
        game = room.game
        if game is None:
            return
        by_seat: dict[int | None, StateOut] = {}
        for conn in list(room.connections):
            message = by_seat.get(conn.seat)
            if message is None:
                visible = tag_events(engine.visible_events(events, conn.seat), game.version)
                message = self._state_message(game, conn.seat, visible, game.version - 1)
                by_seat[conn.seat] = message
            conn.send(message)

    async def _catch_up_room(self, room: Room, game: GameRuntime) -> None:
        """Another process moved the game on: reload it and send each socket what it missed."""
        before, was_over = game.version, game.over
        await self._refresh_game(game)
        if game.version == before:
            return
        self._arm_timer(room, game)
        by_seat: dict[int | None, StateOut] = {}
        for conn in list(room.connections):
            if conn.seat not in by_seat:
                by_seat[conn.seat] = await self._catch_up_state(game, conn.seat, before)
            conn.send(by_seat[conn.seat])
        if game.over and not was_over:
            await self._broadcast_table(room)
        game.wake.set()

    async def sync_with_other_processes(self) -> None:
        """Other server processes may write to the same database: every few moments, catch up
        the games and tables this process has sockets for. (The version guard already keeps the
        writes safe; this keeps the sockets fresh.)"""
        interval = self.settings.sync_interval_seconds
        while not self.closed and interval > 0:
            await asyncio.sleep(interval)
            try:
                await self._sync_once()
            except Exception:
                log.exception("catching up with other processes failed")

    async def _sync_once(self) -> None:
        rooms = [r for r in list(self.rooms.values()) if r.connections or (r.game and r.game.bots)]
        if not rooms:
            return
        async with self.sessions() as session:
            rows = await session.execute(
                select(GameRow.table_id, GameRow.version).where(
                    GameRow.table_id.in_([r.table_id for r in rooms])
                )
            )
            versions = dict(rows.all())
        for room in rooms:
            version = versions.get(room.table_id)
            if version is None:
                continue
            game = room.game
            if game is None:
                # Started by another process.
                async with self._hold(room.table_id) as room:
                    if room.game is None:
                        game = await self._load_game(room)
                        if game is not None:
                            await self._broadcast_table(room)
                            for conn in list(room.connections):
                                conn.send(await self._catch_up_state(game, conn.seat, None))
                            self._start_bots(room)
            elif version > game.version:
                async with self._hold(room.table_id) as room:
                    await self._catch_up_room(room, game)

    async def _broadcast_table(self, room: Room) -> None:
        if not room.connections:
            return
        self._send_all(room, TableMsg(table=await self.table(room.table_id)))

    def _send_all(self, room: Room, message: Any, skip: Connection | None = None) -> None:
        for conn in list(room.connections):
            if conn is not skip:
                conn.send(message)

    # -- time limits (R13) -----------------------------------------------------------------------

    def _arm_timer(self, room: Room, game: GameRuntime) -> None:
        """Start the clock when a new sealed round (bids or tie-break) opens on a timed table."""
        if not game.turn_seconds or self.closed:
            return
        key: tuple[Any, ...] | None = None
        if not game.over:
            view = engine.view(game.state, None)
            if view["phase"] in ("bid", "tiebreak"):
                key = (
                    view["turn"],
                    view["auction"]["number"],
                    view["phase"],
                    view["auction"]["character"],
                )
        if key == game.round_key:
            return
        game.round_key = key
        # The timer's own last action closes its round: it must not cancel itself mid-commit.
        if game.timer is not None and game.timer is not asyncio.current_task():
            game.timer.cancel()
        game.timer = None
        if key is None:
            game.deadline = None
            return
        game.deadline = time.time() + game.turn_seconds
        game.timer = asyncio.create_task(self._expire(room, game, key, game.deadline))

    async def _expire(
        self, room: Room, game: GameRuntime, key: tuple[Any, ...], deadline: float
    ) -> None:
        """The time is up: whoever has not submitted bids nothing (R13), through the same path
        as any action. The action_id names the round, so a second process cannot double it."""
        await asyncio.sleep(max(0.0, deadline - time.time()))
        label = "-".join(str(part) for part in key)
        for prompt in engine.prompts(game.state):
            if game.round_key != key or game.over or self.closed:
                return
            if prompt["kind"] not in ("bid", "tiebreak"):
                continue
            empty: dict[str, Any] = (
                {
                    "type": "bid",
                    "fairy_gold": 0,
                    "common_gold": 0,
                    "amulet": False,
                    "black_magic": False,
                }
                if prompt["kind"] == "bid"
                else {"type": "tiebreak", "silver": 0, "amulet": False}
            )
            try:
                await self.submit_action(
                    table_id=room.table_id,
                    seat=prompt["seat"],
                    action=empty,
                    action_id=f"timeout-{prompt['seat']}-{label}"[:64],
                )
            except ServiceError as exc:
                # The seat answered at the last moment: nothing to do.
                log.info("time limit in game %s, seat %s: %s", game.id, prompt["seat"], exc.code)

    # -- bots ------------------------------------------------------------------------------------

    def _start_bots(self, room: Room) -> None:
        game = room.game
        if game is None or game.over or not game.bots or self.closed:
            return
        if game.bot_task is None or game.bot_task.done():
            game.wake.set()
            game.bot_task = asyncio.create_task(self._run_bots(room, game), name=f"bots-{game.id}")

    async def _run_bots(self, room: Room, game: GameRuntime) -> None:
        """Play the bot seats of one game through the same path as people."""
        failures = 0
        while not game.over and not self.closed:
            await game.wake.wait()
            game.wake.clear()
            while not game.over and not self.closed:
                seats = [p["seat"] for p in engine.prompts(game.state) if p["seat"] in game.bots]
                if not seats:
                    break
                if self.settings.bot_delay_seconds > 0:
                    await asyncio.sleep(self.settings.bot_delay_seconds)
                try:
                    await self._bot_move(room, game, seats[0])
                    failures = 0
                except Exception:
                    failures += 1
                    log.exception("bot move failed in game %s (seat %s)", game.id, seats[0])
                    await asyncio.sleep(min(5.0, 0.1 * 2**failures))

    async def _bot_move(self, room: Room, game: GameRuntime, seat: int) -> None:
        state, version = game.state, game.version
        prompt = next((p for p in engine.prompts(state) if p["seat"] == seat), None)
        if prompt is None:
            return
        bot = game.bots[seat]
        try:
            action = bot.act(engine.view(state, seat), prompt)
        except Exception:
            # A bot bug must not stall the table: play the first legal action instead.
            log.exception("bot %s in game %s failed to decide", seat, game.id)
            action = engine.legal_actions(state, seat)[0]
        # The id names the version the bot decided at: a retry after a crash cannot act twice.
        action_id = f"bot-{seat}-v{version}"
        try:
            await self.submit_action(
                table_id=room.table_id, seat=seat, action=action, action_id=action_id
            )
        except ServiceError as exc:
            if exc.code == "conflict" or game.version != version:
                return  # the game moved on; decide again
            # A bot that picks an illegal action is an engine bug; keep the game going with the
            # first legal action rather than stalling the table.
            legal = engine.legal_actions(state, seat)
            log.error(
                "bot %s in game %s chose an illegal action %r (%s)", seat, game.id, action, exc.code
            )
            if legal:
                await self.submit_action(
                    table_id=room.table_id,
                    seat=seat,
                    action=legal[0],
                    action_id=f"{action_id}-fallback",
                )

    async def resume(self) -> None:
        """After a start or a crash: wake the bots of every game still being played."""
        async with self.sessions() as session:
            table_ids = list(
                await session.scalars(select(GameRow.table_id).where(GameRow.status == "playing"))
            )
        for table_id in table_ids:
            async with self._hold(table_id) as room:
                game = await self._load_game(room)
            if game is not None and game.bots:
                self._start_bots(room)

    async def close(self) -> None:
        """Server shutdown: stop the bots and ask every socket to reconnect later."""
        self.closed = True
        tasks = []
        for room in list(self.rooms.values()):
            for conn in list(room.connections):
                conn.close(CLOSE_RESTART, "server restarting; reconnect with your last version")
            if room.game and room.game.timer:
                room.game.timer.cancel()
            if room.game and room.game.bot_task:
                room.game.wake.set()
                room.game.bot_task.cancel()
                tasks.append(room.game.bot_task)
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
