"""A lobby change is read again only by the processes that did not make it: the one that made it
told its own sockets at once (app.lobby.tables `_changed`), and the notice it hears back names the
table only (app.store.bus `publish_change`). Counted by `dragonstones_tables_read_again`. A
presence notice (`tell`) is not even that to the process that sent it."""

from __future__ import annotations

from typing import Any

import httpx

from app.store.bus import PgBus
from tests.server.harness import Database, SeatClient, ServerProcess, create_table, join
from tests.server.push_service import metric

READ_AGAIN = "dragonstones_tables_read_again_total"


async def _read_again(http: httpx.AsyncClient) -> float:
    return metric((await http.get("/metrics")).text, READ_AGAIN)


def _names(client: SeatClient) -> set[str]:
    return {p["name"] for p in (client.table or {}).get("players", [])}


async def test_a_lobby_change_is_read_again_only_by_the_other_processes(
    database: Database, server_factory: Any
) -> None:
    one: ServerProcess = server_factory(database)
    async with httpx.AsyncClient(base_url=one.http, timeout=20) as http1:
        table_id = await create_table(http1, 5)
        ann = await join(http1, table_id, "Ann")
        page = SeatClient(one.ws, table_id, ann.token, ann.seat)
        await page.connect()
        try:
            await page.wait_for(lambda m: m["type"] == "table" and "Ann" in _names(page))
            if database.backend == "sqlite":
                # One process: its bus hands the notice back within the join's request.
                await join(http1, table_id, "Bob")
                await page.wait_for(lambda m: m["type"] == "table" and "Bob" in _names(page))
                assert await _read_again(http1) == 0
                return
            two: ServerProcess = server_factory(database)
            async with httpx.AsyncClient(base_url=two.http, timeout=20) as http2:
                await join(http2, table_id, "Bob")  # another process: read again here
                await join(http1, table_id, "Cy")  # this one: told at once, not read again
                await join(http2, table_id, "Di")  # another: read again
                # Di's table reaches Ann through the read her notice caused; Postgres delivers
                # notices in the order their transactions committed, so Cy's was heard before.
                await page.wait_for(lambda m: m["type"] == "table" and "Di" in _names(page))
                assert {"Bob", "Cy"} <= _names(page)
                assert await _read_again(http1) == 2
        finally:
            await page.close()


async def test_a_presence_notice_is_ignored_by_its_own_process_and_a_lobby_one_names_the_table() -> (
    None
):
    """Every seat socket's arrival and departure sends a presence notice. Heard back as a lobby
    change, it marked a table no room held as missed, and each of the seats arriving at once
    read the game and table again (bench/load.py --handshakes: 0.7 -> 1.6 ms a handshake)."""
    sent: list[str] = []

    async def notify(_channel: str, payload: str) -> None:
        sent.append(payload)

    def process() -> tuple[PgBus, list[str], list[tuple[Any, ...]]]:
        bus = PgBus("postgresql://127.0.0.1:1/unused", "channel", {}, notify)
        own: list[str] = []
        other: list[tuple[Any, ...]] = []
        bus.on_own = own.append
        bus.handler = lambda *message: other.append(message)
        return bus, own, other

    here, own, other = process()
    await here.publish_change("T1")
    notices = [sent[0], here.tell("T1")]
    for payload in notices:
        here._on_notification(None, 0, "channel", payload)
    assert (own, other) == (["T1"], [])
    there, own_there, other_there = process()
    for payload in notices:
        there._on_notification(None, 0, "channel", payload)
    assert (own_there, other_there) == ([], [("T1", None, None), ("T1", None, None)])
