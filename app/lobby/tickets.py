"""What a queue ticket's holder is told: the ticket as the HTTP routes return it, and the message
its sockets show (waiting for a table of some size, matched with a seat, or left). Pure: the
matchmaker reads the rows and counts, these shape them."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from app.core.messages import MatchedOut, QueueLeftOut, QueueOut
from app.core.schemas import TicketOut
from app.lobby import queue_rule
from app.store.records import QueueEntry, as_utc, utcnow

QueueMessage = QueueOut | MatchedOut | QueueLeftOut


def queue_message(entry: QueueEntry, counts: Counter[int | None], grace: timedelta) -> QueueMessage:
    """The message a ticket's sockets show now."""
    out = ticket_out(entry, counts, grace)
    if out.status == "matched":
        assert out.table_id is not None and out.seat is not None
        return MatchedOut(
            ticket=out.ticket,
            table_id=out.table_id,
            seat=out.seat,
            token=out.seat_token or "",
            bots=out.bots,
        )
    if out.status == "left":
        return QueueLeftOut(ticket=out.ticket, reason=out.reason or "left")
    assert out.target is not None and out.waiting is not None
    return QueueOut(
        ticket=out.ticket,
        size=out.size,
        target=out.target,
        waiting=out.waiting,
        needed=max(0, out.target - out.waiting),
        bots_at=out.bots_at,
        can_accept_bots=out.bots_at <= utcnow().timestamp(),
    )


def ticket_out(entry: QueueEntry, counts: Counter[int | None], grace: timedelta) -> TicketOut:
    """A ticket as its holder reads it; a waiting one with the size of table it waits for."""
    bots_at = as_utc(entry.created_at) + timedelta(seconds=entry.bots_after)
    out = TicketOut(
        ticket=entry.id,
        status=entry.status,
        name=entry.name,
        size=entry.size or "any",
        bots_after=entry.bots_after,
        bots_at=bots_at.timestamp(),
    )
    if entry.status == "waiting":
        counts = Counter(counts)
        live = entry.closed_at is None and as_utc(entry.heartbeat_at) >= utcnow() - grace
        if not live:  # this player is counted, whatever their socket is doing
            counts[entry.size] += 1
        out.target, out.waiting = queue_rule.target(entry.size, counts)
    elif entry.status == "matched":
        out.table_id, out.seat, out.seat_token = entry.table_id, entry.seat, entry.seat_token
        out.bots = entry.bots
    else:
        out.reason = entry.left_reason
    return out
