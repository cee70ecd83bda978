"""What each viewer may know: the only door out of the engine for game information (R25).

Everything a seat or a spectator learns goes through `view` and `visible_events`; coins behind a
screen, unrevealed bids, the order of the piles and the seed never leave by another way.
"""

from __future__ import annotations

from typing import Any

from .events import complete
from .ledger import stones_dict
from .prompts import is_over, prompts
from .state import COLOURS, Bid, GameState, Player, Record


def _bids(bids: dict[int, Bid]) -> dict[str, Any]:
    # A loop, and the value computed here: most of a view's time is spent on these bids.
    out = {}
    for seat in sorted(bids):
        fairy_gold, common_gold, amulet, black_magic = bids[seat]
        out[str(seat)] = {
            "fairy_gold": fairy_gold,
            "common_gold": common_gold,
            "amulet": amulet,
            "black_magic": black_magic,
            "value": (fairy_gold + common_gold) * 2 if amulet else fairy_gold + common_gold,
        }
    return out


def _record(record: Record) -> dict[str, Any]:
    return {
        "character": record.card,
        "via": record.via,
        "bids": None if record.bids is None else _bids(record.bids),
        "tied": None if record.tied is None else record.tied[:],
        "tiebreak": None
        if record.tiebreak is None
        else {
            str(s): {"silver": b.silver, "amulet": b.amulet, "value": b.value}
            for s, b in sorted(record.tiebreak.items())
        },
        "winner": record.winner,
        "cursed": record.cursed,
        "necromancer_used": record.necromancer_used,
    }


def view(st: GameState, seat: int | None) -> dict[str, Any]:
    """What `seat` may know (None: the public view, for spectators). JSON-serialisable."""
    out = public_view(st)
    if seat is not None:
        out["me"] = own(st, seat)
    return out


def public_view(
    st: GameState, before: tuple[GameState, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`view(st, None)`. With `before`, an earlier state of the same game and its public view,
    the players and auction records `st` shares with it (the same objects: a state's parts are
    never changed once `apply` has returned it, engine/state.py) keep the very dicts of that
    view, which a server building a view per version would otherwise build again. The result
    may share those dicts with `before`'s view: neither is to be changed in place."""
    over = is_over(st)
    # The same list as prompts(state, seat=None); a choose prompt adds its public step.
    awaiting = prompts(st, None)
    if awaiting and st.phase == "choose" and st.question is not None:
        awaiting[0]["step"] = st.question.step
    rainbow = None
    for task in st.tasks:
        if task.card == "rainbow_dragon" and task.drawn is not None and task.target is not None:
            rainbow = {
                "seat": task.seat,
                "colour": COLOURS[task.target],
                "drawn": stones_dict(task.drawn),
            }
    out: dict[str, Any] = {
        "players": _players(st, before),
        "bank": {
            "fairy_gold": st.bank.fairy_gold,
            "common_gold": st.bank.common_gold,
            "silver": st.bank.silver,
            "amulets": st.bank.amulets,
            "stones": stones_dict(st.bank.stones),
        },
        "me": None,
        "bag": None if st.bag is None else stones_dict(st.bag),
        "turn": st.turn,
        "winner": st.winner,
        "phase": st.phase,
        "auction": None
        if over
        else {
            "character": st.card,
            "number": len(st.records) + (1 if st.phase == "bid" else 0),
            "bids_submitted": sorted(st.sealed),
            "tied": st.tied[:],
            "tiebreak_submitted": sorted(st.sealed_tiebreak),
        },
        "specials": st.specials[:],
        "turn_cards": _turn_cards(st, before),
        "awaiting": awaiting,
        "pile_count": len(st.pile),
        "special_deck_count": len(st.special_deck),
        "used_specials": sorted(st.used_specials),
        "doppelganger": st.doppelganger,
        "rainbow": rainbow,
        # The powers being resolved, bottom first (the top one asks the open question): all of
        # it said aloud at the table (a Doppelganger's second use, the Thief's victim).
        "resolving": [
            {
                "card": t.card,
                "seat": t.seat,
                "auction": t.auction,
                "step": t.step,
                "target": t.target,
                "doppel_offer": t.doppel_offer,
                "drawn": None if t.drawn is None else t.drawn[:],
            }
            for t in st.tasks
        ],
        "seed_commitment": st.seed_commitment,
        # Revealed only once the game is over; a decimal string, since seeds pass 2**53 and
        # JavaScript's numbers would round them.
        "seed": str(st.seed) if over else None,
    }
    return out


def _player(st: GameState, p: Player) -> dict[str, Any]:
    return {
        "seat": p.seat,
        "score": p.score,
        "stones": stones_dict(p.stones),
        "fairy_gold_spent": p.fairy_gold_spent,
        "has_doppelganger": st.doppelganger == p.seat,
    }


def _players(st: GameState, before: tuple[GameState, dict[str, Any]] | None) -> list[Any]:
    if before is None or before[0].doppelganger != st.doppelganger:
        return [_player(st, p) for p in st.players]
    old, shown = before[0].players, before[1]["players"]
    if len(old) != len(st.players):
        return [_player(st, p) for p in st.players]
    return [shown[i] if p is old[i] else _player(st, p) for i, p in enumerate(st.players)]


def _turn_cards(st: GameState, before: tuple[GameState, dict[str, Any]] | None) -> list[Any]:
    # An auction's record is kept to the end of the turn and mostly unchanged: the turn's
    # cards are most of a view (and of the time to build one).
    if before is None:
        return [_record(r) for r in st.records]
    old, shown = before[0].records, before[1]["turn_cards"]
    n = len(old)
    return [shown[i] if i < n and r is old[i] else _record(r) for i, r in enumerate(st.records)]


def own(st: GameState, seat: int | None) -> dict[str, Any] | None:
    """The "me" of `view(st, seat)`: what only that seat may know (None for a spectator or a
    seat not in the game). `view(st, seat)` is `{**view(st, None), "me": own(st, seat)}`, so a
    server that sends every seat a view builds the public part once and this per seat."""
    if seat is not None and 0 <= seat < len(st.players):
        p = st.players[seat]
        bid = st.sealed.get(seat)
        tiebid = st.sealed_tiebreak.get(seat)
        return {
            "seat": seat,
            "coins": {
                "fairy_gold": p.fairy_gold,
                "common_gold": p.common_gold,
                "silver": p.silver,
                "amulets": p.amulets,
                "black_magic": p.black_magic,
            },
            # This seat's own sealed bid, until the reveal.
            "bid": None
            if bid is None
            else {
                "fairy_gold": bid.fairy_gold,
                "common_gold": bid.common_gold,
                "amulet": bid.amulet,
                "black_magic": bid.black_magic,
            },
            "tiebreak": None
            if tiebid is None
            else {"silver": tiebid.silver, "amulet": tiebid.amulet},
        }
    return None


def visible_events(events: list[dict[str, object]], seat: int | None) -> list[dict[str, object]]:
    """The events `seat` may see (None: a spectator), without their visibility marks, each with
    its sentence in "text" ("Player N" for seats).

    `apply` leaves the sentence out (most events are never read as text); it is added here, once:
    the event dicts given are completed in place, so a second viewer does not build it again.
    Events stored by older versions already hold their text and are left as they are.
    """
    out = []
    for event in events:
        if "text" not in event:
            complete(event)
        private_to = event.get("private_to")
        if private_to is not None:
            assert isinstance(private_to, list)
            if seat not in private_to:
                continue
            event = {k: v for k, v in event.items() if k != "private_to"}
        out.append(event)
    return out
