"""Players who come back, without a password: a browser's player (made on a first visit, known
again by the secret of its cookie, of which only a hash is stored), their name, one-time sign-in
links for another device, signing out, and the seats a player takes back on another browser.

A seat's token stays the seat's (the public contract); a seat taken while signed in is linked to
the player, and the player's other browser gets the seat back with a fresh token (the previous
one then holds nothing: whoever reconnects with it asks for the seat again)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

import segno

import engine
from app.core.errors import Code, ServiceError
from app.core.schemas import JoinOut
from app.core.security import hash_token, new_id, new_token
from app.store.player_ports import HeldSeat, PlayerRec, PlayerStore
from app.store.ports import GameStore
from app.store.records import utcnow

CLAIM_MINUTES = 10
# Failed sign-in link attempts one address may make within CLAIM_WINDOW_SECONDS.
CLAIM_ATTEMPTS = 10
CLAIM_WINDOW_SECONDS = 600.0
_ADDRESSES_KEPT = 10_000

_CLAIM_REFUSED = {
    "unknown": (Code.CLAIM_UNKNOWN, "this sign-in link is not one of ours"),
    "used": (
        Code.CLAIM_USED,
        "this sign-in link was used already: each link signs in one browser once. Make a new "
        "one on your other device",
    ),
    "expired": (
        Code.CLAIM_EXPIRED,
        f"this sign-in link expired: it lasts {CLAIM_MINUTES} minutes. Make a new one on your "
        "other device",
    ),
}


@dataclass(frozen=True, slots=True)
class Visit:
    """Who a browser is: its player, and a new secret to set in its cookie (None: keep it)."""

    player: PlayerRec
    secret: str | None = None
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class Current:
    """A game the player is in now: their seat, whether it waits for them, until when."""

    held: HeldSeat
    your_move: bool = False
    turn: int | None = None
    deadline: datetime | None = None


def _awaiting_first(current: Current) -> tuple[bool, bool, float]:
    deadline = current.deadline
    return (not current.your_move, deadline is None, deadline.timestamp() if deadline else 0.0)


@dataclass(frozen=True, slots=True)
class Claim:
    code: str
    path: str
    expires_in: timedelta
    qr_svg: str


class Players:
    def __init__(self, store: PlayerStore, games: GameStore) -> None:
        self.store = store
        self.games = games
        # address -> (failures, window start): the failed link attempts per address.
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    async def current(self, secret: str | None) -> PlayerRec | None:
        """The player this browser's secret signs in, if any."""
        if not secret or len(secret) > 128:
            return None
        return await self.store.by_secret(hash_token(secret))

    async def signed_in(self, secret: str | None) -> PlayerRec:
        player = await self.current(secret)
        if player is None:
            raise ServiceError(Code.NOT_SIGNED_IN, "this browser is not signed in as a player")
        return player

    async def visit(self, secret: str | None) -> Visit:
        """The browser's player; a first visit (or a cookie naming nobody) makes a new one."""
        player = await self.current(secret)
        if player is not None:
            return Visit(player)
        fresh = new_token()
        made = await self.store.create(new_id(), hash_token(fresh), utcnow())
        return Visit(made, fresh, "new_player" if secret else None)

    async def rename(self, secret: str | None, name: str) -> PlayerRec:
        player = await self.signed_in(secret)
        await self.store.rename(player.id, name)
        return PlayerRec(player.id, name, player.created_at)

    async def new_claim(self, secret: str | None, base_url: str) -> Claim:
        player = await self.signed_in(secret)
        code = new_token()
        expires = timedelta(minutes=CLAIM_MINUTES)
        await self.store.add_claim(player.id, hash_token(code), utcnow() + expires)
        # After `#`: a browser never sends it to a server, so no log or Referer holds it.
        path = f"/me/claim#{code}"
        svg = segno.make(base_url.rstrip("/") + path, error="m").svg_inline(scale=4)
        return Claim(code, path, expires, svg)

    async def redeem(self, code: str, address: str) -> Visit:
        """Sign this browser in by a one-time link: a new secret of the link's player."""
        self._check_attempts(address)
        outcome, player_id = await self.store.use_claim(hash_token(code), utcnow())
        if outcome != "ok" or player_id is None:
            self._failed(address)
            refusal, message = _CLAIM_REFUSED.get(outcome, _CLAIM_REFUSED["unknown"])
            raise ServiceError(refusal, message)
        player = await self.store.player(player_id)
        if player is None:
            raise ServiceError(Code.CLAIM_UNKNOWN, _CLAIM_REFUSED["unknown"][1])
        fresh = new_token()
        await self.store.add_secret(player.id, hash_token(fresh), utcnow())
        return Visit(player, fresh)

    def _check_attempts(self, address: str) -> None:
        failures, since = self._failures.get(address, (0, time.monotonic()))
        if time.monotonic() - since > CLAIM_WINDOW_SECONDS:
            self._failures.pop(address, None)
        elif failures >= CLAIM_ATTEMPTS:
            raise ServiceError(
                Code.RATE_LIMITED, "too many sign-in links tried from your address; wait a while"
            )

    def _failed(self, address: str) -> None:
        failures, since = self._failures.pop(address, (0, time.monotonic()))
        self._failures[address] = (failures + 1, since)
        while len(self._failures) > _ADDRESSES_KEPT:
            self._failures.popitem(last=False)

    async def sign_out(self, secret: str | None) -> None:
        if secret and len(secret) <= 128:
            await self.store.drop_secret(hash_token(secret))

    async def sign_out_everywhere(self, secret: str | None) -> Visit:
        """Every browser of the player signed out; this one signed in again with a new secret."""
        player = await self.signed_in(secret)
        await self.store.drop_secrets(player.id)
        fresh = new_token()
        await self.store.add_secret(player.id, hash_token(fresh), utcnow())
        return Visit(player, fresh)

    async def link_seat(self, secret: str | None, table_id: str, token: str) -> None:
        """The seat this token holds becomes the signed-in player's too."""
        player = await self.signed_in(secret)
        if not await self.store.link_seat(table_id, hash_token(token), player.id):
            raise ServiceError(
                Code.INVALID_TOKEN, "this token holds no seat of yours at that table"
            )

    async def seats(self, secret: str | None) -> list[HeldSeat]:
        player = await self.signed_in(secret)
        return await self.store.seats_of(player.id)

    async def seat_back(self, secret: str | None, table_id: str) -> JoinOut | None:
        """The player's seat at this table, with a new token for this browser; None when they
        hold none there."""
        player = await self.signed_in(secret)
        held = await self.store.seats_of(player.id, table_id)
        if not held:
            return None
        token = new_token()
        await self.store.set_seat_token(held[0].seat_id, hash_token(token))
        return JoinOut(table_id=table_id, seat=held[0].seat, token=token)

    async def public(self, player_id: str) -> PlayerRec:
        player = await self.store.player(player_id)
        if player is None:
            raise ServiceError(Code.PLAYER_NOT_FOUND, "there is no such player")
        return player

    async def playing(self, player: PlayerRec) -> list[Current]:
        """The games the player is in now; for those being played, whether it is their move
        (an open prompt of their seat) and the stored deadline, from the stored game. Those
        waiting for the player come first, the one that times out soonest first (untimed ones
        after), then the others, each as the store lists them (the latest change first)."""
        out = []
        for held in await self.store.seats_of(player.id):
            game = await self.games.load(held.table_id) if held.table_status == "playing" else None
            if game is None or game.over:
                out.append(Current(held))
                continue
            state = game.current_state()
            mine = any(p["seat"] == held.seat for p in engine.prompts(state))
            turn = engine.view(state, None).get("turn")
            out.append(Current(held, mine, turn, game.deadline_at if mine else None))
        # Stable: within each group, the store's order stays.
        return sorted(out, key=_awaiting_first)
