"""Table chat and server notices, with real server processes, sockets and databases:
lines reach every seat in order, survive a reconnection, are refused beyond the limits, the
spectators' channel reaches a player only once shown, lines cross processes, notices reach all."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    bearer,
    create_table,
    db_rows,
    join,
)

# Scripted chatters type faster than people: the per-socket limit is raised, except where tested.
FAST_CHAT = {"CHAT_LINES_PER_WINDOW": "1000"}


@dataclass(eq=False)
class ChatClient(SeatClient):
    chat_since: int | None = None
    viewer: str | None = None

    def url(self, since: int | None) -> str:
        url = super().url(since)
        extra = []
        if self.chat_since is not None:
            extra.append(f"chat_since={self.chat_since}")
        if self.viewer is not None:
            extra.append(f"viewer={self.viewer}")
        if not extra:
            return url
        return url + ("&" if "?" in url else "?") + "&".join(extra)

    def lines(self) -> list[dict[str, Any]]:
        """Every line received, batches and live ones, by id (as the client merges them)."""
        seen: dict[int, dict[str, Any]] = {}
        for m in self.messages:
            if m["type"] == "chat":
                seen[m["line"]["id"]] = m["line"]
            elif m["type"] == "chat_lines":
                seen.update({line["id"]: line for line in m["lines"]})
        return [seen[i] for i in sorted(seen)]

    def live(self) -> list[dict[str, Any]]:
        return [m["line"] for m in self.messages if m["type"] == "chat"]

    async def say(self, text: Any, **extra: Any) -> None:
        await self.send_json({"type": "chat", "text": text, **extra})

    async def wait_line(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        for line in self.lines():
            if predicate(line):
                return line
        m = await self.wait_for(
            lambda m: (
                (m["type"] == "chat" and predicate(m["line"]))
                or (m["type"] == "chat_lines" and any(predicate(x) for x in m["lines"]))
            ),
            timeout=timeout,
        )
        return m["line"] if m["type"] == "chat" else next(x for x in m["lines"] if predicate(x))

    async def wait_error(self, timeout: float = 10.0) -> dict[str, Any]:
        return await self.wait_for(lambda m: m["type"] == "error", timeout=timeout)


async def connected(base_ws: str, table_id: str, token: str | None, seat: int | None,
                    **kw: Any) -> ChatClient:  # fmt: skip
    client = ChatClient(base_ws, table_id, token, seat, **kw)
    await client.connect()
    await client.wait_for(lambda m: m["type"] == "chat_lines")
    return client


async def seated_table(http: httpx.AsyncClient, names: tuple[str, ...]) -> tuple[str, list[Any]]:
    table_id = await create_table(http, max(3, len(names)))
    return table_id, [await join(http, table_id, n) for n in names]


def text_of(lines: list[dict[str, Any]], channel: str = "players") -> list[str]:
    return [line["text"] for line in lines if line["channel"] == channel]


async def test_lines_reach_every_seat_in_order(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, seats = await seated_table(http, ("Ann", "Bob", "Cat"))
    clients = [await connected(server.ws, table_id, s.token, s.seat) for s in seats]
    watcher = await connected(server.ws, table_id, None, None)
    # Everyone talks at once: every socket sees one order, the feed's.
    await asyncio.gather(*(
        c.say(f"{s.name} {i}") for i in range(6) for c, s in zip(clients, seats, strict=True)
    ))  # fmt: skip
    for c in (*clients, watcher):
        while len(text_of(c.lines())) < 18:
            await c.recv()
    first = [line for line in clients[0].lines() if line["channel"] == "players"]
    assert [line["id"] for line in first] == sorted(line["id"] for line in first)
    for c in (*clients, watcher):
        mine = [line for line in c.live() if line["channel"] == "players"]
        assert [(x["id"], x["text"]) for x in mine] == [(x["id"], x["text"]) for x in first]
    for seat in seats:
        said = [x for x in first if x["seat"] == seat.seat]
        assert [x["text"] for x in said] == [f"{seat.name} {i}" for i in range(6)]
        assert {x["name"] for x in said} == {seat.name}  # the stored name, never the client's
    rows = await db_rows(
        database, "SELECT seq, text FROM table_messages WHERE table_id = :t AND channel = 'players'"
        " ORDER BY seq", t=table_id,
    )  # fmt: skip
    assert [(r.seq, r.text) for r in rows] == [(x["id"], x["text"]) for x in first]
    for c in (*clients, watcher):
        await c.close()


async def test_reconnection_replays_missed_lines(database: Database, server_factory: Any) -> None:
    server: ServerProcess = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, (ann, bob) = await seated_table(http, ("Ann", "Bob"))
    a = await connected(server.ws, table_id, ann.token, ann.seat)
    b = await connected(server.ws, table_id, bob.token, bob.seat)
    await a.say("before")
    seen = await a.wait_line(lambda x: x.get("text") == "before")
    await a.close()
    for i in range(3):
        await b.say(f"missed {i}")
    await b.wait_line(lambda x: x.get("text") == "missed 2")
    # Back with the last line seen: exactly the lines missed.
    again = await connected(server.ws, table_id, ann.token, ann.seat, chat_since=seen["id"])
    batch = next(m for m in again.messages if m["type"] == "chat_lines")
    assert [x["text"] for x in batch["lines"]] == ["missed 0", "missed 1", "missed 2"]
    assert batch["last"] == batch["lines"][-1]["id"]
    # Then live lines continue after it.
    await b.say("live")
    line = await again.wait_line(lambda x: x.get("text") == "live")
    assert line["id"] == batch["last"] + 1
    # Without chat_since: the last 100 lines (here all of them, the "joined" notices too).
    fresh = await connected(server.ws, table_id, ann.token, ann.seat)
    assert text_of(fresh.lines()) == ["before", "missed 0", "missed 1", "missed 2", "live"]
    # A chat_since that is not a line id is refused like `since`.
    bad = ChatClient(server.ws, table_id, ann.token, ann.seat, chat_since=None)
    bad.url = lambda since: f"{server.ws}/ws/tables/{table_id}?chat_since=x1"  # type: ignore
    await bad.connect()
    error = await bad.wait_error()
    assert error["code"] == "invalid_since"
    for c in (a, b, again, fresh, bad):
        await c.close()


async def test_last_hundred_lines_without_chat_since(
    sqlite_db: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(sqlite_db, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, (ann,) = await seated_table(http, ("Ann",))
    a = await connected(server.ws, table_id, ann.token, ann.seat)
    for i in range(120):
        await a.say(f"line {i}")
    await a.wait_line(lambda x: x.get("text") == "line 119")
    fresh = await connected(server.ws, table_id, ann.token, ann.seat)
    batch = next(m for m in fresh.messages if m["type"] == "chat_lines")
    assert len(batch["lines"]) == 100
    assert batch["lines"][-1]["text"] == "line 119"
    assert batch["lines"][0]["text"] == "line 20"
    await a.close()
    await fresh.close()


async def test_refused_beyond_the_limits(sqlite_db: Database, server_factory: Any) -> None:
    # The production limit: 5 lines per 10 seconds per socket.
    server: ServerProcess = server_factory(sqlite_db)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, (ann,) = await seated_table(http, ("Ann",))
    a = await connected(server.ws, table_id, ann.token, ann.seat)
    watcher = await connected(server.ws, table_id, None, None)
    refusals = [
        ("x" * 301, "chat_too_long"),
        ("x" * 5000, "chat_too_long"),
        ("", "chat_empty"),
        ("   \n\t ", "chat_empty"),
        ("\x00\x07", "chat_empty"),
        (42, "invalid_message"),
        (None, "invalid_message"),
        (["hi"], "invalid_message"),
    ]
    for text, code in refusals:
        await a.say(text)
        error = await a.wait_error()
        assert error["code"] == code, (text, error)
    await a.send_json({"type": "chat", "text": "hi", "name": "Server"})  # no client-sent names
    assert (await a.wait_error())["code"] == "invalid_message"
    # A spectator may not post to the players, nor a player to the spectators.
    await watcher.say("hello players", channel="players")
    assert (await watcher.wait_error())["code"] == "chat_channel"
    await a.say("hello watchers", channel="spectators")
    assert (await a.wait_error())["code"] == "chat_channel"
    # 300 characters pass (after trimming); control characters are removed, breaks are spaces.
    await a.say("  " + "y" * 300 + "  ")
    await a.wait_line(lambda x: x.get("text") == "y" * 300)
    await a.say("one\ntwo\x00three\u202e")
    await a.wait_line(lambda x: x.get("text") == "one twothree")
    # The rate limit: 5 lines per window; the 6th is refused and the socket stays open.
    for i in range(3):
        await a.say(f"ok {i}")
    await a.say("one too many")
    assert (await a.wait_error())["code"] == "chat_rate_limited"
    await a.send_json({"type": "ping"})
    await a.wait_for(lambda m: m["type"] == "pong")
    rows = await db_rows(
        sqlite_db, "SELECT text FROM table_messages WHERE table_id = :t AND channel != 'notices'"
        " ORDER BY seq", t=table_id,
    )  # fmt: skip
    assert [r.text for r in rows] == ["y" * 300, "one twothree", "ok 0", "ok 1", "ok 2"]
    await a.close()
    await watcher.close()


async def test_spectators_channel_reaches_only_players_who_show_it(
    database: Database, server_factory: Any
) -> None:
    server: ServerProcess = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id, (ann, bob) = await seated_table(http, ("Ann", "Bob"))
    a = await connected(server.ws, table_id, ann.token, ann.seat)
    b = await connected(server.ws, table_id, bob.token, bob.seat)
    w1 = await connected(server.ws, table_id, None, None, viewer="browser-one-key")
    w2 = await connected(server.ws, table_id, None, None)
    await w1.say("zq spectators only")
    line = await w2.wait_line(lambda x: x.get("text") == "zq spectators only")
    assert line["channel"] == "spectators" and line["seat"] is None
    assert line["name"].startswith("Spectator ")
    # Bob shows the spectators' channel: he is sent the line he missed, then new ones live.
    await b.send_json({"type": "chat_show", "spectators": True})
    missed = await b.wait_for(lambda m: m["type"] == "chat_lines" and m["lines"])
    assert [x["text"] for x in missed["lines"]] == ["zq spectators only"]
    await w2.say("zq second")
    await b.wait_line(lambda x: x.get("text") == "zq second")
    # Players' lines reach everyone, spectators included.
    await a.say("players line")
    for c in (a, b, w1, w2):
        await c.wait_line(lambda x: x.get("text") == "players line")
    # Bob hides it again: nothing more from the spectators reaches him. (His socket's messages
    # are handled in order: its pong says the hiding is done before w1 speaks on another one.)
    await b.send_json({"type": "chat_show", "spectators": False})
    await b.send_json({"type": "ping"})
    await b.wait_for(lambda m: m["type"] == "pong")
    await w1.say("zq third")
    await w1.wait_line(lambda x: x.get("text") == "zq third")
    await a.say("after zq third")
    for c in (a, b):
        await c.wait_line(lambda x: x.get("text") == "after zq third")
    # Ann never asked: no spectators' line ever reached her socket, in any form.
    assert not [x for x in a.lines() if x["channel"] == "spectators"]
    spoken = ('"zq spectators only"', '"zq second"', '"zq third"')
    assert not any(t in f for f in a.frames for t in spoken)
    assert [x["text"] for x in b.lines() if x["channel"] == "spectators"] == [
        "zq spectators only",
        "zq second",
    ]
    # A spectator's label is the same after a reconnection of the same browser (with the key
    # the server gave it with its label).
    given = next(m for m in w1.messages if m["type"] == "viewer")
    assert given["name"] == line["name"]
    w1_again = await connected(server.ws, table_id, None, None, viewer=given["viewer"])
    await w1_again.say("me again")
    again = await w1_again.wait_line(lambda x: x.get("text") == "me again")
    assert again["name"] == line["name"]
    for c in (a, b, w1, w2, w1_again):
        await c.close()


async def test_a_line_crosses_server_processes(database: Database, server_factory: Any) -> None:
    one: ServerProcess = server_factory(database, **FAST_CHAT)
    two: ServerProcess = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        table_id, (ann, bob) = await seated_table(http, ("Ann", "Bob"))
    a = await connected(one.ws, table_id, ann.token, ann.seat)
    b = await connected(two.ws, table_id, bob.token, bob.seat)
    w = await connected(two.ws, table_id, None, None)
    await a.say("from one")
    await b.wait_line(lambda x: x.get("text") == "from one")
    await w.wait_line(lambda x: x.get("text") == "from one")
    await b.say("from two")
    await a.wait_line(lambda x: x.get("text") == "from two")
    # Both processes at once: each socket receives the feed's order.
    await asyncio.gather(*(c.say(f"{n} {i}") for i in range(4) for c, n in ((a, "a"), (b, "b"))))
    for c in (a, b, w):
        while len(text_of(c.lines())) < 10:
            await c.recv()
    order = [(x["id"], x["text"]) for x in a.live() if x["channel"] == "players"]
    assert [i for i, _ in order] == sorted(i for i, _ in order)
    for c in (b, w):
        assert [(x["id"], x["text"]) for x in c.live() if x["channel"] == "players"][-8:] == (
            order[-8:]
        )
    # A burst of spectators on both processes: every line gets its own number, none is lost,
    # and every spectator's socket receives the same order.
    crowd = [await connected((one, two)[i % 2].ws, table_id, None, None) for i in range(8)]
    await asyncio.gather(*(c.say(f"crowd {i}-{k}") for i, c in enumerate(crowd) for k in range(5)))
    for c in (w, *crowd):
        while len(text_of(c.lines(), "spectators")) < 40:
            await c.recv()
    said = [(x["id"], x["text"]) for x in w.live() if x["channel"] == "spectators"]
    assert sorted(t for _, t in said) == sorted(
        f"crowd {i}-{k}" for i in range(8) for k in range(5)
    )
    assert [i for i, _ in said] == sorted(i for i, _ in said)
    for c in crowd:
        assert [(x["id"], x["text"]) for x in c.live() if x["channel"] == "spectators"] == said
    rows = await db_rows(
        database, "SELECT seq FROM table_messages WHERE table_id = :t ORDER BY seq", t=table_id
    )
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    for c in (a, b, w, *crowd):
        await c.close()


async def test_a_server_notice_reaches_every_viewer(
    database: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(database, **FAST_CHAT)
    two: ServerProcess = server_factory(database, **FAST_CHAT)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http:
        table_id, (ann,) = await seated_table(http, ("Ann",))
        a = await connected(one.ws, table_id, ann.token, ann.seat)
        w = await connected(one.ws, table_id, None, None)
        w_two = await connected(two.ws, table_id, None, None)
        # The lobby posts a notice when someone sits down or leaves (app.lobby.tables -> feed.notice).
        bob = await join(http, table_id, "Bob")
        b = await connected(two.ws, table_id, bob.token, bob.seat)
        for c in (a, w, w_two, b):
            line = await c.wait_line(lambda x: x.get("kind") == "joined" and x["seat"] == 1)
            assert line["channel"] == "notices" and line["name"] == "Bob"
            assert line["text"] is None and line["data"] == {}
        r = await http.post(f"/api/tables/{table_id}/leave", headers=bearer(bob))
        assert r.status_code == 200, r.text
        for c in (a, w, w_two):
            await c.wait_line(lambda x: x.get("kind") == "left" and x["name"] == "Bob")
    for c in (a, w, w_two, b):
        await c.close()


@pytest.mark.parametrize(
    "payload", [{"type": "chat_show", "spectators": "yes"}, {"type": "chat_show"}, {"type": "chat"}]
)
async def test_malformed_chat_messages(shared_server: ServerProcess, payload: Any) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=20) as http:
        table_id, (ann,) = await seated_table(http, ("Ann",))
    a = await connected(shared_server.ws, table_id, ann.token, ann.seat)
    await a.send_json(payload)
    assert (await a.wait_error())["code"] == "invalid_message"
    await a.send_json({"type": "ping"})
    await a.wait_for(lambda m: m["type"] == "pong")
    await a.close()
