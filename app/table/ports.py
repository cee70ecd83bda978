"""The narrow interfaces between a table's room, its collaborators and the hub, as protocol types:
the room's collaborators (clock, bots, stand-ins, feed) see the room as an `Actor` and the process
around it as `Services`, and so never import `Room` or `Hub` (which import them)."""

from __future__ import annotations

from typing import Protocol

import engine
from app.core.config import Settings
from app.core.messages import AckOut
from app.core.metrics import Metrics
from app.store.lobby_ports import ReadModel
from app.store.ports import Arrivals, Bus, FeedStore, GameStore, PresenceStore
from app.table.chat_guard import ChatGuard
from app.table.hard_bot_pool import Thinkers
from app.table.listing import Listing
from app.table.live_game import LiveGame
from app.table.push import Pusher


class Idle(Protocol):
    """A room as the hub sees it when deciding whether to drop it."""

    @property
    def table_id(self) -> str: ...

    def idle(self) -> bool: ...


class Services(Protocol):
    """What a room and its collaborators use of this process (the hub, app.table.hub)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def store(self) -> GameStore: ...
    @property
    def arrivals(self) -> Arrivals: ...
    @property
    def feeds(self) -> FeedStore: ...
    @property
    def chat_guard(self) -> ChatGuard: ...
    @property
    def bus(self) -> Bus: ...
    @property
    def reads(self) -> ReadModel: ...
    @property
    def listing(self) -> Listing: ...
    @property
    def presence(self) -> PresenceStore: ...
    @property
    def closed(self) -> bool: ...
    @property
    def thinkers(self) -> Thinkers: ...
    @property
    def push(self) -> Pusher: ...

    def forget_if_idle(self, room: Idle) -> None:
        """Drop the room from this process if nobody uses it any more."""

    def sweep_soon(self) -> None:
        """Catch up, as soon as the database answers, every room that missed something."""

    def missed_since(self, table_id: str, read_at: float) -> bool:
        """Whether a notice for this table came after `read_at` while no room held it."""
        ...


class Actor(Idle, Protocol):
    """A table's room as its collaborators see it: its game, the process around it, and
    `submit`, through which bots and the clock act like people."""

    @property
    def game(self) -> LiveGame | None: ...
    @property
    def hub(self) -> Services: ...

    async def submit(
        self,
        *,
        seat: int,
        action: engine.Action | None,
        action_id: str,
        by_server: bool = False,
        timed_out: bool = False,
    ) -> AckOut:
        """Validate, commit, then push one action (`Room.submit`)."""
        ...
