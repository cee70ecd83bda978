"""Web Push as stored (app.store.push_ports.PushStore): the server's VAPID key pair, players'
subscriptions, the people seated at a table with their stored presence, and the rate limit of
pushes per player and table. The same SQL on both databases; a race between processes (two
storing the first key pair, two claiming the same push) is settled by the primary key."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from app.store.db import Database
from app.store.errors import CONFLICTS, mapped
from app.store.models import SeatRow, as_utc
from app.store.push_ports import Seated, SeatedPerson, Subscription, VapidKeys
from app.store.push_rows import PushKeyRow, PushSentRow, PushSubscriptionRow
from app.store.tables import one_row

KEY_ROW = 1


def endpoint_hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()


@mapped
class SqlPush:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def _stored_keys(self) -> VapidKeys | None:
        async with self.db.sessions() as session:
            row = await session.get(PushKeyRow, KEY_ROW)
        return VapidKeys(row.private_key, row.public_key) if row is not None else None

    async def keys(self, make: Callable[[], VapidKeys], now: datetime) -> VapidKeys:
        stored = await self._stored_keys()
        if stored is not None:
            return stored
        made = make()
        try:
            async with self.db.write() as session:
                session.add(
                    PushKeyRow(
                        id=KEY_ROW,
                        private_key=made.private_key,
                        public_key=made.public_key,
                        created_at=now,
                    )
                )
        except CONFLICTS:
            pass  # another process stored its pair first: that one is everyone's
        stored = await self._stored_keys()
        assert stored is not None
        return stored

    async def subscribe(
        self, player_id: str, secret_hash: str, sub: Subscription, now: datetime, keep: int
    ) -> None:
        key = endpoint_hash(sub.endpoint)
        async with self.db.write() as session:
            # A browser's endpoint belongs to whoever subscribed with it last.
            await session.execute(
                delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint_hash == key)
            )
            await session.flush()
            session.add(
                PushSubscriptionRow(
                    endpoint_hash=key,
                    player_id=player_id,
                    endpoint=sub.endpoint,
                    p256dh=sub.p256dh,
                    auth=sub.auth,
                    secret_hash=secret_hash,
                    created_at=now,
                )
            )
            await session.flush()
            old = (
                await session.scalars(
                    select(PushSubscriptionRow.endpoint_hash)
                    .where(PushSubscriptionRow.player_id == player_id)
                    .order_by(PushSubscriptionRow.created_at.desc())
                    .offset(keep)
                )
            ).all()
            if old:
                await session.execute(
                    delete(PushSubscriptionRow).where(PushSubscriptionRow.endpoint_hash.in_(old))
                )

    async def forget_browser(self, secret_hash: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                delete(PushSubscriptionRow).where(PushSubscriptionRow.secret_hash == secret_hash)
            )

    async def forget_player(self, player_id: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                delete(PushSubscriptionRow).where(PushSubscriptionRow.player_id == player_id)
            )

    async def unsubscribe(self, player_id: str, endpoint: str) -> bool:
        async with self.db.write() as session:
            result = await session.execute(
                delete(PushSubscriptionRow).where(
                    PushSubscriptionRow.endpoint_hash == endpoint_hash(endpoint),
                    PushSubscriptionRow.player_id == player_id,
                )
            )
        return one_row(result)

    async def drop(self, endpoint: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                delete(PushSubscriptionRow).where(
                    PushSubscriptionRow.endpoint_hash == endpoint_hash(endpoint)
                )
            )

    async def subscriptions(self, player_id: str) -> list[Subscription]:
        async with self.db.sessions() as session:
            rows = (
                await session.scalars(
                    select(PushSubscriptionRow).where(PushSubscriptionRow.player_id == player_id)
                )
            ).all()
        return [Subscription(r.endpoint, r.p256dh, r.auth) for r in rows]

    async def seated(self, table_id: str, now: datetime, stale: timedelta) -> Seated:
        # Once per move whose seats are not all known online: the columns alone, through a
        # Core connection (no ORM objects, no session to close).
        query = select(
            SeatRow.id, SeatRow.seat, SeatRow.name, SeatRow.player_id, SeatRow.stand_in,
            SeatRow.away_since, SeatRow.seen_at, SeatRow.joined_at,
        ).where(SeatRow.table_id == table_id, SeatRow.bot.is_(False))  # fmt: skip
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        # The host: the earliest seated person (app.store.presence.host_seat).
        first = min(rows, key=lambda r: (as_utc(r.joined_at), r.id), default=None)
        return Seated(
            host=first.name if first is not None else None,
            people=[
                SeatedPerson(
                    seat=r.seat,
                    name=r.name,
                    player_id=r.player_id,
                    stand_in=r.stand_in,
                    online=r.away_since is None
                    and r.seen_at is not None
                    and as_utc(r.seen_at) >= now - stale,
                )
                for r in rows
            ],
        )

    async def claim(self, player_id: str, table_id: str, now: datetime, every: timedelta) -> bool:
        where = (PushSentRow.player_id == player_id, PushSentRow.table_id == table_id)
        try:
            async with self.db.write() as session:
                renewed = await session.execute(
                    update(PushSentRow)
                    .where(*where, PushSentRow.sent_at <= now - every)
                    .values(sent_at=now)
                )
                if one_row(renewed):
                    return True
                if await session.get(PushSentRow, (player_id, table_id)) is not None:
                    return False  # pushed about this table within `every`
                session.add(PushSentRow(player_id=player_id, table_id=table_id, sent_at=now))
        except CONFLICTS:
            return False  # another process claimed it a moment ago
        return True
