"""Lossless text form of a game state: `loads(dumps(state))` equals `state`."""

from __future__ import annotations

import json
from typing import Any

from .errors import IllegalAction
from .state import Bank, Bid, GameState, Option, Player, Question, Record, Task, TieBid

FORMAT = 1


def _bids(bids: dict[int, Bid] | None) -> list[list[Any]] | None:
    if bids is None:
        return None
    return [[s, b.fairy_gold, b.common_gold, b.amulet, b.black_magic] for s, b in bids.items()]


def _tiebids(bids: dict[int, TieBid] | None) -> list[list[Any]] | None:
    if bids is None:
        return None
    return [[s, b.silver, b.amulet] for s, b in bids.items()]


def to_dict(st: GameState) -> dict[str, Any]:
    q = st.question
    return {
        "format": FORMAT,
        "players": [
            [
                p.seat,
                p.score,
                p.stones,
                p.fairy_gold,
                p.common_gold,
                p.silver,
                p.amulets,
                p.black_magic,
                p.fairy_gold_spent,
            ]
            for p in st.players
        ],
        "bank": [
            st.bank.fairy_gold,
            st.bank.common_gold,
            st.bank.silver,
            st.bank.amulets,
            st.bank.stones,
        ],
        "seed": str(st.seed),  # a string: seeds may exceed what JSON readers keep exact
        "seed_commitment": st.seed_commitment,
        "rng": str(st.rng),
        "turn": st.turn,
        "phase": st.phase,
        "card": st.card,
        "specials": st.specials,
        "pile": st.pile,
        "special_deck": st.special_deck,
        "used_specials": st.used_specials,
        "doppelganger": st.doppelganger,
        "records": [
            {
                "card": r.card,
                "via": r.via,
                "bids": _bids(r.bids),
                "tied": r.tied,
                "tiebreak": _tiebids(r.tiebreak),
                "winner": r.winner,
                "cursed": r.cursed,
                "necromancer_used": r.necromancer_used,
            }
            for r in st.records
        ],
        "sealed": _bids(st.sealed),
        "tied": st.tied,
        "sealed_tiebreak": _tiebids(st.sealed_tiebreak),
        "tasks": [
            [t.card, t.seat, t.auction, t.step, t.target, t.drawn, t.doppel_offer] for t in st.tasks
        ],
        "question": None
        if q is None
        else {
            "seat": q.seat,
            "character": q.character,
            "step": q.step,
            "text": q.text,
            "options": [[o.id, o.label, o.data] for o in q.options],
            "always_ask": q.always_ask,
        },
        "bag": st.bag,
        "winner": st.winner,
    }


def dumps(st: GameState) -> str:
    """The state as compact JSON text."""
    return json.dumps(to_dict(st), separators=(",", ":"), ensure_ascii=False)


def _load_bids(raw: list[list[Any]] | None) -> dict[int, Bid] | None:
    if raw is None:
        return None
    return {int(s): Bid(f, c, a, b) for s, f, c, a, b in raw}


def _load_tiebids(raw: list[list[Any]] | None) -> dict[int, TieBid] | None:
    if raw is None:
        return None
    return {int(s): TieBid(v, a) for s, v, a in raw}


def from_dict(d: dict[str, Any]) -> GameState:
    if d.get("format") != FORMAT:
        raise IllegalAction("malformed", f"unknown state format {d.get('format')!r}")
    q = d["question"]
    return GameState(
        players=[
            Player(s, sc, list(st), fg, cg, si, am, bm, sp)
            for s, sc, st, fg, cg, si, am, bm, sp in d["players"]
        ],
        bank=Bank(d["bank"][0], d["bank"][1], d["bank"][2], d["bank"][3], list(d["bank"][4])),
        seed=int(d["seed"]),
        seed_commitment=d["seed_commitment"],
        rng=int(d["rng"]),
        turn=d["turn"],
        phase=d["phase"],
        card=d["card"],
        specials=list(d["specials"]),
        pile=list(d["pile"]),
        special_deck=list(d["special_deck"]),
        used_specials=list(d["used_specials"]),
        doppelganger=d["doppelganger"],
        records=[
            Record(
                r["card"],
                r["via"],
                _load_bids(r["bids"]),
                r["tied"],
                _load_tiebids(r["tiebreak"]),
                r["winner"],
                r["cursed"],
                r["necromancer_used"],
            )
            for r in d["records"]
        ],
        sealed=_load_bids(d["sealed"]) or {},
        tied=list(d["tied"]),
        sealed_tiebreak=_load_tiebids(d["sealed_tiebreak"]) or {},
        tasks=[
            Task(c, s, a, step, target, None if drawn is None else list(drawn), doppel)
            for c, s, a, step, target, drawn, doppel in d["tasks"]
        ],
        question=None
        if q is None
        else Question(
            q["seat"],
            q["character"],
            q["step"],
            q["text"],
            tuple(Option(i, label, data) for i, label, data in q["options"]),
            q["always_ask"],
        ),
        bag=None if d["bag"] is None else list(d["bag"]),
        winner=d["winner"],
    )


def loads(text: str) -> GameState:
    """Rebuild a state from `dumps` text; anything else raises IllegalAction("malformed")."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise IllegalAction("malformed", "a game state is a JSON object")
        return from_dict(data)
    except IllegalAction:
        raise
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        raise IllegalAction("malformed", f"not a game state: {exc!r}") from exc
