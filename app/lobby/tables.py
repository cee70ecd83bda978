"""The lobby: open a table, take or give back a seat, quick play, add or remove bots, remove a
player, change the settings, start. The host (app.store.presence.host_seat) alone does what changes the
table for everyone.

Each operation runs under the table's room lock (one writer per table in this process) in one
write transaction of the store (app.store.tables) whose guards (the unique seat, the `open`
status) keep two processes from both succeeding; then the table's sockets here are told, and other
processes through the bus.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta

import engine
from app.core import names, seeds
from app.core.clock import server_clock
from app.core.errors import Code, ServiceError, StoreConflict
from app.core.schemas import JoinOut, TableOut, TableSettings
from app.core.security import hash_token, new_id, new_seed, new_token
from app.store.lobby_ports import ReadModel, TableStore, TableWrite
from app.store.presence import host_seat, is_stale
from app.store.records import GameStart, SeatRec, StoredGame, TableRec, TableRows, utcnow
from app.table.clock import first_deadline
from app.table.hub import Hub
from app.table.listing import Listing
from app.table.room import Room

from . import quickplay

# The table settings, each a `tables` column of the same name: the host changes them, "play
# again" copies them. A new setting is a field of TableSettings and a column.
SETTINGS_COLUMNS: tuple[str, ...] = tuple(TableSettings.model_fields)


def closed_error() -> ServiceError:
    return ServiceError(
        Code.TABLE_CLOSED, "this table closed: nobody was connected to it for a while"
    )


async def _open_table(
    tx: TableWrite, table_id: str, message: str = "this table's game has started"
) -> TableRec:
    """The table, which must not have started: the lobby changes only open tables."""
    return _must_be_open(await tx.table(table_id), message)


def _must_be_open(table: TableRec, message: str = "this table's game has started") -> TableRec:
    if table.status == "closed":
        raise closed_error()
    if table.status != "open":
        raise ServiceError(Code.ALREADY_STARTED, message)
    return table


def _seat_of(rows: TableRows, token: str | None) -> SeatRec | None:
    """The seat `token` holds at this table, from the rows read with their tokens' hashes."""
    seat_id = rows.tokens.get(hash_token(token)) if token else None
    return next((s for s in rows.seats if s.id == seat_id), None)


def _require_host(seats: list[SeatRec], seat: SeatRec) -> None:
    if host_seat(seats) != seat.seat:
        raise ServiceError(Code.NOT_HOST, "only the table's host may do this")


