"""The store on its own, in process, against the real SQLite and Postgres: it raises its own
errors, never a driver's (a seat another writer took first is `StoreConflict`; a database that
does not answer is `StoreUnavailable`), whichever database is behind it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy.exc import SQLAlchemyError

import engine
from app.core.config import Settings
from app.core.errors import ServiceError, StoreConflict, StoreUnavailable
from app.core.security import hash_token, new_id
from app.store.db import make_engine
from app.store.models import Base, as_utc
from app.store.ports import Stores
from app.store.records import GameStart, TableRec, utcnow
from app.store.stores import open_stores
from tests.ports import free_port
from tests.server.harness import Database


def _join_sqlite_workers() -> None:
    """aiosqlite queues the close of a connection that failed to open without awaiting it; its
    worker thread then answers on this test's loop, which must still be open: wait for it here."""
    for thread in threading.enumerate():
        if thread.name.endswith("(_connection_worker_thread)"):
            thread.join(timeout=5)


def _settings(db: Database) -> Settings:
    return Settings(database_url=db.url, database_schema=db.schema)


@pytest.fixture
async def stores(database: Database) -> AsyncIterator[Stores]:
    settings = _settings(database)
    engine = make_engine(settings, database.url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
    finally:
        await engine.dispose()
    opened = open_stores(settings)
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_seat_another_writer_took_is_a_conflict(stores: Stores) -> None:
    table_id = new_id()
    async with stores.tables.write() as tx:
        await tx.add_table(TableRec(id=table_id, seats=3))
        await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token("a"))
    with pytest.raises(StoreConflict):
        async with stores.tables.write() as tx:
            await tx.add_seat(table_id, 0, "Bea", token_hash=hash_token("b"))
            await tx.update_table(table_id)
    rows = await stores.reads.table(table_id)
    assert [(s.seat, s.name) for s in rows.seats] == [(0, "Ann")]


async def test_a_join_writes_the_seat_only_at_an_open_table(stores: Stores) -> None:
    """`take_seat`, a join's one write (one statement on Postgres): the seat as the ORM writes
    one (a person, away until their page connects) and the table marked changed; a seat or a
    token taken meanwhile is `StoreConflict`; a table started (or closed) since the join read it
    gets nothing, and says so."""
    table_id, started = new_id(), new_id()
    async with stores.tables.write() as tx:
        for tid in (table_id, started):
            await tx.add_table(TableRec(id=tid, seats=3))
        await tx.update_table(started, status="playing")
    before = (await stores.reads.table(table_id)).table.updated_at
    now = utcnow()
    assert await stores.tables.take_seat(table_id, 1, "Ann", hash_token("ann"), now)
    rows = await stores.reads.table(table_id)
    (ann,) = rows.seats
    assert (ann.seat, ann.name, ann.bot, ann.stand_in) == (1, "Ann", False, False)
    assert ann.away_since is not None and ann.joined_at is not None and ann.seen_at is None
    assert as_utc(ann.away_since) == now == as_utc(rows.table.updated_at) and now > as_utc(before)
    arrival = await stores.arrivals.arrive(table_id, "ann", utcnow(), False, "t:@x", 0.0)
    assert arrival.seat_id == ann.id
    for seat, token in ((1, "bea"), (2, "ann")):  # the seat taken; the token taken
        with pytest.raises(StoreConflict):
            await stores.tables.take_seat(table_id, seat, "Bea", hash_token(token), utcnow())
    assert not await stores.tables.take_seat(started, 0, "Bea", hash_token("bea"), utcnow())
    assert (await stores.reads.table(started)).seats == []
    assert [s.name for s in (await stores.reads.table(table_id)).seats] == ["Ann"]


