"""The smallest move of a prompt (bid nothing, no Silver, the first option): what a scripted seat
plays to bring a game along without deciding anything, in the browser tests (tests/browser/driver.py)
and in the load benchmarks (bench/people.py)."""

from __future__ import annotations

from typing import Any

SMALLEST = {
    "bid": {
        "type": "bid",
        "fairy_gold": 0,
        "common_gold": 0,
        "amulet": False,
        "black_magic": False,
    },
    "tiebreak": {"type": "tiebreak", "silver": 0, "amulet": False},
}


def smallest(prompt: dict[str, Any]) -> dict[str, Any]:
    """The smallest move answering this prompt (a fresh dict: the caller may change it)."""
    if prompt["kind"] == "choose":
        return {"type": "choose", "option": prompt["options"][0]["id"]}
    return dict(SMALLEST[prompt["kind"]])
