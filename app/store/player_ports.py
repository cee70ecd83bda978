"""The players' stores as the layers above see them (protocol types), and the records they hand
up: who a browser's secret belongs to, one-time sign-in links, the seats a player took; finished
games recorded per seat, and ratings. Implemented once for both databases (app.store.players,
app.store.history); Postgres adds a lock where SQLite's single writer serialises already.

A store raises only `ServiceError`s of its own and the store's errors of app.core.errors, never a
driver's exception."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

# What redeeming a sign-in link found: it signed in, or why not.
ClaimOutcome = Literal["ok", "used", "expired", "unknown"]
# (mu, sigma) of a rating
Skill = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PlayerRec:
    id: str
    name: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A person's seat a player took (its token's hash left out)."""

    seat_id: int
    table_id: str
    seat: int
    name: str
    table_status: str


@dataclass(frozen=True, slots=True)
class SeatAtEnd:
    """A seat of a finished game as stored: who sat there and how it ended."""

    seat: int
    name: str
    bot: bool
    bot_kind: str | None
    stand_in: bool
    player_id: str | None


@dataclass(frozen=True, slots=True)
class Ended:
    """A finished game not yet recorded: its final state (engine.dumps) and its seats."""

    game_id: str
    table_id: str
    players: int
    state: str
    finished_at: datetime
    seats: list[SeatAtEnd]
    league_id: str | None = None  # the league its table was made for


@dataclass(frozen=True, slots=True)
class Placement:
    seat: int
    name: str
    player_id: str | None
    rating_key: str | None  # a player's id, "bot:<kind>", or None (a guest: not rated)
    bot_kind: str | None
    left: bool  # a stand-in finished for them
    score: int
    place: int  # 1 = first; equal scores share a place


@dataclass(frozen=True, slots=True)
class Result:
    """A recorded game: `id` is the order it moved ratings in."""

    id: int
    game_id: str
    table_id: str
    players: int
    rated: bool
    finished_at: datetime
    placements: list[Placement]
    league_id: str | None = None


@dataclass(frozen=True, slots=True)
class RatingRec:
    key: str
    mu: float
    sigma: float
    games: int
    wins: int


# Given the stored ratings of a game's rated seats (a key absent: not rated yet), their new ones.
Rate = Callable[[Mapping[str, "RatingRec"]], Mapping[str, "RatingRec"]]


class PlayerStore(Protocol):
    """Players, their browsers' secrets, their sign-in links and the seats they took."""

    async def create(self, player_id: str, secret_hash: str, now: datetime) -> PlayerRec: ...

    async def by_secret(self, secret_hash: str) -> PlayerRec | None:
        """The player this secret's hash signs in, if any."""
        ...

    async def player(self, player_id: str) -> PlayerRec | None: ...

    async def rename(self, player_id: str, name: str) -> None: ...

    async def add_secret(self, player_id: str, secret_hash: str, now: datetime) -> None: ...

    async def drop_secret(self, secret_hash: str) -> None:
        """This browser is signed out."""
        ...

    async def drop_secrets(self, player_id: str) -> None:
        """Every browser of the player is signed out, and their open sign-in links are void."""
        ...

    async def add_claim(self, player_id: str, claim_hash: str, expires_at: datetime) -> None: ...

    async def use_claim(self, claim_hash: str, now: datetime) -> tuple[ClaimOutcome, str | None]:
        """Redeem a sign-in link once: ("ok", its player) the first time before it expires."""
        ...

    async def link_seat(self, table_id: str, token_hash: str, player_id: str) -> bool:
        """Bind the person's seat this token holds at the table to the player; False when the
        token holds none there, or the seat is another player's."""
        ...

    async def seats_of(self, player_id: str, table_id: str | None = None) -> list[HeldSeat]:
        """The seats the player holds at tables not over (at one table: `table_id`)."""
        ...

    async def set_seat_token(self, seat_id: int, token_hash: str) -> None:
        """A new token for the seat (another browser of its player): the old one holds nothing."""
        ...


