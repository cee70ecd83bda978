"""The matchmaking queue in the database: join, leave, read a ticket, accept bots, keep an entry
alive, and the matching pass that forms tables (app.lobby.queue_rule says who plays with whom).

Any process may match anyone: the pass runs in one transaction that first takes the queue's lock
(so passes of all processes run one after another) and then locks the waiting entries it reads
(app.store.queue). Each entry moves from `waiting` to `matched` through a guarded update (one row
or the whole transaction is rolled back), in the same transaction as the new table and its seats:
no player is seated twice, no table is formed from a player who left or was seated elsewhere.
The game is then started through the lobby's own start, with the first seat's token (its host).
"""

from __future__ import annotations

import hmac
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.core.config import Settings
from app.core.errors import Code, ServiceError
from app.core.schemas import TicketOut
from app.core.security import hash_token, new_id, new_seed, new_token
from app.lobby import queue_rule
from app.lobby.tables import Lobby
from app.lobby.tickets import QueueMessage, queue_message, ticket_out
from app.store.lobby_ports import QueueRead, QueueStore, QueueWrite
from app.store.records import QueueEntry, TableRec, as_utc, utcnow

log = logging.getLogger("dragonstones.queue")
# A table formed by the queue and not started this long after (its process died between the
# two steps) is started by the next pass.
_RESTART_AFTER = timedelta(seconds=5)


@dataclass(frozen=True)
class Formed:
    table_id: str
    host_token: str  # the first seat's: the lobby starts a table for a seated token
    tickets: tuple[str, ...]


