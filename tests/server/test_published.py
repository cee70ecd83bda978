"""A finished game's replay and record are computed once, served with cache headers and
an ETag (304 on If-None-Match), and reads that cost are limited per address, so that flooding
the replay of a long game from one address does not slow another table down (the flood is
answered from memory: asserted here by the number of computations; the times it costs the other
table are printed by bench/replay_flood.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import httpx

from tests.server.harness import (
    Database,
    SeatClient,
    ServerProcess,
    add_bots,
    bot_strategy,
    create_table,
    join,
    start,
    wait_game_over,
)

ServerFactory = Callable[..., ServerProcess]


async def play_a_game(server: ServerProcess, seats: int, seed: int) -> str:
    """One person and bots play a whole game: its id."""
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        table_id = await create_table(http, seats)
        person = await join(http, table_id, "Ann")
        await add_bots(http, person, seats - 1)
        await start(http, person)
        client = SeatClient(
            server.ws, table_id, person.token, person.seat, bot_strategy("heuristic", seed)
        )
        await client.connect()
        await client.play_until_over(timeout=300)
        await client.close()
        table = await wait_game_over(http, table_id)
    return str(table["game_id"])


async def computed(http: httpx.AsyncClient) -> dict[str, str]:
    """How many times this process computed each kind of finished game's document."""
    metrics = (await http.get("/metrics")).text
    return dict(
        re.findall(r'dragonstones_game_documents_computed_total\{kind="(\w+)"\} ([0-9.]+)', metrics)
    )


async def test_a_finished_game_is_computed_once_and_cached_for_good(
    database: Database, server_factory: ServerFactory
) -> None:
    server = server_factory(database)
    game_id = await play_a_game(server, 3, seed=5)
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        for path in (f"/api/games/{game_id}/replay", f"/api/games/{game_id}"):
            # Eight at once on a cold process: one computation.
            answers = await asyncio.gather(*(http.get(path) for _ in range(8)))
            assert {r.status_code for r in answers} == {200}
            assert len({r.content for r in answers}) == 1
            first = answers[0]
            assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
            etag = first.headers["etag"]
            # httpx asks for gzip: the compressed copy, with an ETag of its own.
            assert first.headers["content-encoding"] == "gzip"
            assert re.fullmatch(r'"[0-9a-f]{32}-gzip"', etag), etag
            plain = await http.get(path, headers={"Accept-Encoding": "identity"})
            assert "content-encoding" not in plain.headers and plain.content == first.content
            assert plain.headers["etag"] == etag.replace("-gzip", "")
            assert {r.headers["etag"] for r in answers} == {etag}
            assert first.json()["id"] == game_id
            # The copy the client has is still good: 304, no body.
            for header in (etag, f"W/{etag}", f'"something-else", {etag}', "*",
                           plain.headers["etag"]):  # fmt: skip
                again = await http.get(path, headers={"If-None-Match": header})
                assert again.status_code == 304, header
                assert again.content == b"" and again.headers["etag"] == etag
                assert "immutable" in again.headers["cache-control"]
            changed = await http.get(path, headers={"If-None-Match": '"not-this-one"'})
            assert changed.status_code == 200 and changed.content == first.content
        assert await computed(http) == {"replay": "1.0", "record": "1.0"}
        # A game not over is not cached (nor published): asked again, still refused.
        table_id = await create_table(http, 3)
        host = await join(http, table_id, "Host")
        await add_bots(http, host, 2)
        playing = (await start(http, host))["game_id"]
        for _ in range(2):
            r = await http.get(f"/api/games/{playing}/replay")
            assert (r.status_code, r.json()["detail"]["code"]) == (409, "not_over")
            assert "cache-control" not in r.headers


async def test_costly_reads_have_a_limit_of_their_own(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    # The production burst; a refill slow enough that a loaded test machine changes nothing.
    server = server_factory(
        sqlite_db, READ_RATE_BURST="30", READ_RATE_PER_SECOND="0.01", HTTP_RATE_BURST="5"
    )
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        codes = [(await http.get("/api/tables")).status_code for _ in range(40)]
        assert codes == [200] * 30 + [429] * 10, codes
        refused = await http.get("/api/tables?status=playing")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert refused.json()["detail"]["code"] == "rate_limited"
        assert (await http.get("/api/games/no-such-game")).status_code == 429
        assert (await http.get("/api/games/no-such-game/replay")).status_code == 429
        # One table, the pages and the changing calls are not in that bucket.
        table_id = await create_table(http, 3)
        assert (await http.get(f"/api/tables/{table_id}")).status_code == 200
        assert (await http.get("/healthz")).status_code == 200
        # Another address has its own.
        other = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(
            base_url=server.http, timeout=30, transport=other
        ) as elsewhere:
            assert (await elsewhere.get("/api/tables")).status_code == 200


async def test_a_replay_flood_is_answered_from_memory_while_another_table_plays(
    sqlite_db: Database, server_factory: ServerFactory
) -> None:
    # The harness lifts the limit of costly reads: every request of the flood is served (the
    # limit is tested above). The flood that slowed every other table by seconds computed the
    # replay again for each request; served from memory, it costs the other table little
    # (bench/replay_flood.py prints how little, on this machine).
    server = server_factory(sqlite_db)
    finished = await play_a_game(server, 3, seed=11)
    async with httpx.AsyncClient(base_url=server.http, timeout=60) as http:
        path = f"/api/games/{finished}/replay"

        async def flood() -> list[int]:
            codes: list[int] = []
            for _ in range(15):  # 60 requests, four at a time, from a cold process
                answers = await asyncio.gather(*(http.get(path) for _ in range(4)))
                codes += [r.status_code for r in answers]
            return codes

        codes, other = await asyncio.gather(flood(), play_a_game(server, 3, seed=3))
        assert codes == [200] * 60
        # The other table played to its end meanwhile, and the replay was computed once.
        assert (await http.get(f"/api/games/{other}")).status_code == 200
        assert (await computed(http))["replay"] == "1.0"
