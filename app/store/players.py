"""Players as stored (app.store.player_ports.PlayerStore): a player, the hashes of their
browsers' secrets and of their one-time sign-in links, and the seats they took. The same SQL on
both databases: a link is redeemed by one guarded UPDATE, so that two browsers racing with the
same link cannot both sign in."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, delete, select, update

from app.store.db import Database
from app.store.errors import mapped
from app.store.models import SeatRow, TableRow, as_utc, utcnow
from app.store.player_ports import ClaimOutcome, HeldSeat, PlayerRec
from app.store.player_rows import PlayerClaimRow, PlayerRow, PlayerSecretRow
from app.store.reads import reading
from app.store.tables import one_row

# Built once: building these cost more CPU than Postgres takes to answer them. Every
# signed-in request reads the first.
_BY_SECRET = (
    select(PlayerRow)
    .join(PlayerSecretRow, PlayerSecretRow.player_id == PlayerRow.id)
    .where(PlayerSecretRow.hash == bindparam("hash"))
)

# "My games" reads it on every first page.
_SEATS_OF = (
    select(SeatRow.id, SeatRow.table_id, SeatRow.seat, SeatRow.name, TableRow.status)
    .join(TableRow, TableRow.id == SeatRow.table_id)
    .where(SeatRow.player_id == bindparam("player"), TableRow.status.in_(("open", "playing")))
    .order_by(TableRow.updated_at.desc())
    .limit(50)
)
_SEATS_OF_AT = _SEATS_OF.where(SeatRow.table_id == bindparam("table"))


def _rec(row: PlayerRow) -> PlayerRec:
    return PlayerRec(id=row.id, name=row.name, created_at=as_utc(row.created_at))


@mapped
class SqlPlayers:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(self, player_id: str, secret_hash: str, now: datetime) -> PlayerRec:
        async with self.db.write() as session:
            row = PlayerRow(id=player_id, name=None, created_at=now, seen_at=now)
            session.add(row)
            await session.flush()
            session.add(
                PlayerSecretRow(hash=secret_hash, player_id=player_id, created_at=now, used_at=now)
            )
        return _rec(row)

    async def by_secret(self, secret_hash: str) -> PlayerRec | None:
        async with reading(self.db) as session:
            row = await session.scalar(_BY_SECRET, {"hash": secret_hash})
        return _rec(row) if row is not None else None

    async def player(self, player_id: str) -> PlayerRec | None:
        async with reading(self.db) as session:
            row = await session.get(PlayerRow, player_id)
        return _rec(row) if row is not None else None

    async def rename(self, player_id: str, name: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(PlayerRow).where(PlayerRow.id == player_id).values(name=name)
            )

    async def add_secret(self, player_id: str, secret_hash: str, now: datetime) -> None:
        async with self.db.write() as session:
            session.add(
                PlayerSecretRow(hash=secret_hash, player_id=player_id, created_at=now, used_at=now)
            )

    async def drop_secret(self, secret_hash: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                delete(PlayerSecretRow).where(PlayerSecretRow.hash == secret_hash)
            )

    async def drop_secrets(self, player_id: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                delete(PlayerSecretRow).where(PlayerSecretRow.player_id == player_id)
            )
            await session.execute(
                delete(PlayerClaimRow).where(
                    PlayerClaimRow.player_id == player_id, PlayerClaimRow.used_at.is_(None)
                )
            )

    async def add_claim(self, player_id: str, claim_hash: str, expires_at: datetime) -> None:
        async with self.db.write() as session:
            session.add(
                PlayerClaimRow(
                    hash=claim_hash, player_id=player_id, created_at=utcnow(), expires_at=expires_at
                )
            )

    async def use_claim(self, claim_hash: str, now: datetime) -> tuple[ClaimOutcome, str | None]:
        async with self.db.write() as session:
            redeemed = await session.execute(
                update(PlayerClaimRow)
                .where(
                    PlayerClaimRow.hash == claim_hash,
                    PlayerClaimRow.used_at.is_(None),
                    PlayerClaimRow.expires_at > now,
                )
                .values(used_at=now)
            )
            row = await session.get(PlayerClaimRow, claim_hash)
        if row is None:
            return "unknown", None
        if one_row(redeemed):
            return "ok", row.player_id
        return ("used" if row.used_at is not None else "expired"), None

    async def link_seat(self, table_id: str, token_hash: str, player_id: str) -> bool:
        async with self.db.write() as session:
            result = await session.execute(
                update(SeatRow)
                .where(
                    SeatRow.table_id == table_id,
                    SeatRow.token_hash == token_hash,
                    SeatRow.bot.is_(False),
                    (SeatRow.player_id.is_(None)) | (SeatRow.player_id == player_id),
                )
                .values(player_id=player_id)
            )
        return one_row(result)

    async def seats_of(self, player_id: str, table_id: str | None = None) -> list[HeldSeat]:
        query, params = _SEATS_OF, {"player": player_id}
        if table_id is not None:
            query, params["table"] = _SEATS_OF_AT, table_id
        async with reading(self.db) as session:
            rows = (await session.execute(query, params)).all()
        return [HeldSeat(*row) for row in rows]

    async def set_seat_token(self, seat_id: int, token_hash: str) -> None:
        async with self.db.write() as session:
            await session.execute(
                update(SeatRow).where(SeatRow.id == seat_id).values(token_hash=token_hash)
            )
