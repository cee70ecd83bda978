"""Web Push to players away from a table: who is told what, off the request path. The room calls
`moved` after each commit it makes (and at the start), the stand-ins call `stood_in`: each only
puts a job on a queue. One task drains it: for each seated player with no socket open on that
table (here or, by presence, in another process: as this process knows it once the commit's own
notice is heard, else as stored; app.table.hub `known_online`), at most one push per table per
PUSH_EVERY_MINUTES, to each of their subscribed browsers (app.table.push_send sends, retries,
drops what is gone). Subscriptions are added and removed here too, their endpoints checked."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import timedelta

import engine
from app.core.clock import server_clock
from app.core.config import Settings
from app.core.errors import Code, ServiceError, StoreError
from app.core.metrics import Metrics
from app.core.push_schemas import PushKind, PushPayload
from app.core.security import hash_token
from app.store.push_ports import PushStore, Seated, SeatedPerson, Subscription, VapidKeys
from app.table.push_send import Sender, allowed_endpoint, keys_from_setting, make_keys

log = logging.getLogger("dragonstones.push")

QUEUE_SIZE = 10_000  # jobs waiting; beyond, a push is dropped (and counted)
# How long a job waits for its own commit's notice (a few milliseconds as a rule) before asking
# the database who is online.
HEARD_WAIT_SECONDS = 0.5

# (table, version of the commit, longest wait, seats asked about) -> the seats known online, or
# None: ask the database.
Known = Callable[[str, int | None, float, Collection[int]], Awaitable[Collection[int] | None]]


@dataclass(frozen=True, slots=True)
class Job:
    kind: PushKind
    table_id: str
    seats: frozenset[int] = frozenset()  # for a move: the seats bots play, left out
    version: int | None = None  # for a move: the version its commit made
    # your_turn: the commit's states and acting seat, whose prompts the task compares (off the
    # action path; a state is never changed in place).
    move: tuple[engine.State | None, engine.State, int | None] | None = None

    def told(self) -> frozenset[int]:
        """The seats this job is about: for a move, those it newly asks (the acting seat, asked
        again, counts as newly asked)."""
        if self.move is None:
            return self.seats
        before, after, seat = self.move
        waiting = prompted(before) - ({seat} if seat is not None else set())
        return frozenset(prompted(after) - waiting - self.seats)


def prompted(state: engine.State | None) -> set[int]:
    return {p["seat"] for p in engine.prompts(state)} if state is not None else set()


def text_of(kind: PushKind, host: str | None) -> tuple[str, str]:
    """(title, body) in English; the service worker says it in the browser's language."""
    table = f"{host}'s table" if host else "your table"
    if kind == "your_turn":
        return "Your turn", f"Your turn at {table}"
    if kind == "ended":
        return "Game over", f"The game at {table} ended"
    return "A stand-in plays for you", f"You were handed to a stand-in at {table}"


