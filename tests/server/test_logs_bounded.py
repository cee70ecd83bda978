"""What one address's refused requests cost the log is bounded (app.core.refusals,
app.core.logs). A real server with the production limits, storms from one address:

- a reconnect storm past `SOCKET_RATE_BURST`, table creation past `HTTP_RATE_BURST`, and
  7,000-character URLs: at most `LOG_REFUSALS_PER_ADDRESS` lines per window, however many
  refusals (one line per refusal at most: no uvicorn line for a refused handshake), and one line
  per window telling how many more: every refusal is either written or counted in such a line;
- every refusal is counted in `/metrics`;
- no line holds a whole 7,000-character URL.

The window is shortened to 2 s (the default is 60) so that its summary line comes soon.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections.abc import Callable

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from tests.server.harness import Database, ServerProcess, create_table, join

ServerFactory = Callable[..., ServerProcess]
ATTACKER = "127.0.0.2"
WINDOW = 2.0
LINES = 5  # LOG_REFUSALS_PER_ADDRESS's default
PRODUCTION = {
    "SOCKET_RATE_PER_SECOND": "2",
    "SOCKET_RATE_BURST": "20",
    "HTTP_RATE_PER_SECOND": "1",
    "HTTP_RATE_BURST": "30",
    "LOG_REFUSALS_PER_ADDRESS": str(LINES),
    "LOG_REFUSALS_WINDOW_SECONDS": str(WINDOW),
}
LONG_PATH = "/" + "x" * 7000


async def _handshake(url: str) -> bool:
    """Open a socket from ATTACKER and read until it is told something: True if admitted."""
    async with websockets.connect(url, local_addr=(ATTACKER, 0), close_timeout=2) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if first["type"] == "hello":
            return True
        assert first["code"] == "socket_rate_limited", first
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 4429
        return False


def _about_attacker(log: str) -> tuple[list[str], int]:
    """The refusal lines about ATTACKER (our own and uvicorn's access lines of 4xx answers),
    and how many more the summary lines say were not written."""
    written = [
        line
        for line in log.splitlines()
        if f"from {ATTACKER} refused:" in line
        or re.search(rf'{re.escape(ATTACKER)}:\d+ - ".*" 4\d\d ', line)
    ]
    more = sum(
        int(n)
        for n in re.findall(rf"(\d+) more refused from {re.escape(ATTACKER)} in the last", log)
    )
    return written, more


async def test_a_storm_of_refusals_writes_a_bounded_log(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(sqlite_db, **PRODUCTION)
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=server.http, transport=transport, timeout=20) as http:
        # A 7,000-character URL first (its line is within the budget), then the storms.
        statuses = [(await http.get(LONG_PATH)).status_code]
        url = f"{server.ws}/ws/tables/{table_id}?token={ann.token}"
        admitted = [await _handshake(url) for _ in range(150)]
        for _ in range(100):
            statuses.append((await http.post("/api/tables", json={"seats": 3})).status_code)
        for _ in range(100):
            statuses.append((await http.get(LONG_PATH)).status_code)
    duration = time.monotonic() - started
    refused_sockets = admitted.count(False)
    refusals = refused_sockets + sum(1 for s in statuses if 400 <= s < 500)
    assert refused_sockets > 100 and statuses.count(429) > 50 and statuses.count(404) == 101

    # Every refusal is written or told in a summary line once its window ends.
    def accounted() -> int:
        written, more = _about_attacker(server.log())
        return len(written) + more

    deadline = time.monotonic() + 30
    while accounted() < refusals:
        assert time.monotonic() < deadline, (refusals, _about_attacker(server.log()))
        await asyncio.sleep(0.2)
    log = server.log()
    written, more = _about_attacker(log)
    assert len(written) + more == refusals, (len(written), more, refusals)
    # At most LINES per window, whatever the storm's size (it made hundreds of refusals).
    windows = math.ceil(duration / WINDOW) + 1
    assert len(written) <= LINES * windows, (len(written), windows, written)
    summaries = re.findall(rf"more refused from {re.escape(ATTACKER)}", log)
    assert 1 <= len(summaries) <= windows
    # One line per refusal at most: uvicorn's handshake line only for the sockets admitted.
    handshakes = [
        line for line in log.splitlines() if f"{ATTACKER}:" in line and "WebSocket" in line
    ]
    assert len(handshakes) == admitted.count(True), handshakes
    # No whole URL: the long path's line is cut.
    assert max(map(len, log.splitlines())) < 600
    assert "(7001 characters)" in written[0], written[0]
    async with httpx.AsyncClient(base_url=server.http, timeout=20) as http:
        metrics = (await http.get("/metrics")).text
    counted = dict(re.findall(r'dragonstones_errors_total\{code="(\w+)"\} (\S+)', metrics))
    assert float(counted["socket_rate_limited"]) == refused_sockets
    assert float(counted["rate_limited"]) == statuses.count(429)
