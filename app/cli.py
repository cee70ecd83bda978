"""The `dragonstones` command: serve, db upgrade/downgrade, replay, analyse, simulate, ratings rebuild."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["simulate"]:
        # The simulator owns its own options: hand it the rest of the line untouched.
        from app.simulate import main as simulate_main

        return simulate_main(argv[1:])

    parser = argparse.ArgumentParser(prog="dragonstones", description="Dragonstones Online server")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="apply migrations, then serve HTTP and WebSockets")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default=None, help="default: LOG_LEVEL, else info")

    db = commands.add_parser("db", help="database migrations (DATABASE_URL chooses the database)")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser("upgrade", help="migrate to the latest schema").add_argument(
        "revision", nargs="?", default="head"
    )
    db_commands.add_parser(
        "downgrade", help="migrate down (default: to an empty database)"
    ).add_argument("revision", nargs="?", default="base")
    db_commands.add_parser("current", help="show the database's schema revision")

    replay = commands.add_parser(
        "replay", help="check a finished game's public record (GET /api/games/{id})"
    )
    replay.add_argument("file", type=Path, help="the record as JSON ('-' reads standard input)")

    analyse = commands.add_parser(
        "analyse", help="the hard bot's view of each decision of a finished game's record"
    )
    analyse.add_argument("file", type=Path, help="the record as JSON ('-' reads standard input)")
    analyse.add_argument(
        "--worlds", type=int, default=None, help="worlds per decision (default: ANALYSIS_WORLDS)"
    )

    commands.add_parser(
        "simulate", help="play bot games offline (see dragonstones simulate --help)"
    )

    ratings = commands.add_parser("ratings", help="players' ratings (DATABASE_URL)")
    rebuild = ratings.add_subparsers(dest="ratings_command", required=True).add_parser(
        "rebuild", help="recompute every rating from the recorded games, and store them"
    )
    rebuild.add_argument(
        "--check", action="store_true", help="exit 1 if a stored rating was not the recomputed one"
    )

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args.host, args.port, args.log_level)
    if args.command == "db":
        from app.store import migrate

        if args.db_command == "upgrade":
            migrate.upgrade(args.revision)
            # Say where the database now stands (the migrate service's log in compose).
            migrate.current()
        elif args.db_command == "downgrade":
            migrate.downgrade(args.revision)
        else:
            migrate.current()
        return 0
    if args.command == "replay":
        return replay_file(args.file)
    if args.command == "analyse":
        return analyse_file(args.file, args.worlds)
    if args.command == "ratings":
        return _rebuild_ratings(check=args.check)
    parser.error(f"unknown command {args.command!r}")
    return 2


def _rebuild_ratings(*, check: bool) -> int:
    import asyncio

    from app.core.config import get_settings
    from app.lobby.history import History
    from app.lobby.leagues import rebuild_standings
    from app.store import migrate
    from app.store.stores import open_stores

    settings = get_settings()
    migrate.upgrade("head", settings)

    async def rebuild() -> tuple[int, list[str], int, list[str]]:
        stores = open_stores(settings)
        try:
            history = History(stores.history)
            results = await history.everything()
            rebuilt, differ = await history.rebuild(results)
            leagues, league_differ = await rebuild_standings(stores.leagues, results)
        finally:
            await stores.close()
        return len(rebuilt), differ, leagues, league_differ

    count, differ, leagues, league_differ = asyncio.run(rebuild())
    print(f"{count} ratings rebuilt from the recorded games; {len(differ)} differed")
    for key in differ:
        print(f"  differed: {key}")
    print(f"{leagues} leagues' standings rebuilt; {len(league_differ)} differed")
    for key in league_differ:
        print(f"  differed: {key}")
    return 1 if check and (differ or league_differ) else 0


def _settle_gc() -> None:
    """The cyclic garbage collector for a long-running server: what is loaded by now (modules,
    the application) lives as long as the process, so it is frozen out of every collection,
    and the youngest generation is collected every 7,000 new containers instead of 700. Each
    action allocates hundreds of short-lived dicts, nearly all freed by their reference counts;
    with the defaults the collections took about a tenth of the server's CPU at machine speed.
    The middle generation is collected every 50 young collections instead of 10: at a human pace
    it holds only what is still alive of the last young ones (the sockets' readers, the games'
    states and views, nearly all freed by their counts later), so each of its collections costs
    about the same however rarely it runs (150-250 ms on a slow machine), and running it a fifth
    as often takes most of those pauses, and the worst reveals, away (bench/load.py,
    bench/RESULTS.md)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(7000, 50, 10)