class Pusher:
    def __init__(
        self,
        settings: Settings,
        store: PushStore,
        metrics: Metrics,
        known: Known,
        stale: timedelta,
        here: Callable[[str], Collection[int]],
    ) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        # The seats online as this process knows without asking: a socket here, or elsewhere by
        # the table's rows in memory while they stand for the database (app.table.hub).
        self.known = known
        self.here = here  # the seats of a table with a socket in this process
        self.stale = stale  # stored presence older than this counts as away
        self.keys: VapidKeys | None = None
        self.sender: Sender | None = None
        self.queue: asyncio.Queue[Job] = asyncio.Queue(QUEUE_SIZE)
        self._drainer: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()

    @property
    def available(self) -> bool:
        return self.sender is not None

    async def start(self) -> None:
        """The key pair (the setting's, or the database's, made at the first start), then the
        task that drains the queue. Without a database answer push stays off in this process."""
        if not self.settings.push_enabled:
            return
        try:
            if self.settings.push_vapid_private_key:
                self.keys = keys_from_setting(self.settings.push_vapid_private_key)
            else:
                self.keys = await self.store.keys(make_keys, server_clock.now())
        except StoreError as exc:
            log.error("push is off: the VAPID keys could not be read: %r", exc)
            return
        except Exception as exc:  # a key that is not one: the server plays on, without push
            log.error("push is off: PUSH_VAPID_PRIVATE_KEY is not a P-256 private key: %r", exc)
            return
        self.sender = Sender(self.settings, self.metrics, self.keys, self.store.drop)
        self._drainer = asyncio.create_task(self._drain(), name="push")

    async def close(self) -> None:
        tasks = [t for t in (self._drainer, *self._sending) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.sender is not None:
            await self.sender.close()

    # -- what happened (from the room and the stand-ins: never waits, never raises) -------------

    def moved(
        self,
        table_id: str,
        before: engine.State | None,
        after: engine.State,
        seat: int | None,
        over: bool,
        bots: Collection[int] = (),
        version: int | None = None,
    ) -> None:
        """A commit of this process (at `version`, None: unknown): the seats it newly asks, or
        everyone when the game ended (worked out by the queue's task). `bots`: the seats bots
        play (stand-ins too), never told. No job while every seat has a socket here."""
        if not self.available or len(self.here(table_id)) >= len(after.players):
            return  # every seat has a socket here: nobody is away (no job for the task)
        if over:
            self._put(Job("ended", table_id))
        else:
            move = (before, after, seat)
            self._put(Job("your_turn", table_id, frozenset(bots), version, move))

    def started(self, table_id: str, state: engine.State | None) -> None:
        """A game started here: everyone is asked to bid."""
        if state is not None:
            self.moved(table_id, None, state, None, engine.is_over(state))

    def stood_in(self, table_id: str, seat: int) -> None:
        if self.available:
            self._put(Job("stand_in", table_id, seats=frozenset({seat})))

    def _put(self, job: Job) -> None:
        try:
            self.queue.put_nowait(job)
        except asyncio.QueueFull:
            self.metrics.push_failures.labels("queue_full").inc()

    # -- the queue's task --------------------------------------------------------------------------

    async def _drain(self) -> None:
        while True:
            job = await self.queue.get()
            try:
                await self._handle(job)
            except StoreError as exc:
                self.metrics.push_failures.labels("database").inc()
                log.warning("push for table %s not sent: %r", job.table_id, exc)
            except Exception:
                self.metrics.push_failures.labels("error").inc()
                log.exception("push for table %s failed", job.table_id)

    async def _handle(self, job: Job) -> None:
        assert self.sender is not None
        now = server_clock.now()
        seats = job.told()
        if job.kind != "ended" and not seats:
            return
        version = job.version if job.kind == "your_turn" else None
        known = await self.known(job.table_id, version, HEARD_WAIT_SECONDS, seats)
        here = set(known or ())
        if job.kind != "ended" and seats <= here:
            # Every seat told is known online (the usual case after a move): nobody to wake, and
            # no query to find out (one per move otherwise).
            self.metrics.push_skipped.labels("watching").inc(len(seats))
            return
        self.metrics.push_lookups.inc()
        seated = await self.store.seated(job.table_id, now, self.stale)
        every = timedelta(minutes=self.settings.push_every_minutes)
        for person in self._told(job.kind, seats, seated):
            if person.online or person.seat in here:
                self.metrics.push_skipped.labels("watching").inc()
                continue
            assert person.player_id is not None
            subs = await self.store.subscriptions(person.player_id)
            if not subs:
                continue
            if every > timedelta(0) and not await self.store.claim(
                person.player_id, job.table_id, now, every
            ):
                self.metrics.push_skipped.labels("rate_limited").inc()
                continue
            title, body = text_of(job.kind, seated.host)
            data = PushPayload(
                kind=job.kind, table_id=job.table_id, host=seated.host,
                url=f"/t/{job.table_id}", title=title, body=body,
            ).model_dump_json()  # fmt: skip
            for sub in subs:
                task = asyncio.create_task(self.sender.send(sub, data))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)

    @staticmethod
    def _told(kind: PushKind, seats: frozenset[int], seated: Seated) -> list[SeatedPerson]:
        people = [p for p in seated.people if p.player_id is not None]
        if kind == "ended":
            return people
        if kind == "your_turn":
            # A stand-in plays that seat's turns: nobody to wake.
            return [p for p in people if p.seat in seats and not p.stand_in]
        return [p for p in people if p.seat in seats]

    # -- subscriptions (from the routes) ---------------------------------------------------------

    async def subscribe(self, player_id: str, secret: str, sub: Subscription) -> None:
        if not self.available:
            raise ServiceError(Code.INVALID_REQUEST, "this server does not send notifications")
        if not allowed_endpoint(sub.endpoint, self.settings):
            raise ServiceError(
                Code.INVALID_REQUEST, "the endpoint is not a push service this server posts to"
            )
        await self.store.subscribe(
            player_id, hash_token(secret), sub, server_clock.now(),
            self.settings.push_subscriptions_per_player,
        )  # fmt: skip

    async def signed_out(self, secret: str | None) -> None:
        """This browser signed out: no more pushes to it for that player."""
        if secret:
            await self.store.forget_browser(hash_token(secret))

    async def signed_out_everywhere(self, player_id: str) -> None:
        await self.store.forget_player(player_id)

    async def unsubscribe(self, player_id: str, endpoint: str) -> bool:
        return await self.store.unsubscribe(player_id, endpoint)
