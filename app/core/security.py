"""Seat tokens and identifiers."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    """A seat token: 256 random bits, shown once to the player who joined."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    # Tokens are long random strings, so a plain digest is enough (no dictionary to guess from);
    # a leaked database does not let anyone act for a seat.
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id() -> str:
    """Table and game ids: unguessable, since a private table is reached by its link only."""
    return secrets.token_urlsafe(12)


def new_seed() -> int:
    return secrets.randbits(64)
