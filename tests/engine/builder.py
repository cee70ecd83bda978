"""Build game states for scenario tests from a short description.

    st = build(players=3, card="thief", stones={0: "rrb", 1: "y"}, coins={0: "fg5 cg1"})

Everything not described keeps a plain default (no stones, 8 Fairy Gold, 2 Common Gold, 5 Silver,
score 0). The bank is what the box holds minus what the players hold, so every coin and stone of
the box is somewhere, as in a real game.
"""

from __future__ import annotations

from typing import Any

import engine
from engine.state import (
    BOX_AMULETS,
    BOX_COMMON_GOLD,
    BOX_FAIRY_GOLD,
    BOX_SILVER,
    BOX_STONES_PER_COLOUR,
    COLOURS,
    Bid,
    GameState,
    Record,
    TieBid,
)

COIN_KEYS = {"fg": "fairy_gold", "cg": "common_gold", "si": "silver", "am": "amulets",
             "bm": "black_magic", "sp": "fairy_gold_spent"}


def parse_stones(text: str) -> list[int]:
    """"rrby" -> [2, 1, 1]; also "r2 b1" style."""
    stones = [0, 0, 0]
    text = text.replace(" ", "")
    i = 0
    while i < len(text):
        colour = "rby".index(text[i])
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        stones[colour] += int(text[i + 1:j]) if j > i + 1 else 1
        i = j
    return stones


def parse_coins(text: str) -> dict[str, int]:
    """"fg5 cg1 si0 am1 bm1 sp3" -> field values (missing fields keep their default)."""
    out = {}
    for part in text.split():
        out[COIN_KEYS[part[:2]]] = int(part[2:])
    return out


def build(players: int = 3, *, seed: int = 1, card: str = "red_dragon", phase: str = "bid",
          stones: dict[int, str] | None = None, coins: dict[int, str] | None = None,
          scores: dict[int, int] | None = None, pile: list[str] | None = None,
          specials: list[str] | None = None, records: list[Record] | None = None,
          doppelganger: int | None = None, bank_stones: str | None = None,
          used_specials: list[str] | None = None, turn: int = 1) -> GameState:
    """A state at the start of an auction for `card` (phase "bid"), described briefly."""
    st = engine.new_game(players, seed)
    specials = specials if specials is not None else ["fairy", "gnome"]
    st.turn = turn
    st.phase = "bid"  # type: ignore[assignment]
    st.card = card
    st.specials = list(specials)
    st.pile = list(pile) if pile is not None else []
    st.records = list(records) if records is not None else [Record("witch", bids={})]
    st.doppelganger = doppelganger
    st.sealed, st.tied, st.sealed_tiebreak, st.tasks, st.question = {}, [], {}, [], None
    # The special deck: every special not on the table, not used, not held.
    deck = list(engine.cards.SPECIAL_DECK)
    for c in list(specials) + list(used_specials or []):
        if c in deck:
            deck.remove(c)
    if doppelganger is not None and "doppelganger" in deck:
        deck.remove("doppelganger")
    st.special_deck = deck
    st.used_specials = list(used_specials or [])
    for p in st.players:
        p.stones = [0, 0, 0]
        p.score = 0
        p.fairy_gold, p.common_gold, p.silver, p.amulets, p.black_magic = 8, 2, 5, 0, 0
        p.fairy_gold_spent = 0
    for seat, text in (stones or {}).items():
        st.players[seat].stones = parse_stones(text)
    for seat, text in (coins or {}).items():
        for key, value in parse_coins(text).items():
            setattr(st.players[seat], key, value)
    for seat, value in (scores or {}).items():
        st.players[seat].score = value
    b = st.bank
    b.fairy_gold = BOX_FAIRY_GOLD - sum(p.fairy_gold + p.fairy_gold_spent for p in st.players)
    b.common_gold = BOX_COMMON_GOLD - sum(p.common_gold for p in st.players)
    b.silver = BOX_SILVER - sum(p.silver for p in st.players)
    b.amulets = BOX_AMULETS - sum(p.amulets for p in st.players)
    if bank_stones is not None:
        b.stones = parse_stones(bank_stones)
    else:
        b.stones = [BOX_STONES_PER_COLOUR - sum(p.stones[c] for p in st.players)
                    for c in range(3)]
    assert min(b.fairy_gold, b.common_gold, b.silver, b.amulets, *b.stones) >= 0, "over the box"
    return st


def bid(fg: int = 0, cg: int = 0, amulet: bool = False, black_magic: bool = False) -> dict[str, Any]:
    return {"type": "bid", "fairy_gold": fg, "common_gold": cg, "amulet": amulet,
            "black_magic": black_magic}


def tiebreak(silver: int = 0, amulet: bool = False) -> dict[str, Any]:
    return {"type": "tiebreak", "silver": silver, "amulet": amulet}


def choose(option: str) -> dict[str, Any]:
    return {"type": "choose", "option": option}


def auction(st: GameState, bids: dict[int, dict[str, Any]]) -> tuple[GameState, list[dict[str, Any]]]:
    """Every seat bids (an empty bid for seats not named); returns the state and all events."""
    events: list[dict[str, Any]] = []
    for seat in range(len(st.players)):
        st, ev = engine.apply(st, seat, bids.get(seat, bid()))
        events += ev
    return st, events


def act(st: GameState, seat: int, action: dict[str, Any]) -> tuple[GameState, list[dict[str, Any]]]:
    return engine.apply(st, seat, action)


def options(st: GameState) -> list[str]:
    """The option ids of the open choose prompt."""
    (prompt,) = [p for p in engine.prompts(st) if p["kind"] == "choose"]
    return [o["id"] for o in prompt["options"]]


def stones_of(st: GameState, seat: int) -> dict[str, int]:
    return {c: st.players[seat].stones[i] for i, c in enumerate(COLOURS)}


def won(card: str, seat: int, bids: dict[int, Bid] | None = None) -> Record:
    """A record of a card already auctioned this turn (for the Ghost)."""
    return Record(card, bids=bids if bids is not None else {seat: Bid(1)}, winner=seat)


__all__ = ["Bid", "Record", "TieBid", "act", "auction", "bid", "build", "choose", "options",
           "stones_of", "tiebreak", "won"]
