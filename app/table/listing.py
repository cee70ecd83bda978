"""A table as the lobby and the table's sockets show it (`TableOut`): its stored rows (the store's
read model, app.store.queries), with who is online as the database says and as this process's
sockets say, the host, the links; and the lobby's lists of tables built the same way."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from typing import Protocol

import engine
from app.core.schemas import PlayerOut, TableOut
from app.store.lobby_ports import ReadModel
from app.store.presence import away_since, grace_seconds, host_seat, is_online, last_active
from app.store.records import GameRef, SeatRec, TableRec, TableRows, as_utc, utcnow


class Here(Protocol):
    """What this process knows that the database does not (the hub, app.table.hub)."""

    def online_seats(self, table_id: str) -> set[int]:
        """The seats with a socket open here."""
        ...

    def online_tables(self) -> Collection[str]:
        """The tables where a seated person has a socket open here."""
        ...

    def live_states(self) -> Mapping[str, tuple[int, engine.State]]:
        """table -> (version, state) of each game played here."""
        ...


class Listing:
    def __init__(
        self, reads: ReadModel, here: Here, *, public_url: str | None, stale: timedelta
    ) -> None:
        self.reads = reads
        self.here = here
        self.public_url = public_url  # PUBLIC_URL: invite links are built on it
        # A seat whose process has not refreshed its presence for this long is away.
        self.stale = stale

    def online_now(self, table_id: str, seats: list[SeatRec], now: datetime) -> set[int]:
        """Seats of people with a socket open now: on this process, or on another as the
        database says."""
        here = self.here.online_seats(table_id)
        return {
            s.seat for s in seats if not s.bot and (s.seat in here or is_online(s, now, self.stale))
        }

    def out(self, table: TableRec, seats: list[SeatRec], game: GameRef | None) -> TableOut:
        now = utcnow()
        online = self.online_now(table.id, seats, now)
        url = self.public_url
        return TableOut(
            id=table.id,
            seats=table.seats,
            taken=len(seats),
            public=table.public,
            turn_seconds=table.turn_seconds,
            choose_seconds=table.choose_seconds,
            grace_seconds=grace_seconds(table),
            stand_in_kind=table.stand_in_kind,
            status=table.status,
            players=[
                PlayerOut(
                    seat=s.seat,
                    name=s.name,
                    bot=s.bot,
                    connected=s.bot or s.seat in online,
                    away_since=None if s.seat in online else away_since(s, now, self.stale),
                    stand_in=bool(s.stand_in),
                    bot_kind=s.bot_kind if s.bot or s.stand_in else None,
                )
                for s in seats
            ],
            game_id=game.id if game else None,
            winner=game.winner if game else None,
            invite_path=f"/t/{table.id}",
            watch_path=f"/t/{table.id}?watch=1",
            invite_url=f"{url}/t/{table.id}" if url else None,
            watch_url=f"{url}/t/{table.id}?watch=1" if url else None,
            created_at=as_utc(table.created_at),
            host=host_seat(seats),
            online=len(online),
            last_active=last_active(table, seats, now, self.stale),
            rematch_id=table.rematch_id,
            rematch_path=f"/t/{table.rematch_id}" if table.rematch_id else None,
        )

    def of(self, rows: TableRows) -> TableOut:
        return self.out(rows.table, rows.seats, rows.game)

    async def table(self, table_id: str) -> TableOut:
        """The table as stored now (a `ServiceError` not_found when there is none)."""
        return self.of(await self.reads.table(table_id))

    async def open_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables that have not started and still have a free seat (app.store.lobby_ports
        `ReadModel.open_tables` says in which order)."""
        rows = await self.reads.open_tables(limit, self.here.online_tables())
        return [self.of(r) for r in rows]

    async def playing_tables(self, limit: int = 100) -> list[TableOut]:
        """Public tables whose game is being played (games to watch), the most recently active
        first, with each player's score and the turn from the game's public view."""
        here = self.here
        out = []
        for rows, state in await self.reads.playing_tables(
            limit, here.online_tables(), here.live_states()
        ):
            # Scores are public: read from the public view of the current state.
            view = engine.view(state, None)
            scores = {p["seat"]: p["score"] for p in view["players"]}
            listed = self.of(rows)
            for player in listed.players:
                player.score = scores.get(player.seat)
            listed.turn = view["turn"]
            out.append(listed)
        return out