async def test_a_join_and_a_start_tell_the_other_processes_with_their_own_commit(
    stores: Stores, database: Database
) -> None:
    """On Postgres a join's lobby notice and a start's game notice go out in the write's own
    statement, at its commit, and only when it wrote (`Bus.told_at_commit`); SQLite's bus tells
    after the commit instead, with no payload to give."""
    table_id, started = new_id(), new_id()
    if database.backend == "sqlite":
        assert stores.bus.told_at_commit(table_id) is None
        assert stores.bus.told_at_commit(table_id, 0) is None
        return
    # Notices arrive in the order of their commits: the first heard is the first sent.
    own: asyncio.Queue[str] = asyncio.Queue()
    games: asyncio.Queue[tuple[str, int | None]] = asyncio.Queue()
    stores.bus.on_own = own.put_nowait
    await stores.bus.start(lambda t, v, _carried: games.put_nowait((t, v)), lambda: None)
    async with stores.tables.write() as tx:
        for tid in (table_id, started):
            await tx.add_table(TableRec(id=tid, seats=3))
        await tx.update_table(started, status="playing")

    tell = stores.bus.told_at_commit
    assert not await stores.tables.take_seat(
        started, 0, "Ann", hash_token("a0"), utcnow(), tell(started)
    )
    assert await stores.tables.take_seat(
        table_id, 0, "Ann", hash_token("a1"), utcnow(), tell(table_id)
    )
    assert await asyncio.wait_for(own.get(), 10) == table_id
    for seat, name in ((1, "Bea"), (2, "Cy")):  # untold
        await stores.tables.take_seat(table_id, seat, name, hash_token(name), utcnow(), None)
    state, opening = engine.start(players=3, seed=5)
    start = GameStart(
        game_id=new_id(), table_id=table_id, players=3, seed="5", seed_commitment="c",
        state=engine.dumps(state), opening=opening, deadline_at=None, deadline_key=None,
        now=utcnow(), tell=tell(table_id, 0),
    )  # fmt: skip
    assert await stores.tables.begin_game(start)
    assert not await stores.tables.begin_game(replace(start, game_id=new_id()))  # started
    assert not await stores.tables.take_seat(started, 1, "Di", hash_token("d"), utcnow(), None)
    await stores.bus.publish(started, 7)  # a marker after all of the above
    assert await asyncio.wait_for(games.get(), 10) == (table_id, 0)
    assert await asyncio.wait_for(games.get(), 10) == (started, 7)
    assert games.empty() and own.empty()


async def test_a_heartbeat_refreshes_its_seats_and_writes_away_those_nobody_refreshes(
    stores: Stores,
) -> None:
    """A process's heartbeat over many seats (one array parameter on Postgres, IN lists of 500 on
    SQLite): each is seen now and no longer away, the tables of those that were away or stale
    are returned, and a person's seat that no process refreshed is written away."""
    tables = [new_id() for _ in range(3)]
    now = utcnow()
    long_ago = now - stores.presence.stale * 2
    async with stores.tables.write() as tx:
        for tid in tables:
            await tx.add_table(TableRec(id=tid, seats=5))
        for n in range(600):  # more than one SQLite chunk
            await tx.add_table(TableRec(id=f"filler{n}", seats=3))
            await tx.add_seat(f"filler{n}", 0, "F", token_hash=hash_token(f"f{n}"), away_since=now)
    await stores.tables.take_seat(tables[0], 0, "Away", hash_token("away"), now)
    await stores.tables.take_seat(tables[1], 0, "Seen", hash_token("seen"), now)
    await stores.tables.take_seat(tables[2], 0, "Gone", hash_token("gone"), now)
    seats = {
        (await stores.reads.table(t)).seats[0].name: (await stores.reads.table(t)).seats[0]
        for t in tables
    }
    async with stores.tables.write() as tx:
        await tx.update_seat(seats["Seen"].id, seen_at=now, away_since=None)
        await tx.update_seat(seats["Gone"].id, seen_at=long_ago, away_since=None)
    fillers = [(await stores.reads.table(f"filler{n}")).seats[0].id for n in range(600)]
    beat = [seats["Away"].id, seats["Seen"].id, *fillers]
    changed = await stores.presence.heartbeat(beat)
    # Away came back; Gone, refreshed by nobody, is written away; Seen changed nothing.
    assert set(changed) >= {tables[0], tables[2]} and tables[1] not in changed
    after = {t: (await stores.reads.table(t)).seats[0] for t in tables}
    last = (await stores.reads.table("filler599")).seats[0]
    for seat in (after[tables[0]], after[tables[1]], last):
        assert seat.away_since is None and seat.seen_at is not None
        assert as_utc(seat.seen_at) >= now
    assert after[tables[2]].away_since is not None
    assert await stores.presence.heartbeat([]) == []