def _serve(host: str, port: int, log_level: str | None) -> int:
    import logging

    import uvicorn

    from app.core.config import get_settings
    from app.edge import accept
    from app.edge.addresses import serving_lines
    from app.main import create_app

    settings = get_settings()
    log_level = settings.log_level = log_level or settings.log_level
    for line in serving_lines(host, port):
        print(line, flush=True)
    # Idle and slow connections cannot hold every descriptor (app.edge.accept), and the process
    # may hold as many as the system lets it.
    open_files = accept.raise_open_file_limit()
    app = create_app(settings)
    # For the process's life (its collections are the server's), from the start's own full one.
    app.state.metrics.watch_collector()
    _settle_gc()
    http, ws = accept.protocols(settings, app.state.metrics, open_files)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=http,
        ws=ws,
        timeout_keep_alive=accept.KEEP_ALIVE_SECONDS,
        log_level=log_level,
        # A hard cap far above the application's own limit, which answers with a clear error.
        ws_max_size=max(65536, settings.max_message_bytes * 4),
        # Let open sockets close cleanly (1012) before the process exits.
        timeout_graceful_shutdown=5,
        ws_per_message_deflate=settings.ws_compression,
        # A socket silent this long is pinged (app.wire.frames), then closed 20 s later without
        # a pong; a page's own pings keep it from being pinged at all.
        ws_ping_interval=settings.ws_ping_after_silence_seconds,
        # The client address is the TCP peer's; X-Forwarded-For is read only from the proxies
        # of TRUSTED_PROXIES (app.edge.ratelimit), never from any local peer as uvicorn would.
        proxy_headers=False,
    )
    # The container's health check asks every few seconds: keep it out of the access log.
    logging.getLogger("uvicorn.access").addFilter(_NotHealthChecks())
    uvicorn.Server(config).run()
    return 0


class _NotHealthChecks:
    def filter(self, record: object) -> bool:
        args = getattr(record, "args", None)
        # uvicorn's access record: (client, method, path, http version, status).
        return not (isinstance(args, tuple) and len(args) > 2 and args[2] == "/healthz")


def check_record(record: dict[str, Any]) -> tuple[bool, str]:
    """Replay a public game record with the engine: (matches, a summary or what differs)."""
    import engine

    try:
        seats = int(record["seats"])
        seed = int(record["seed"])
        actions = [(int(a["seat"]), dict(a["action"])) for a in record["actions"]]
        versions = [int(a["version"]) for a in record["actions"]]
    except (KeyError, TypeError, ValueError) as exc:
        return False, f"not a game record: {exc!r}"
    if versions != list(range(1, len(versions) + 1)):
        return False, "the actions are not numbered 1, 2, 3... without gaps"
    commitment = engine.view(engine.new_game(players=seats, seed=seed), None)["seed_commitment"]
    if commitment != record.get("seed_commitment"):
        return False, "the seed does not match the seed commitment published at the start"
    try:
        state = engine.replay(seats, seed, actions)
    except engine.IllegalAction as exc:
        return False, f"the engine refuses an action of the record: {exc.code}: {exc.message}"
    digest = hashlib.sha256(engine.dumps(state).encode("utf-8")).hexdigest()
    winner = engine.winner(state)
    if winner != record.get("winner"):
        return False, f"the replay's winner is {winner}, the record says {record.get('winner')}"
    if "final_state_sha256" in record and digest != record["final_state_sha256"]:
        return False, "the replayed final state differs from the stored one"
    players = {p.get("seat"): p.get("name") for p in record.get("players", [])}
    who = players.get(winner, f"seat {winner}") if winner is not None else "nobody"
    return True, (
        f"game {record.get('id')}: {len(actions)} actions by {seats} players replay to the stored "
        f"final state; winner: {who} (seat {winner})"
    )


def replay_file(path: Path) -> int:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        record = json.loads(text)
    except (OSError, ValueError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(record, dict):
        print(f"{path} does not hold a game record (a JSON object)", file=sys.stderr)
        return 2
    ok, summary = check_record(record)
    if ok:
        print(f"OK {summary}")
        return 0
    print(f"MISMATCH {summary}", file=sys.stderr)
    return 1


def analyse_file(path: Path, worlds: int | None) -> int:
    """Analyse a finished game's record as its replay page does, and print the figures."""
    from app.core.config import get_settings
    from app.table.analysis import analyse_record, analysis_lines

    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        record = json.loads(text)
        ok, summary = check_record(record) if isinstance(record, dict) else (False, "")
    except (OSError, ValueError) as exc:
        print(f"cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if not ok:
        print(f"{path} does not hold a finished game's record {summary}", file=sys.stderr)
        return 2
    budget = worlds or get_settings().analysis_worlds
    for line in analysis_lines(analyse_record(record, budget), record):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
