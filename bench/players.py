"""Benchmark: a player's page, "my games" and a league's page with many players and games in
Postgres, through the real server.

    .venv/bin/python bench/players.py [--players 100000] [--games 1000000] [--requests 400]
        [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test] [--keep-schema]
        [--schema SCHEMA] [--only floor|player|random|games|deep|member|league ...]

Makes a fresh Postgres schema, brings it to the migrations' head (as the server does), and seeds
it inside Postgres (INSERT ... SELECT over generate_series, no rows through Python): `--players`
players with a rating each; `--games` finished 4-seat games, each a table, its four seats, its
game row, its recorded result and four placements (three people and a bot: everything a finished
game leaves behind). Player 1 plays one game in 100 (10,000 of 1,000,000); one league of 8 members
holds one game in 50 (20,000), and one game in 10 of the rest belongs to one of 2,000 small
leagues. Then `dragonstones serve` on that schema (the history's pass included), and `--requests`
sequential requests of each kind over one kept-alive connection, as the heavy player signed in
by their cookie:

- `GET /api/players/{id}` of the heavy player, and of random players;
- `GET /api/me/games` (the first page: the games being played and the last 20), and a page deep
  in their history (`before`);
- `GET /api/leagues/{id}` of the big league (standings, head-to-head, last games);
- for reference, what the machine allows at that moment: `GET /healthz` and `GET /api/me` (one
  query).

The first request of each kind is timed apart (a cold cache, or work done once) and left out of
the percentiles. Prints p50/p90/p99/max and the server's CPU per request, with the load average.
The schema is dropped at the end unless `--keep-schema`; `--schema` measures one seeded before
(kept; the server brings it to the migrations' head first). Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import (  # noqa: E402
    PG_URL,
    Server,
    asyncpg_dsn,
    cpu_seconds,
    create_schema,
    drop_schema,
    new_schema_name,
    percentile,
    server_env,
    terminate_on_sigterm,
)

HEAVY = 1  # the player in one game of HEAVY_EVERY
HEAVY_EVERY = 100
LEAGUE_EVERY = 50  # one game in 50 is the big league's
LEAGUE_MEMBERS = 8
SMALL_LEAGUES = 2000


def pid(n: int) -> str:
    return f"p{n:08d}"


def secret(n: int) -> str:
    return f"bench-player-secret-{n:08d}"


def seed_sql(players: int, games: int) -> list[tuple[str, str]]:
    """(label, SQL) of each step of the seed, in order."""
    # The three people of game g: the heavy player in one game of HEAVY_EVERY, the big league's
    # members in its games, else spread over every player but the league's (multiplicative
    # hashing keeps the three distinct for any g).
    others = players - LEAGUE_MEMBERS - 1
    spread = f"{LEAGUE_MEMBERS + 2} + ((g::bigint * 2654435761 + s * {others // 3}) % {others})"
    person = f"""
        CASE WHEN g % {LEAGUE_EVERY} = 1 THEN 2 + ((g / {LEAGUE_EVERY} + s) % {LEAGUE_MEMBERS})
             WHEN g % {HEAVY_EVERY} = 0 AND s = 0 THEN {HEAVY}
             ELSE {spread} END"""
    league = f"""
        CASE WHEN g % {LEAGUE_EVERY} = 1 THEN 'league-big'
             WHEN g % 10 = 3 THEN 'league-' || (g % {SMALL_LEAGUES})
             ELSE NULL END"""
    # Game g ended (G - g) * 30 s before now: the newest is the last.
    ended = f"now() - ({games} - g) * interval '30 seconds'"
    # Places: seat (g + s) % 4 is first, and so on; the winner has 3 points.
    place = "1 + ((s + g) % 4)"
    return [
        (
            "players",
            f"""INSERT INTO players (id, name, created_at, seen_at)
                SELECT 'p' || lpad(n::text, 8, '0'), 'Player ' || n, now(), now()
                FROM generate_series(1, {players}) n""",
        ),
        (
            "ratings",
            f"""INSERT INTO ratings (key, mu, sigma, games, wins, updated_at)
                SELECT 'p' || lpad(n::text, 8, '0'), 20 + (n % 100) / 10.0, 3 + (n % 7) / 3.0,
                       30, 8, now()
                FROM generate_series(1, {players}) n
                UNION ALL SELECT 'bot:heuristic', 24, 1.5, {games}, {games // 4}, now()""",
        ),
        (
            "tables",
            f"""INSERT INTO tables (id, seats, public, status, created_at, updated_at, league_id)
                SELECT 't' || g, 4, false, 'over', {ended}, {ended}, {league}
                FROM generate_series(1, {games}) g""",
        ),
        (
            "seats",
            f"""INSERT INTO seats (table_id, seat, name, bot, bot_kind, stand_in, joined_at,
                                   player_id)
                SELECT 't' || g, s, CASE WHEN s = 3 THEN 'Bot 4' ELSE 'Player' END, s = 3,
                       CASE WHEN s = 3 THEN 'heuristic' END, false, {ended},
                       CASE WHEN s < 3 THEN 'p' || lpad(({person})::text, 8, '0') END
                FROM generate_series(1, {games}) g, generate_series(0, 3) s""",
        ),
        (
            "games",
            f"""INSERT INTO games (id, table_id, players, seed, seed_commitment, state, version,
                                   status, winner, created_at, updated_at, finished_at)
                SELECT 'g' || g, 't' || g, 4, 'seed', 'commitment', '{{}}', 300, 'over',
                       (4 - g % 4) % 4, {ended}, {ended}, {ended}
                FROM generate_series(1, {games}) g""",
        ),
        (
            "game_results",
            f"""INSERT INTO game_results (id, game_id, table_id, players, rated, finished_at,
                                          league_id)
                SELECT g, 'g' || g, 't' || g, 4, true, {ended}, {league}
                FROM generate_series(1, {games}) g;
                SELECT setval(pg_get_serial_sequence('game_results', 'id'), {games})""",
        ),
        (
            "game_placements",
            f"""INSERT INTO game_placements (result_id, seat, player_id, rating_key, name,
                                             bot_kind, "left", score, place)
                SELECT g, s, p, CASE WHEN s = 3 THEN 'bot:heuristic' ELSE p END,
                       CASE WHEN s = 3 THEN 'Bot 4' ELSE 'Player' END,
                       CASE WHEN s = 3 THEN 'heuristic' END, false,
                       LEAST(3, 4 - {place}), {place}
                FROM generate_series(1, {games}) g, generate_series(0, 3) s,
                     LATERAL (SELECT CASE WHEN s < 3
                              THEN 'p' || lpad(({person})::text, 8, '0') END AS p) who""",
        ),
        (
            "leagues",
            f"""INSERT INTO leagues (id, name, invite, created_by, created_at)
                SELECT 'league-big', 'The big league', 'invite-big', '{pid(2)}', now()
                UNION ALL
                SELECT 'league-' || n, 'League ' || n, 'invite-' || n, '{pid(2)}', now()
                FROM generate_series(0, {SMALL_LEAGUES - 1}) n;
                INSERT INTO league_members (league_id, player_id, joined_at)
                SELECT 'league-big', 'p' || lpad(n::text, 8, '0'), now()
                FROM generate_series(2, {LEAGUE_MEMBERS + 1}) n""",
        ),
    ]


