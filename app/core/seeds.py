"""Where a new game's seed and its bots' seeds come from: 64 random bits each, or, on a server
started with TEST_SEED (for tests only), numbers that follow from it, so that a test is dealt
the game it needs and its bots play that game the same way every time (but for the hard bot,
whose search stops on CPU time).

With TEST_SEED, the n-th game a database starts (counting from 0) is dealt from TEST_SEED + n,
unless the start request names its seed; a bot's seed, random when it sits down, is replaced at
the start by one made from the game's seed and its seat, and a stand-in's likewise.
"""

from __future__ import annotations

import hashlib
import logging

from app.core.errors import Code, ServiceError

log = logging.getLogger("dragonstones.seeds")

# Seeds are 64-bit unsigned numbers (stored as decimal text).
SEED_LIMIT = 2**64


def announce(test_seed: int | None) -> None:
    """Say loudly, once at start, that this server's deals can be known in advance."""
    if test_seed is not None:
        log.warning(
            "TEST_SEED is set (%s): every game's deal and every bot's move can be known in "
            "advance. This is for tests only: never on a server people play on.",
            test_seed,
        )


def refuse_unless_testing(test_seed: int | None, asked: int | None) -> None:
    """A start request that names the game's seed is refused unless TEST_SEED is set."""
    if asked is not None and test_seed is None:
        raise ServiceError(
            Code.INVALID_REQUEST,
            "a game's seed may be named only on a server started with TEST_SEED (for tests)",
        )


def game_seed(test_seed: int, games_before: int, asked: int | None = None) -> int:
    """The seed of a new game under TEST_SEED: the one the start request named, else TEST_SEED
    plus the number of games the database started before this one. (Without TEST_SEED a game's
    seed is `app.core.security.new_seed()`.)"""
    if asked is not None:
        return asked
    return (test_seed + games_before) % SEED_LIMIT


def bot_seed(game_seed: int, seat: int, role: str = "bot") -> int:
    """The seed of the bot at `seat` of a game dealt under TEST_SEED (`role`: "bot" for a bot
    seated before the start, "stand-in" for one playing for an absent person)."""
    digest = hashlib.sha256(f"dragonstones-{role}:{game_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