class HistoryStore(Protocol):
    """Finished games recorded per seat, and the ratings they moved."""

    async def unrecorded(self, limit: int, since: datetime | None = None) -> list[Ended]:
        """Finished games not recorded yet, the earliest finished first (`since`: those that
        finished then or later only)."""
        ...

    async def record(
        self, ended: Ended, rated: bool, placements: list[Placement], rate: Rate
    ) -> bool:
        """Record the game and, when `rated`, move its seats' ratings (`rate`) in the same
        transaction, one recording at a time; False when it was recorded already."""
        ...

    async def results_of(self, player_id: str, before: int | None, limit: int) -> list[Result]:
        """The player's recorded games, newest first, those older than result `before`."""
        ...

    async def ratings(self, keys: list[str]) -> dict[str, RatingRec]: ...

    async def rating_and_results(
        self, player_id: str, limit: int
    ) -> tuple[RatingRec | None, list[Result]]:
        """A player's rating and last `limit` recorded games (newest first), read together."""
        ...

    def everything(self, batch: int = 500) -> AsyncIterator[Result]:
        """Every recorded game, in the order it moved ratings."""
        ...

    async def replace_ratings(self, ratings: Mapping[str, RatingRec]) -> None:
        """Every stored rating replaced by these (a rebuild), in one transaction."""
        ...


@dataclass(frozen=True, slots=True)
class PairRec:
    """Two players' games together in a league, and how often each finished ahead (a < b)."""

    a: str
    b: str
    games: int
    a_ahead: int
    b_ahead: int


@dataclass(frozen=True, slots=True)
class Standing:
    """A league's standings as stored: ratings by key and pairs by (a, b), a < b, over its
    recorded games up to result `folded_through` (0: none)."""

    league_id: str
    folded_through: int
    ratings: dict[str, RatingRec]
    pairs: dict[tuple[str, str], PairRec]


@dataclass(frozen=True, slots=True)
class LeagueRec:
    id: str
    name: str
    invite: str
    created_by: str


@dataclass(frozen=True, slots=True)
class LeagueView:
    """What a league's page reads, at once: the league, its members (in the order they joined),
    its stored standings and its last games (in recording order)."""

    league: LeagueRec
    members: list[PlayerRec]
    standing: Standing
    last: list[Result]


class LeagueStore(Protocol):
    """Friends' leagues: members, tables made for a league, its recorded games."""

    async def create(self, league: LeagueRec) -> None:
        """The league, its creator its first member."""
        ...

    async def league(self, league_id: str) -> LeagueRec | None: ...

    async def by_invite(self, invite: str) -> LeagueRec | None: ...

    async def join(self, league_id: str, player_id: str) -> bool:
        """False when the player was a member already."""
        ...

    async def members(self, league_id: str) -> list[PlayerRec]: ...

    async def leagues_of(self, player_id: str) -> list[LeagueRec]: ...

    async def set_table_league(self, table_id: str, league_id: str) -> None: ...

    async def results_after(self, league_id: str, after: int, limit: int) -> list[Result]:
        """The league's recorded games after result `after`, in the order they were recorded
        (the first `limit`)."""
        ...

    async def view(self, league_id: str, last: int) -> LeagueView | None:
        """The league, its members, its stored standings and its `last` games, read together;
        None when there is no such league."""
        ...

    async def standing(self, league_id: str) -> Standing:
        """The league's stored standings and the last recorded game folded into them."""
        ...

    async def fold(self, was: Standing, now: Standing) -> bool:
        """Store `now` (the ratings and pairs it holds replace those keys' and pairs' stored
        ones) if the league's stored standings still end at `was.folded_through`; False when
        another reader folded first (nothing written)."""
        ...

    async def replace_standing(self, standing: Standing) -> None:
        """The league's stored standings replaced by these, whatever they were (a rebuild)."""
        ...
