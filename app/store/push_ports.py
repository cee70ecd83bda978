"""The Web Push store as the layers above see it (a protocol type), and the records it hands up:
the server's key pair, a browser's subscription, the people seated at a table. Implemented once
for both databases (app.store.push)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol


@dataclass(frozen=True, slots=True)
class VapidKeys:
    private_key: str  # base64url of the raw 32 bytes
    public_key: str  # base64url of the uncompressed point: the browser's applicationServerKey


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


@dataclass(frozen=True, slots=True)
class SeatedPerson:
    """A person's seat at a table, as a push needs it."""

    seat: int
    name: str
    player_id: str | None  # None: a guest, who cannot be pushed to
    stand_in: bool
    online: bool  # a socket of this seat is open in some process (stored presence)


@dataclass(frozen=True, slots=True)
class Seated:
    host: str | None  # the host's name: "your turn at Ana's table"
    people: list[SeatedPerson]


class PushStore(Protocol):
    async def keys(self, make: Callable[[], VapidKeys], now: datetime) -> VapidKeys:
        """The stored key pair; the first caller stores `make()`'s (one pair for every
        process, whichever stores it first)."""
        ...

    async def subscribe(
        self, player_id: str, secret_hash: str, sub: Subscription, now: datetime, keep: int
    ) -> None:
        """Add (or move to this player) a browser's subscription; a player keeps their `keep`
        newest."""
        ...

    async def forget_browser(self, secret_hash: str) -> None:
        """That browser signed out: its subscriptions end."""
        ...

    async def forget_player(self, player_id: str) -> None:
        """Every browser of the player signed out."""
        ...

    async def unsubscribe(self, player_id: str, endpoint: str) -> bool: ...
    async def drop(self, endpoint: str) -> None:
        """The push service said the subscription is gone (404, 410)."""
        ...

    async def subscriptions(self, player_id: str) -> list[Subscription]: ...
    async def seated(self, table_id: str, now: datetime, stale: timedelta) -> Seated: ...
    async def claim(self, player_id: str, table_id: str, now: datetime, every: timedelta) -> bool:
        """True, and noted, when this player was not pushed about this table within
        `every`; False otherwise (the rate limit)."""
        ...
