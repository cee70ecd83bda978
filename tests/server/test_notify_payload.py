"""A commit's notification carries the action (app.store.games.notify_payload, read back by
app.store.bus.parse); one too long for NOTIFY's 8000 bytes carries only the version."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson

from app.store.bus import parse, parse_chat
from app.store.games import NOTIFY_LIMIT, notify_payload
from app.store.records import Carried, Commit


def _commit(events: list[dict[str, object]], action_id: str = "ann-1") -> Commit:
    return Commit(
        game_id="g", table_id="T1", version=7, seat=2,
        action={"type": "bid", "fairy_gold": 1, "common_gold": 0, "amulet": False, "black_magic": False},
        action_id=action_id, events=events, state=None, winner=None, over=False,
        deadline_at=datetime(2026, 12, 1, 12, 0, 1, 250000, tzinfo=UTC), deadline_key="bid-v7",
    )  # fmt: skip


def _payload(c: Commit) -> str:
    return notify_payload(c, orjson.dumps(c.action).decode(), orjson.dumps(c.events).decode())


def test_a_commit_notification_carries_its_action() -> None:
    # An action_id with the separators of the payload in it still reads back whole.
    c = _commit([{"type": "bid_submitted", "seat": 2, "text": 'Bea: "1, 2"'}], 'a:b,"c"]')
    table_id, version, carried = parse(_payload(c)) or ("", None, None)
    assert (table_id, version) == ("T1", 7)
    assert carried == Carried(
        seat=2, action_id='a:b,"c"]', action=c.action, events=c.events,
        deadline_at=c.deadline_at.timestamp() if c.deadline_at else None, deadline_key="bid-v7",
    )  # fmt: skip


def test_an_action_too_long_for_notify_carries_only_its_version() -> None:
    c = _commit([{"type": "note", "text": "x" * 500}] * 20)
    payload = _payload(c)
    assert payload == "T1:7"
    assert parse(payload) == ("T1", 7, None)
    fits = _commit([{"type": "note", "text": "x" * 100}] * 10)
    assert len(_payload(fits).encode()) <= NOTIFY_LIMIT and parse(_payload(fits))[2] is not None  # type: ignore[index]


def test_lobby_presence_and_chat_payloads() -> None:
    assert parse("T1:") == ("T1", None, None)
    assert parse("T1:@a1b2c3") == ("T1", None, None)  # a presence change of some process
    assert parse("T1:chat:4") is None
    assert parse_chat("T1:chat:4") == ("T1", 4)
    assert parse("T1:7:not json") == ("T1", 7, None)  # read back instead