class Matchmaker:
    def __init__(self, queue: QueueStore, lobby: Lobby, settings: Settings) -> None:
        self.queue = queue
        self.lobby = lobby
        self.settings = settings
        self.grace = timedelta(seconds=settings.queue_grace_seconds)

    # -- a player's calls ------------------------------------------------------------------------

    async def join(
        self, *, name: str, size: int | None, bots_after: int | None, address: str
    ) -> TicketOut:
        token = new_token()
        now = utcnow()
        async with self.queue.write() as tx:
            if await tx.waiting_from(address) >= self.settings.queue_max_per_address:
                raise ServiceError(
                    Code.TOO_MANY_TICKETS,
                    f"at most {self.settings.queue_max_per_address} players from one address "
                    "may wait in the queue",
                )
            entry = QueueEntry(
                id=new_id(),
                token_hash=hash_token(token),
                name=name,
                size=size,
                bots_after=(
                    self.settings.queue_bots_after_seconds if bots_after is None else bots_after
                ),
                address=address[:64],
                status="waiting",
                created_at=now,
                heartbeat_at=now,
                bots=0,
            )
            await tx.add_entry(entry)
        # Whoever joins may complete a table: match now, not at the next periodic pass.
        try:
            await self.match()
        except Exception as exc:  # the periodic pass will try again
            log.warning("matching pass after a join failed: %r", exc)
        out = await self.ticket(entry.id, token)
        out.token = token
        return out

    @staticmethod
    async def _own(tx: QueueRead, ticket: str, token: str | None, lock: bool = False) -> QueueEntry:
        if not token:
            raise ServiceError(
                Code.MISSING_TOKEN, "send your ticket's token (Authorization: Bearer ...)"
            )
        entry = await tx.entry(ticket, lock=lock)
        if entry is None:
            raise ServiceError(Code.TICKET_NOT_FOUND, "there is no such ticket in the queue")
        if not hmac.compare_digest(entry.token_hash, hash_token(token)):
            raise ServiceError(Code.INVALID_TOKEN, "this token is not the ticket's")
        return entry

    async def ticket(self, ticket: str, token: str | None) -> TicketOut:
        async with self.queue.read() as tx:
            entry = await self._own(tx, ticket, token)
            counts = await tx.waiting_by_size(utcnow(), self.grace)
        return ticket_out(entry, counts, self.grace)

    async def leave(self, ticket: str, token: str | None) -> TicketOut:
        now = utcnow()
        async with self.queue.write() as tx:
            entry = await self._own(tx, ticket, token)
            # Guarded: a pass that seated this entry meanwhile wins, and the player is told.
            left = await tx.leave(ticket, now)
            entry = await tx.entry(ticket) or entry
            if not left:
                self._refuse_unless_waiting(entry)
        return ticket_out(entry, Counter(), self.grace)

    @staticmethod
    def _refuse_unless_waiting(entry: QueueEntry) -> None:
        if entry.status == "matched":
            raise ServiceError(
                Code.ALREADY_MATCHED, "this ticket already has a seat; read it with GET"
            )
        if entry.status != "waiting":
            raise ServiceError(Code.LEFT_QUEUE, "this ticket has left the queue")

    async def accept_bots(
        self, ticket: str, token: str | None, kind: str = "heuristic"
    ) -> TicketOut:
        """A table of the player's size (any: 4) now: the player, the waiting players who fit,
        and bots in the other seats."""
        now = utcnow()
        async with self.queue.write(locked=True) as tx:
            entry = await self._own(tx, ticket, token, lock=True)
            self._refuse_unless_waiting(entry)
            left = as_utc(entry.created_at) + timedelta(seconds=entry.bots_after) - now
            if left.total_seconds() > 0:
                raise ServiceError(
                    Code.BOTS_NOT_YET,
                    f"bots may be accepted in {left.total_seconds():.0f} s (the wait you chose)",
                )
            size = entry.size or queue_rule.DEFAULT_BOTS_SIZE
            others = [e for e in await tx.live(now, self.grace) if e.id != entry.id]
            group = queue_rule.gather(entry, size, others)
            group.sort(key=lambda e: (as_utc(e.created_at), e.id))
            formed = await self._form(tx, size, group, now, bot_kind=kind)
            entry = await tx.entry(ticket) or entry
        await self._start(formed)
        return ticket_out(entry, Counter(), self.grace)

    # -- sockets keep entries alive ----------------------------------------------------------------

    async def heartbeat(self, tickets: Sequence[str]) -> None:
        await self.queue.heartbeat(tickets, utcnow())

    async def socket_closed(self, ticket: str) -> None:
        """The last socket of this ticket here closed: not matched until one comes back; it
        leaves after the grace (a page reload comes back sooner)."""
        await self.queue.socket_closed(ticket, utcnow())

    # -- the matching pass -------------------------------------------------------------------------

    async def anyone_waiting(self) -> bool:
        """One cheap read: whether a matching pass has anything to do."""
        return await self.queue.anyone_waiting()

    async def match(self) -> list[Formed]:
        """Expire entries whose sockets are gone, form every table the queue can fill, start
        them, start any queue table a crashed process left unstarted, and delete the entries
        ended long ago."""
        now = utcnow()
        formed: list[Formed] = []
        keep = timedelta(minutes=self.settings.queue_keep_minutes)
        async with self.queue.write(locked=True) as tx:
            await tx.expire(now, self.grace, keep)
            for size, group in queue_rule.plan(await tx.live(now, self.grace)):
                formed.append(await self._form(tx, size, group, now))
            stranded = await tx.stranded(now, _RESTART_AFTER)
        for table in formed:
            await self._start(table)
        for table_id, host_token in stranded:
            await self._start(Formed(table_id, host_token, ()), quiet=True)
        return formed

    async def _form(
        self,
        tx: QueueWrite,
        size: int,
        group: list[QueueEntry],
        now: datetime,
        bot_kind: str | None = None,
    ) -> Formed:
        """A public table of `size`: the group's players in queue order, bots in the rest."""
        table_id = new_id()
        limits = self.settings.default_limits()
        await tx.add_table(
            TableRec(
                id=table_id,
                seats=size,
                turn_seconds=limits["turn_seconds"],
                choose_seconds=limits["choose_seconds"],
            )
        )
        host_token = ""
        bots = size - len(group)
        for seat, entry in enumerate(group):
            token = new_token()
            host_token = host_token or token
            await tx.add_seat(table_id, seat, entry.name, token_hash=hash_token(token))
            seated = await tx.matched(
                entry.id, table_id=table_id, seat=seat, seat_token=token, bots=bots, now=now
            )
            if not seated:
                # Never with the queue's lock held; should it happen, nothing is kept.
                raise ServiceError(Code.CONFLICT, "the queue changed meanwhile; try again")
        for seat in range(len(group), size):
            await tx.add_seat(
                table_id,
                seat,
                f"Bot {seat + 1}",
                bot_kind=bot_kind or self.settings.default_bot_kind,
                bot_seed=str(new_seed()),
            )
        log.info(
            "queue formed table %s: %d seats, %d players, %d bots", table_id, size, len(group), bots
        )
        return Formed(table_id, host_token, tuple(e.id for e in group))

    async def _start(self, formed: Formed, quiet: bool = False) -> None:
        try:
            await self.lobby.start(table_id=formed.table_id, token=formed.host_token)
        except ServiceError as exc:
            if exc.code != Code.ALREADY_STARTED:
                log.warning("starting queue table %s failed: %s", formed.table_id, exc)
        except Exception as exc:  # the next pass starts it (see _stranded)
            if not quiet:
                log.warning("starting queue table %s failed: %r", formed.table_id, exc)

    # -- what a ticket's holder is told ------------------------------------------------------------

    async def messages(self, tickets: Sequence[str]) -> dict[str, QueueMessage]:
        """The message each ticket's sockets should show now (two queries for any number)."""
        if not tickets:
            return {}
        now = utcnow()
        async with self.queue.read() as tx:
            entries = await tx.entries(tickets)
            counts = await tx.waiting_by_size(now, self.grace)
        return {e.id: queue_message(e, counts, self.grace) for e in entries}
