"""Finished games analysed in the background (engine.analysis), and the figures shown of them.

An analysis is asked for when its page or its API is first opened, then runs a few decisions at
a time in a pool of worker processes of its own, off the event loop, at the lowest CPU priority
(`ANALYSIS_NICE`, below the hard bots' workers): games being played are served first. Each batch
is stored as it comes (app.store.analyses), so that what is done is shown at once and a server
started again resumes the analyses left unfinished. One process runs one analysis of a game at a
time; two replicas that both run it store the same rows (it is seeded), the second's ignored.

`figures` turns the stored decisions into what the page and `dragonstones analyse` print alike:
each decision, each player's summary and the key moments.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, cast

import engine
from app.core.errors import ServiceError, StoreError
from app.store.lobby_ports import ReadModel
from app.store.ports import AnalysisStore
from app.store.records import FinishedGame
from app.table.hard_bot_pool import start_worker
from engine.analysis import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    Decision,
    analyse_game,
    key_moments,
    summary,
)

log = logging.getLogger("dragonstones.analysis")

BATCH = 4  # decisions per call to a worker
# Results are stored at most this often (the first batch at once, so the page shows progress):
# on SQLite every write waits for the one writer, which people's actions need too.
STORE_SECONDS = 1.0

Actions = list[tuple[int, engine.Action]]


def analyse_batch(
    players: int, seed: int, actions: Actions, start: int, stop: int, worlds: int
) -> list[dict[str, Any]]:
    """In a worker: the analyses of the decisions start..stop-1 of a game."""
    decisions = analyse_game(players, seed, actions[:stop], worlds=worlds, skip=start)
    return [d.to_json() for d in decisions]


def figures(decisions: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """What is shown of an analysis: the decisions, each player's summary, the key moments and
    the thresholds of the labels."""
    parsed = [Decision(**d) for d in decisions]
    return {
        "decisions": decisions,
        "summary": summary(parsed, players),
        "key_moments": key_moments(parsed),
        "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
    }


class Analyst:
    """This process's analyses of finished games."""

    def __init__(
        self, store: AnalysisStore, reads: ReadModel, worlds: int, workers: int, niceness: int
    ) -> None:
        self.store = store
        self.reads = reads
        self.worlds = worlds
        self.workers = workers
        self.niceness = niceness
        self.pool: ProcessPoolExecutor | None = None
        self.running: dict[str, asyncio.Task[None]] = {}
        self._resuming: asyncio.Task[None] | None = None

    async def request(self, game: FinishedGame) -> None:
        """Ask for `game`'s analysis: started here unless it is finished or running here."""
        if game.id in self.running:
            return  # asked every time its page polls: no write while it runs
        await self.store.request(game.id, self.worlds, len(game.actions))
        self._start(game)

    def resume_soon(self) -> None:
        """Resume, in the background, the analyses a previous server left unfinished."""
        self._resuming = asyncio.create_task(self._resume(), name="analysis-resume")

    async def _resume(self) -> None:
        try:
            for game_id in await self.store.unfinished(self.worlds):
                self._start(await self.reads.finished_game(game_id))
        except (StoreError, ServiceError) as exc:
            log.warning("the unfinished analyses could not be resumed: %s", exc)

    def _start(self, game: FinishedGame) -> None:
        if game.id not in self.running:
            task = asyncio.create_task(self._run(game), name=f"analysis-{game.id}")
            self.running[game.id] = task

    def _executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(self.niceness,),
            )
        return self.pool

    async def _run(self, game: FinishedGame) -> None:
        actions: Actions = [(seat, action) for _, seat, action in game.actions]
        loop = asyncio.get_running_loop()
        broken = 0
        unsaved: list[dict[str, Any]] = []
        saved_at: float | None = None
        try:
            stored = await self.store.decisions(game.id, self.worlds)
            start = len(stored)
            if start:
                log.info("analysis of %s resumed at decision %d", game.id, start)
            while start < len(actions):
                stop = min(len(actions), start + BATCH)
                pool = self._executor()
                try:
                    batch = await loop.run_in_executor(
                        pool,
                        analyse_batch,
                        game.players,
                        int(game.seed),
                        actions,
                        start,
                        stop,
                        self.worlds,
                    )
                except BrokenProcessPool:
                    log.warning("the analysis workers' pool broke; starting a new one")
                    if self.pool is pool:
                        self.pool = None
                    broken += 1
                    if broken > 2:
                        return
                    continue
                unsaved += batch
                start = stop
                now = time.monotonic()
                if saved_at is None or now - saved_at >= STORE_SECONDS or start >= len(actions):
                    await self.store.add(game.id, self.worlds, unsaved)
                    unsaved, saved_at = [], now
            await self.store.finish(game.id, self.worlds)
        except StoreError as exc:
            # Asked for again (the page polls), it resumes from what was stored.
            log.warning("the analysis of %s stopped: %s", game.id, exc)
        except asyncio.CancelledError:
            raise
        except Exception:  # a record that does not replay, a worker's error: said, not hidden
            log.exception("the analysis of %s failed", game.id)
        finally:
            self.running.pop(game.id, None)

    async def close(self) -> None:
        tasks = [t for t in (self._resuming, *self.running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


def analyse_record(record: dict[str, Any], worlds: int) -> dict[str, Any]:
    """A finished game's public record analysed here, at once: the figures the page shows."""
    players = int(record["seats"])
    actions = [(int(a["seat"]), cast(engine.Action, a["action"])) for a in record["actions"]]
    decisions = [
        d.to_json() for d in analyse_game(players, int(record["seed"]), actions, worlds=worlds)
    ]
    return {"worlds": worlds, "total": len(actions), **figures(decisions, players)}


def percent(x: float | None) -> str:
    """A chance as the page shows it."""
    return "-" if x is None else f"{x * 100:.1f}%"


def describe(action: dict[str, Any], options: dict[str, str]) -> str:
    """An action in a few words (the page says the same in the reader's language)."""
    if action["type"] == "bid":
        gold = action["fairy_gold"] + action["common_gold"]
        extra = (" + Amulet" if action["amulet"] else "") + (
            " + Black Magic" if action["black_magic"] else ""
        )
        return f"bid {gold} gold{extra}"
    if action["type"] == "tiebreak":
        return f"bid {action['silver']} Silver" + (" + Amulet" if action["amulet"] else "")
    return str(options.get(action["option"], action["option"]))


def analysis_lines(figs: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """The figures as a table of text (`dragonstones analyse`)."""
    names = {int(p["seat"]): str(p["name"]) for p in record.get("players", [])}
    lines = [
        f"game {record.get('id')}: {figs['total']} decisions, estimates from each seat's own "
        f"view, {figs['worlds']} sampled worlds per decision",
        f"{'step':>4}  {'player':<12} {'decision':<24} {'taken':<22} {'best':<22} "
        f"{'chance':>7} {'best':>7} {'loss':>6} {'playouts':>8}  label",
    ]
    for d in figs["decisions"]:
        what = f"{d['kind']} {d['character']}" + (f" {d['step']}" if d["step"] else "")
        lines.append(
            f"{d['index'] + 1:>4}  {names.get(d['seat'], str(d['seat'])):<12.12} {what:<24.24} "
            f"{describe(d['action'], d['options']):<22.22} "
            f"{describe(d['best'], d['options']):<22.22} {percent(d['chance']):>7} "
            f"{percent(d['best_chance']):>7} {percent(d['loss']):>6} {d['playouts']:>8}  "
            f"{d['label']}"
        )
    lines.append("players:")
    for row in figs["summary"]:
        labels = row["labels"]
        lines.append(
            f"  {names.get(row['seat'], str(row['seat']))}: {row['decisions']} decisions, "
            f"{labels['inaccuracy']} inaccuracies, {labels['mistake']} mistakes, "
            f"{labels['blunder']} blunders, average loss {percent(row['average_loss'])}"
        )
    lines.append("key moments:")
    for m in figs["key_moments"]:
        lines.append(
            f"  step {m['index'] + 1}: {names.get(m['seat'], str(m['seat']))} "
            f"{'+' if m['swing'] > 0 else ''}{m['swing'] * 100:.1f} points of chance"
        )
    return lines
