"""Large HTTP answers go gzip-compressed to a client that accepts it (the lists of tables, the
client's scripts and stylesheet, a finished game's record and replay, compressed once); small
ones, and every answer to a client that does not accept gzip, go as they are."""

from __future__ import annotations

import gzip
import json

import httpx

from tests.server.harness import (
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

GZIP = {"Accept-Encoding": "gzip"}
IDENTITY = {"Accept-Encoding": "identity"}


async def _wire(http: httpx.AsyncClient, path: str, headers: dict[str, str]) -> tuple[str, bytes]:
    """The answer's encoding and body as they came over the wire (not decoded by httpx)."""
    request = http.build_request("GET", path, headers=headers)
    response = await http.send(request, stream=True)
    try:
        assert response.status_code == 200, (path, response.status_code)
        raw = b"".join([chunk async for chunk in response.aiter_raw()])
    finally:
        await response.aclose()
    return response.headers.get("content-encoding", ""), raw


async def test_large_answers_are_gzipped_for_clients_that_accept_it(
    shared_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=shared_server.http, timeout=30) as http:
        for n in range(12):
            await create_table(http, 6, timed=n % 2 == 0)
        table_id = await create_table(http, 3)
        ann = await join(http, table_id, "Ann")
        await add_bots(http, ann, 2, "random")
        client = SeatClient(
            shared_server.ws, table_id, ann.token, ann.seat, bot_strategy("random", 3)
        )
        await client.connect()
        await start(http, ann)
        await client.play_until_over(120)
        await client.close()
        game_id = (await wait_game_over(http, table_id))["game_id"]

        large = ["/api/tables", "/static/js/table.js", "/static/css/app.css", "/",
                 f"/api/games/{game_id}", f"/api/games/{game_id}/replay"]  # fmt: skip
        for path in large:
            encoding, zipped = await _wire(http, path, GZIP)
            assert encoding == "gzip", path
            plain_encoding, plain = await _wire(http, path, IDENTITY)
            assert plain_encoding == "", path
            assert gzip.decompress(zipped) == plain, path
            assert len(zipped) < len(plain) / 2, (path, len(zipped), len(plain))
        lists = json.loads(gzip.decompress((await _wire(http, "/api/tables", GZIP))[1]))
        assert len(lists) >= 12
        # Small answers are not worth it.
        for path in ("/healthz", f"/api/tables/{table_id}/nope-not-a-route"):
            r = await http.get(path, headers=GZIP)
            assert "content-encoding" not in r.headers, path
        # A WebSocket is untouched by it.
        watcher = SeatClient(shared_server.ws, table_id, None, None)
        await watcher.connect()
        assert (await watcher.wait_for(lambda m: m["type"] == "state"))["version"] > 0
        await watcher.close()