async def seed(url: str, schema: str, players: int, games: int) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(asyncpg_dsn(url), server_settings={"search_path": schema})
    try:
        for label, sql in seed_sql(players, games):
            began = time.monotonic()
            await conn.execute(sql)
            print(f"  seeded {label} in {time.monotonic() - began:.1f} s", flush=True)
        # The heavy player and the big league's members are signed in by a known secret.
        signed = [HEAVY, *range(2, LEAGUE_MEMBERS + 2)]
        await conn.executemany(
            "INSERT INTO player_secrets (hash, player_id, created_at, used_at) "
            "VALUES ($1, $2, now(), now())",
            [(hashlib.sha256(secret(n).encode()).hexdigest(), pid(n)) for n in signed],
        )
        began = time.monotonic()
        await conn.execute("VACUUM ANALYZE")
        print(f"  vacuum analyze in {time.monotonic() - began:.1f} s", flush=True)
        size = await conn.fetchval(
            "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 "
            "AND c.relkind = 'r'",
            schema,
        )
        print(f"  schema size {size}", flush=True)
    finally:
        await conn.close()


def migrate(url: str, schema: str) -> None:
    """`dragonstones db upgrade` on the schema (the migrations read the schema from the
    environment, as the server's do)."""
    env = {**os.environ, "DATABASE_URL": url, "DATABASE_SCHEMA": schema, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade"], env=env, check=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


async def measure(
    server: Server, label: str, path: str | Any, requests: int, cookie: str | None
) -> None:
    """`requests` sequential GETs (path: a string, or a function of the request's number)."""
    cookies = {"ds_player": cookie} if cookie else None
    async with httpx.AsyncClient(base_url=server.http, cookies=cookies, timeout=60) as http:

        async def get(n: int) -> float:
            url = path(n) if callable(path) else path
            began = time.perf_counter()
            r = await http.get(url)
            took = time.perf_counter() - began
            if r.status_code != 200:
                raise RuntimeError(f"GET {url}: {r.status_code} {r.text[:300]}")
            return took

        first = await get(0)
        cpu0 = cpu_seconds([server.pid])
        times = [await get(n) for n in range(1, requests + 1)]
        cpu = (cpu_seconds([server.pid]) - cpu0) / requests
    p = {q: percentile(times, q) or 0.0 for q in (50, 90, 99)}
    print(
        f"{label}: first {first * 1000:.1f} ms; then p50 {p[50] * 1000:.1f} / p90 "
        f"{p[90] * 1000:.1f} / p99 {p[99] * 1000:.1f} / max {max(times) * 1000:.1f} ms, "
        f"server CPU {cpu * 1000:.1f} ms per request ({requests} requests; load {load()})",
        flush=True,
    )


KINDS = ("floor", "player", "random", "games", "deep", "member", "league")


async def bench(server: Server, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    heavy, member = secret(HEAVY), secret(2)
    oldest = args.games // 4  # a page deep in the heavy player's history
    n = args.requests
    kinds = set(args.only or KINDS)
    if "floor" in kinds:
        # What the machine allows: the same client and server answering next to nothing.
        await measure(server, "reference: /healthz", "/healthz", n, None)
        await measure(server, "reference: GET /api/me (one query)", "/api/me", n, heavy)
    if "player" in kinds:
        await measure(server, "player page, heavy player", f"/api/players/{pid(HEAVY)}", n, None)
    if "random" in kinds:
        await measure(
            server, "player page, random players",
            lambda _n: f"/api/players/{pid(rng.randint(LEAGUE_MEMBERS + 2, args.players))}",
            n, None,
        )  # fmt: skip
    if "games" in kinds:
        await measure(server, "my games, first page (heavy player)", "/api/me/games", n, heavy)
    if "deep" in kinds:
        await measure(
            server, "my games, a page deep in the history (heavy player)",
            f"/api/me/games?before={oldest}", n, heavy,
        )  # fmt: skip
    if "member" in kinds:
        await measure(server, "my games, first page (league member)", "/api/me/games", n, member)
    if "league" in kinds:
        await measure(server, "league page, big league", "/api/leagues/league-big", n, member)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--database-url", default=PG_URL)
    parser.add_argument("--schema", help="use this already seeded schema (kept at the end)")
    parser.add_argument("--keep-schema", action="store_true")
    parser.add_argument(
        "--only", action="append", choices=KINDS, help="measure only these (repeatable)"
    )
    parser.add_argument("--server-env", action="append", metavar="KEY=VALUE")
    args = parser.parse_args()
    terminate_on_sigterm()
    url = args.database_url
    schema = args.schema or new_schema_name("bench_players")
    keep = args.keep_schema or bool(args.schema)
    workdir = Path(tempfile.mkdtemp(prefix="bench-players-"))
    server = None
    try:
        if not args.schema:
            print(f"schema {schema}: migrations, then the seed (load {load()})", flush=True)
            create_schema(url, schema)
            began = time.monotonic()
            migrate(url, schema)
            asyncio.run(seed(url, schema, args.players, args.games))
            print(f"seeded in {time.monotonic() - began:.0f} s", flush=True)
        env = server_env(
            args, url, schema,
            HTTP_RATE_PER_SECOND="100000", HTTP_RATE_BURST="100000",
            READ_RATE_PER_SECOND="100000", READ_RATE_BURST="100000",
        )  # fmt: skip
        server = Server(env, workdir, "players")
        began = time.monotonic()
        server.start(timeout=300)
        print(f"server up in {time.monotonic() - began:.1f} s (migrations at start included)")
        asyncio.run(bench(server, args))
    finally:
        if server is not None:
            server.stop()
        if keep:
            print(f"schema kept: {schema}")
        else:
            drop_schema(url, schema)


if __name__ == "__main__":
    main()