class Lobby:
    def __init__(self, tables: TableStore, reads: ReadModel, hub: Hub) -> None:
        self.tables = tables
        self.reads = reads
        self.hub = hub
        self.settings = hub.settings
        seeds.announce(self.settings.test_seed)

    @property
    def listing(self) -> Listing:
        """How tables are shown (app.table.listing)."""
        return self.hub.listing

    async def _changed(self, room: Room, told: bool = False) -> TableOut:
        """Tell this process's sockets and the other processes (`told`: the write's own
        statement did, Bus.told_at_commit); answer the table as it is. (This process reads
        nothing more for it: the notice it hears back only names the table.)"""
        table = await room.audience.send_table_now()
        self.hub.lobby_changed(room.table_id)
        if not told:
            await self.hub.bus.publish_change(room.table_id)
        return table

    async def create_table(
        self,
        *,
        seats: int,
        public: bool,
        turn_seconds: int | None = None,
        choose_seconds: int | None = None,
        grace_seconds: int | None = None,
        address: str | None = None,
    ) -> TableOut:
        """A new table with nobody seated, opened by the client at `address` (None: not counted
        against anyone)."""
        async with self.tables.write() as tx:
            if address is not None:
                await self._check_empty_tables(tx, address)
            table = TableRec(
                id=new_id(),
                seats=seats,
                public=public,
                status="open",
                turn_seconds=turn_seconds,
                choose_seconds=choose_seconds,
                grace_seconds=grace_seconds,
                creator_address=address[:64] if address is not None else None,
            )
            await tx.add_table(table)
        return self.listing.out(table, [], None)

    async def _check_empty_tables(self, tx: TableWrite, address: str) -> None:
        """Refuse a new table to an address whose tables the lobby lists with nobody seated
        (those of the last EMPTY_TABLE_LISTED_SECONDS) are at the limit: one address cannot fill
        the lobby with empty tables (the rate limit alone let it keep hundreds listed). In the
        creating transaction, serialised per address (the write lock on SQLite, an advisory lock
        on Postgres) so that a burst of calls cannot all pass."""
        cap = self.settings.max_empty_tables_per_address
        if cap <= 0:
            return
        await tx.serialize_address(address[:64])
        listed = timedelta(seconds=self.settings.empty_table_listed_seconds)
        empty, oldest = await tx.empty_tables_of(address[:64], listed)
        if empty >= cap:
            wait = 1
            if oldest is not None:
                grace = self.settings.empty_table_listed_seconds
                wait = max(1, math.ceil(grace - (utcnow() - oldest).total_seconds()))
            raise ServiceError(
                Code.TOO_MANY_TABLES,
                f"{empty} tables opened from your address have nobody seated yet: sit at one "
                f"of them (its invite link), or open another in {wait} s",
            )

    def _stale(self, table_id: str, table: TableRec, seats: list[SeatRec]) -> bool:
        presence = self.hub.presence
        return is_stale(
            table, seats, utcnow(), presence.stale, presence.idle, self.hub.online_seats(table_id)
        )

    async def _close_stale(self, table_id: str) -> None:
        """Close a table found stale (unless someone came back meanwhile) and tell everyone."""
        presence = self.hub.presence
        if await presence.close_if_idle(table_id, utcnow() - presence.idle):
            room = self.hub.peek(table_id)
            if room is not None:
                await room.audience.send_table_now()
            await self.hub.bus.publish(table_id, None)

    async def join(self, *, table_id: str, name: str, need_online: bool = False) -> JoinOut:
        """Take the lowest free seat. `need_online` (quick play): only beside someone online."""
        async with self.hub.hold(table_id) as room:
            for _attempt in range(5):
                # The table and its seats, read once (one statement on Postgres): whether nobody
                # has been connected for the idle time (then it closes, below: the closing task
                # may not have come by yet), and where the seat goes.
                rows = (await self.hub.arrivals.look(table_id, time.monotonic())).rows
                assert rows is not None
                table, seats = rows.table, rows.seats
                if self._stale(table_id, table, seats):
                    await self._close_stale(table_id)
                    raise closed_error()
                _must_be_open(table)
                if need_online and not self.listing.online_now(table_id, seats, utcnow()):
                    raise ServiceError(Code.CONFLICT, "nobody at this table is online")
                if len(seats) >= table.seats:
                    raise ServiceError(Code.TABLE_FULL, "every seat of this table is taken")
                # "ANN", "ann", the full-width ANN and look-alikes are one name (bots' names are
                # reserved by app.core.names already).
                if any(names.same(s.name, name) for s in seats):
                    raise ServiceError(Code.NAME_TAKEN, f"someone at this table is called {name!r}")
                free = min(set(range(table.seats)) - {s.seat for s in seats})
                token = new_token()
                tell = self.hub.bus.told_at_commit(table_id)
                try:
                    # Away until their page connects. False: started or closed since the read.
                    if await self.tables.take_seat(
                        table_id, free, name, hash_token(token), utcnow(), tell
                    ):
                        break
                except StoreConflict:
                    pass  # another server process took that seat first: look again
            else:
                raise ServiceError(Code.CONFLICT, "the table changed too often; try again")
            await self._changed(room, told=tell is not None)
            await room.feed.notice("joined", seat=free, name=name)  # table chat's log line
        return JoinOut(table_id=table_id, seat=free, token=token)

    async def quickplay(self, *, name: str, seats: int | None, open_only: bool = False) -> JoinOut:
        """A seat at the public open table closest to full, else at a new one (app.lobby.quickplay)."""
        return await quickplay.seat(self, name=name, seats=seats, open_only=open_only)

    async def leave(self, *, table_id: str, token: str | None) -> TableOut:
        async with self.hub.hold(table_id) as room:
            seat = await self.reads.seat_for_token(table_id, token)
            async with self.tables.write() as tx:
                await _open_table(tx, table_id, "you cannot leave a game that has started")
                await tx.remove_seat(seat.id)
                await tx.update_table(table_id)
            # Sockets of that seat now hold nothing: close them so they cannot pretend.
            room.audience.kick_seat(seat.seat, "you left the table")
            out = await self._changed(room)
            await room.feed.notice("left", seat=seat.seat, name=seat.name)  # table chat's log
            return out

    async def add_bots(
        self, *, table_id: str, token: str | None, count: int, kind: str
    ) -> TableOut:
        try:
            async with self.hub.hold(table_id) as room:
                me = await self.reads.seat_for_token(table_id, token)
                async with self.tables.write() as tx:
                    table = await _open_table(tx, table_id)
                    seats = await tx.seats(table_id)
                    _require_host(seats, me)
                    free = sorted(set(range(table.seats)) - {s.seat for s in seats})
                    if count > len(free):
                        raise ServiceError(
                            Code.NOT_ENOUGH_SEATS, f"{count} bots asked, {len(free)} seats free"
                        )
                    added = free[:count]
                    for seat in added:
                        await tx.add_seat(
                            table_id, seat, f"Bot {seat + 1}", bot_kind=kind,
                            bot_seed=str(new_seed()),
                        )  # fmt: skip
                    await tx.update_table(table_id)
                out = await self._changed(room)
                for seat in added:  # the log says who sat down, bots too
                    await room.feed.notice("bot_joined", seat=seat, name=f"Bot {seat + 1}")
                return out
        except StoreConflict:
            # Another server process filled a seat at the same moment.
            raise ServiceError(Code.CONFLICT, "the table changed meanwhile; try again") from None

    async def remove_bot(self, *, table_id: str, token: str | None, seat: int) -> TableOut:
        """Give a bot's seat back before the game starts (the host only)."""
        async with self.hub.hold(table_id) as room:
            me = await self.reads.seat_for_token(table_id, token)
            async with self.tables.write() as tx:
                await _open_table(tx, table_id)
                _require_host(await tx.seats(table_id), me)
                if not await tx.remove_bot(table_id, seat):
                    raise ServiceError(Code.NO_BOT, f"there is no bot in seat {seat}")
                await tx.update_table(table_id)
            out = await self._changed(room)
            await room.feed.notice("removed", seat=seat, name=f"Bot {seat + 1}")
            return out

    async def remove_seat(self, *, table_id: str, token: str | None, seat: int) -> TableOut:
        """The host gives a seat back before the start (a player who left, a bot): the removed
        player's token holds nothing any more and their sockets are closed."""
        async with self.hub.hold(table_id) as room:
            me = await self.reads.seat_for_token(table_id, token)
            async with self.tables.write() as tx:
                await _open_table(tx, table_id)
                seats = await tx.seats(table_id)
                _require_host(seats, me)
                if seat == me.seat:
                    raise ServiceError(
                        Code.INVALID_REQUEST, "the host leaves with POST .../leave instead"
                    )
                target = next((s for s in seats if s.seat == seat), None)
                if target is None:
                    raise ServiceError(Code.NO_SEAT, f"nobody sits in seat {seat}")
                await tx.remove_seat(target.id)
                await tx.update_table(table_id)
            room.audience.kick_seat(seat, "the host removed you from the table", Code.REMOVED)
            out = await self._changed(room)
            await room.feed.notice("removed", seat=seat, name=target.name)
            return out

    async def update_settings(
        self, *, table_id: str, token: str | None, settings: TableSettings
    ) -> TableOut:
        """The host changes the table's settings before the start; fields left out are kept."""
        given = settings.model_dump(include=settings.model_fields_set)
        async with self.hub.hold(table_id) as room:
            me = await self.reads.seat_for_token(table_id, token)
            async with self.tables.write() as tx:
                await _open_table(tx, table_id)
                _require_host(await tx.seats(table_id), me)
                assert set(given) <= set(SETTINGS_COLUMNS)
                await tx.update_table(table_id, **given)
            return await self._changed(room)

    async def start(
        self, *, table_id: str, token: str | None, seed: int | None = None, deal: int | None = None
    ) -> TableOut:
        """Deal the game once every seat is taken (`seed`: for tests only, app.core.seeds;
        `deal`: a seed the server itself chose to make known, the tutorial's)."""
        test_seed = self.settings.test_seed
        seeds.refuse_unless_testing(test_seed, seed)
        async with self.hub.hold(table_id) as room:
            if not token:
                await self.reads.seat_for_token(table_id, token)  # missing_token, as before
            # The table, its seats and their tokens in one read (one statement on Postgres).
            rows = (await self.hub.arrivals.look(table_id, time.monotonic())).rows
            assert rows is not None
            me = _seat_of(rows, token) or await self.reads.seat_for_token(table_id, token)
            table, seats = _must_be_open(rows.table), rows.seats
            _require_host(seats, me)
            if len(seats) < table.seats:
                raise ServiceError(
                    Code.SEATS_EMPTY, f"{table.seats - len(seats)} seats are still empty"
                )
            if deal is not None:
                seed = deal
            elif test_seed is None:
                seed = new_seed()
            else:  # tests only (app.core.seeds): the deal and the bots follow from TEST_SEED
                async with self.tables.write() as tx:
                    seed = seeds.game_seed(test_seed, await tx.games_count(), seed)
            bot_seeds: dict[int, str] = {}
            if deal is not None or test_seed is not None:
                # A known deal: its bots play it the same way every time.
                for s in seats:
                    if s.bot:
                        s.bot_seed = bot_seeds[s.id] = str(seeds.bot_seed(seed, s.seat))
            state, opening = engine.start(players=table.seats, seed=seed)
            # The opening prompt's deadline is stored with the game.
            deadline = first_deadline(
                state, table.turn_seconds, table.choose_seconds, server_clock.time()
            )
            game_id, dumped = new_id(), engine.dumps(state)
            tell = self.hub.bus.told_at_commit(table_id, 0)
            started = await self.tables.begin_game(
                GameStart(
                    game_id=game_id,
                    table_id=table_id,
                    players=table.seats,
                    seed=str(seed),
                    seed_commitment=engine.view(state, None)["seed_commitment"],
                    state=dumped,
                    opening=opening,
                    deadline_at=deadline.stamp() if deadline else None,
                    deadline_key=deadline.key if deadline else None,
                    now=utcnow(),
                    bot_seeds=bot_seeds,
                    tell=tell,
                )
            )
            if not started:  # another process started it, or a seat was given back meanwhile
                again = (await self.hub.arrivals.look(table_id, time.monotonic())).rows
                assert again is not None
                _must_be_open(again.table, "this table's game has already started")
                raise ServiceError(Code.SEATS_EMPTY, "a seat was given back; start again")
            out = await room.audience.send_table_now()
            # Every socket's log starts with the opening: "Turn 1: ...", "The Witch is up ...".
            room.started(
                StoredGame(
                    id=game_id,
                    table_id=table_id,
                    players=table.seats,
                    seed=str(seed),
                    state=dumped,
                    version=0,
                    over=False,
                    opening=opening,
                    turn_seconds=table.turn_seconds,
                    choose_seconds=table.choose_seconds,
                    deadline_at=deadline.stamp() if deadline else None,
                    deadline_key=deadline.key if deadline else None,
                    bots=[(s.seat, s.bot_kind, s.bot_seed) for s in seats if s.bot],
                    actions=[],
                )
            )
            if tell is None:
                await self.hub.bus.publish(table_id, 0)
        return out
