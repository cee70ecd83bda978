"""Benchmark: what building the game frames of an action costs the server, `state` frames against
`delta` frames, without sockets or a database (the part of the server's work that the frame
format decides; bench/load.py measures the whole).

    .venv/bin/python bench/frames.py [--games 50] [--players 4] [--spectators 1] [--repeat 3]
        [--deflate]

Plays `--games` games with random legal moves (seeded), then replays them all at once, one
action of each game in turn, through the server's own frame builders (app.table.live_game):
after every action, each seat and the spectators (one
shared frame) get the frame a socket would, a `state` since the version before (every socket as
today) or a `delta` (every socket on `deltas=1`), encoded to UTF-8 as the socket does. Prints the
CPU time per action (the best of `--repeat` passes: the machine is shared) and the bytes per
action and per frame, for both. With `--deflate` each socket also compresses what it sends as
permessage-deflate does (its own zlib stream, context kept between frames: WS_COMPRESSION=1),
and the bytes are the compressed ones.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from app.table.live_game import LiveGame, delta_frame, state_frame

MAX_GAP = 1000


def play(players: int, seed: int) -> tuple[list[Any], list[list[dict[str, Any]]]]:
    """A whole game of random legal moves: its states and raw events, index = version."""
    rng = random.Random(seed)
    state, opening = engine.start(players=players, seed=seed)
    states, events = [state], [opening]
    while not engine.is_over(state):
        seat = engine.prompts(state)[0]["seat"]
        state, ev = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        states.append(state)
        events.append(ev)
    return states, events


def replay(
    games: list[tuple[list[Any], list[list[dict[str, Any]]]]],
    players: int,
    spectators: int,
    deltas: bool,
    deflate: bool = False,
) -> tuple[float, int, int, int]:
    """CPU seconds, actions, frames and bytes of building every frame of every game."""
    actions = frames = size = 0
    viewers: list[int | None] = [*range(players), *([None] if spectators else [])]
    began = time.process_time()
    live: list[LiveGame] = []
    streams: dict[tuple[int, int | None, int], Any] = {}
    for n, (states, events) in enumerate(games):
        game = LiveGame(
            id=f"g{n}",
            table_id=f"t{n}",
            players=players,
            state=states[0],
            version=0,
            over=False,
            events=[events[0]],
            action_ids={},
        )
        live.append(game)
        for viewer in viewers:
            state_frame(game, viewer, None, MAX_GAP, keep=deltas)
            for i in range(spectators if viewer is None else 1):
                streams[n, viewer, i] = zlib.compressobj(
                    zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15, 8
                )
    # The games move on together, one action of each in turn, as on a busy server (each
    # viewer's previous view is then long out of the processor's caches).
    for version in range(1, max(len(states) for states, _ in games)):
        for n, (states, events) in enumerate(games):
            if version >= len(states):
                continue
            game = live[n]
            game.state, game.version = states[version], version
            game.over = version == len(states) - 1
            game.events.append(events[version])
            for viewer in viewers:
                frame = delta_frame(game, viewer) if deltas else None
                if frame is None:
                    frame = state_frame(game, viewer, version - 1, MAX_GAP, keep=deltas)
                # One encoding per socket (the spectators' frame is shared, not its sends).
                for i in range(spectators if viewer is None else 1):
                    data = frame.encode("utf-8")
                    if deflate:
                        stream = streams[n, viewer, i]
                        data = stream.compress(data) + stream.flush(zlib.Z_SYNC_FLUSH)
                    size += len(data)
                    frames += 1
            actions += 1
    return time.process_time() - began, actions, frames, size


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=1, help="spectator sockets per game")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deflate", action="store_true", help="compress as permessage-deflate")
    args = parser.parse_args()
    games = [play(args.players, args.seed + n) for n in range(args.games)]
    print(
        f"{args.games} games of {args.players} seats and {args.spectators} spectator(s), "
        f"{sum(len(s) - 1 for s, _ in games)} actions; best of {args.repeat} passes"
        f"{', permessage-deflate' if args.deflate else ''}:"
    )
    results = {}
    for deltas in (False, True):
        best = min(
            (
                replay(games, args.players, args.spectators, deltas, args.deflate)
                for _ in range(args.repeat)
            ),
            key=lambda r: r[0],
        )
        cpu, actions, frames, size = best
        results[deltas] = cpu / actions
        print(
            f"  {'delta' if deltas else 'state'} frames: {cpu / actions * 1e6:6.0f} us of CPU per "
            f"action, {size / actions:6.0f} B per action, {size / frames:5.0f} B per frame"
        )
    print(f"  deltas / states CPU: {results[True] / results[False]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