async def test_a_database_that_does_not_answer_is_unavailable(tmp_path: Path) -> None:
    # Nothing listens on the Postgres port; the SQLite file's folder does not exist.
    for url in (
        f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/none",
        f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'db.sqlite3'}",
    ):
        stores = open_stores(Settings(database_url=url))
        try:
            with pytest.raises(StoreUnavailable) as raised:
                await stores.reads.table(new_id())
            assert not isinstance(raised.value, SQLAlchemyError | OSError)
            with pytest.raises(StoreUnavailable):
                async with stores.tables.write() as tx:
                    await tx.add_table(TableRec(id=new_id(), seats=3))
            with pytest.raises(StoreUnavailable):
                await stores.presence.depart(new_id(), 1)
            with pytest.raises(StoreUnavailable):
                await stores.feeds.last_ids([new_id()])
            assert await stores.health.problem(2.0) is not None
        finally:
            await stores.close()
            _join_sqlite_workers()


async def test_an_arrival_reads_the_same_on_both_databases(stores: Stores) -> None:
    """One call, whichever database: the token checked, the seat written online, the table's rows
    and the feed's last lines read (Postgres: one statement; SQLite: several reads)."""
    table_id, other = new_id(), new_id()
    async with stores.tables.write() as tx:
        for tid in (table_id, other):
            await tx.add_table(TableRec(id=tid, seats=3))
        await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token("ann"), away_since=utcnow())
        await tx.add_seat(table_id, 1, "Bot 2", bot_kind="random", bot_seed="7")
        await tx.add_seat(other, 0, "Cid", token_hash=hash_token("cid"))
    for n in range(3):
        await stores.feeds.append(table_id, channel="players", seat=0, name="Ann", text_=f"hi {n}")
    now = utcnow()
    arrival = await stores.arrivals.arrive(table_id, "ann", now, True, f"{table_id}:@x", 5.0, 2)
    assert (arrival.seat, arrival.name, arrival.has_game, arrival.chat_last) == (0, "Ann", False, 3)
    assert [line.text for line in arrival.chat or []] == ["hi 1", "hi 2"]
    assert arrival.rows is not None and arrival.rows.read_at == 5.0
    assert arrival.rows.table.id == table_id and arrival.rows.game is None
    ann, bot = arrival.rows.seats
    assert (ann.id, ann.away_since, ann.seen_at) == (arrival.seat_id, None, now)
    assert (bot.name, bot.bot, bot.bot_kind) == ("Bot 2", True, "random")
    # Written: a read of the table says so too.
    stored = await stores.reads.table(table_id)
    assert stored.seats[0].away_since is None and stored.seats[0].seen_at is not None
    # Without the table or the chat when not asked for.
    again = await stores.arrivals.arrive(table_id, "ann", utcnow(), False, "t:@x", 6.0)
    assert (again.rows, again.chat, again.chat_last) == (None, None, 3)
    # A spectator's look, and a departure.
    look = await stores.arrivals.look(table_id, 7.0)
    assert (look.seat, look.rows is not None, look.chat_last) == (None, True, 3)
    assert arrival.seat_id is not None
    await stores.arrivals.depart(table_id, arrival.seat_id, utcnow(), "t:@x")
    assert (await stores.reads.table(table_id)).seats[0].away_since is not None
    # Refusals, in the read model's order.
    for table, token, code in (
        (new_id(), "ann", "not_found"),
        (table_id, "nobody", "invalid_token"),
        (table_id, "cid", "not_seated"),
    ):
        with pytest.raises(ServiceError) as refused:
            await stores.arrivals.arrive(table, token, utcnow(), True, "t:@x", 0.0)
        assert refused.value.code == code
    with pytest.raises(ServiceError) as refused:
        await stores.arrivals.look(new_id(), 0.0)
    assert refused.value.code == "not_found"


