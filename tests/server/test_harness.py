"""The harness keeps tests from leaking into each other: a client socket a test leaves open is
reported (and closed) at its end, and a server that does not come up in time is not left running.
Either would otherwise warn (ResourceWarning) in whichever later test the collector runs, where
the strict warnings make it that test's failure."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    create_table,
    open_client_sockets,
)


async def test_a_client_socket_left_open_is_reported_and_one_closed_is_not(
    sqlite_db: Database, server_factory: object
) -> None:
    server: ServerProcess = server_factory(sqlite_db)  # type: ignore[operator]
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
    closed = SeatClient(server.ws, table_id, None, None)
    left_open = SeatClient(server.ws, table_id, None, None)
    for client in (closed, left_open):
        await client.connect()
        await client.wait_for(lambda m: m["type"] == "table")
    await closed.close()
    # What the teardown of every async server test asks (tests/server/conftest.py).
    left = open_client_sockets()
    assert [ws for _, ws in left] == [left_open.ws], left
    assert "a spectator of table" in left[0][0]
    await left_open.close()
    assert open_client_sockets() == []


def test_a_server_that_does_not_answer_in_time_is_not_left_running(
    sqlite_db: Database, tmp_path: Path
) -> None:
    server = ServerProcess(sqlite_db, tmp_path)
    try:
        server.start(timeout=0.01)  # no process answers that fast
    except RuntimeError as exc:
        assert "did not answer" in str(exc)
    else:
        raise AssertionError("the start did not time out")
    assert server.proc is not None and not server.alive()
    assert server.proc.returncode is not None  # waited for: no zombie, no warning
