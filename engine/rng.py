"""The game's random generator: SplitMix64, whose whole state is one integer kept in the game state.

Python's `random` is not used: its algorithms are not promised stable across versions, and its
state is large. SplitMix64 is tiny, fast enough, and gives the same numbers on every machine.
"""

from __future__ import annotations

import hashlib

MASK = (1 << 64) - 1


def initial_state(seed: int) -> int:
    """Derive the generator's starting state from a seed of any size."""
    digest = hashlib.sha256(f"dragonstones-rng:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def commitment(seed: int) -> str:
    """The public SHA-256 commitment of a seed: sha256("dragonstones:<seed>") in hex."""
    return hashlib.sha256(f"dragonstones:{seed}".encode()).hexdigest()


def next64(state: int) -> tuple[int, int]:
    """Advance the generator: returns (new state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) without modulo bias: returns (new state, value)."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, x = next64(state)
        if x < limit:
            return state, x % n