async def test_lines_written_at_once_take_every_number_once(stores: Stores) -> None:
    """A table's lines written all at once: numbered 1..n without a gap or a repeat, each with
    what it was given. On Postgres a line first tries one statement; those that find their number
    taken meanwhile take the locked way (the test fails if they are refused instead)."""
    table_id = new_id()
    async with stores.tables.write() as tx:
        await tx.add_table(TableRec(id=table_id, seats=3))
    lines = await asyncio.gather(
        *(
            stores.feeds.append(
                table_id, channel="notices", kind="joined", data={"n": n} if n % 2 else None
            )
            for n in range(40)
        )
    )
    assert sorted(line.id for line in lines) == list(range(1, 41))
    stored = await stores.feeds.after(table_id, 0)
    assert [line.id for line in stored] == list(range(1, 41))
    by_id = {line.id: line for line in lines}
    assert [(s.kind, s.data) for s in stored] == [
        (by_id[s.id].kind, by_id[s.id].data) for s in stored
    ]
    assert sorted(n for s in stored if s.data for n in s.data.values()) == list(range(1, 40, 2))


async def test_the_sweep_reads_the_versions_of_many_tables_in_one_call(stores: Stores) -> None:
    """`versions` (the safety sweep's one read, an array parameter on Postgres): the version of
    each table's game; a table without a game, or unknown, is left out."""
    started, waiting = new_id(), new_id()
    state, opening = engine.start(players=3, seed=5)
    async with stores.tables.write() as tx:
        for tid in (started, waiting):
            await tx.add_table(TableRec(id=tid, seats=3))
        await tx.start_game(
            GameStart(
                game_id=new_id(), table_id=started, players=3, seed="5", seed_commitment="x",
                state=engine.dumps(state), opening=opening, deadline_at=None, deadline_key=None,
                now=utcnow(),
            )
        )  # fmt: skip
    assert await stores.games.versions([started, waiting, new_id()]) == {started: 0}
    assert await stores.games.versions([]) == {}


async def test_a_start_writes_the_game_only_at_an_open_table_with_every_seat_taken(
    stores: Stores,
) -> None:
    """`begin_game`, a start's one write (one statement on Postgres): the game at version 0, the
    table playing and the bots' seeds of a known deal; nothing at all while a seat is empty or
    once the table has started."""
    table_id = new_id()
    async with stores.tables.write() as tx:
        await tx.add_table(TableRec(id=table_id, seats=3))
        await tx.add_seat(table_id, 0, "Ann", token_hash=hash_token("ann"))
        await tx.add_seat(table_id, 1, "Bea", token_hash=hash_token("bea"))
    state, opening = engine.start(players=3, seed=5)

    def start(game_id: str, bot_seeds: dict[int, str]) -> GameStart:
        return GameStart(
            game_id=game_id, table_id=table_id, players=3, seed="5", seed_commitment="c",
            state=engine.dumps(state), opening=opening, deadline_at=None, deadline_key=None,
            now=utcnow(), bot_seeds=bot_seeds,
        )  # fmt: skip

    assert not await stores.tables.begin_game(start(new_id(), {}))  # a seat is empty
    async with stores.tables.write() as tx:
        await tx.add_seat(table_id, 2, "Bot 3", bot_kind="random", bot_seed="1")
    bot = (await stores.reads.table(table_id)).seats[2]
    assert (await stores.reads.table(table_id)).table.status == "open"
    assert await stores.games.versions([table_id]) == {}

    game_id = new_id()
    assert await stores.tables.begin_game(start(game_id, {bot.id: "77"}))
    rows = await stores.reads.table(table_id)
    assert rows.table.status == "playing" and rows.game is not None and rows.game.id == game_id
    assert rows.seats[2].bot_seed == "77"
    stored = await stores.games.load(table_id)
    assert stored is not None and (stored.id, stored.version, stored.seed) == (game_id, 0, "5")
    assert (stored.state, stored.opening) == (engine.dumps(state), opening)
    # Started: a second start writes nothing.
    assert not await stores.tables.begin_game(start(new_id(), {bot.id: "88"}))
    assert (await stores.reads.table(table_id)).seats[2].bot_seed == "77"
    assert (await stores.games.load(table_id)).id == game_id  # type: ignore[union-attr]
