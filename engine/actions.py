"""`apply`: an action checked (with a stable code for each way it can be illegal), then played.

The common case, a legal bid, is recognised first and in one go; every other action, and every
illegal one, goes through the full checks of `_apply`, in their documented order.
"""

from __future__ import annotations

from collections.abc import Mapping

from .action_types import BidAction, ChooseAction, TiebreakAction
from .errors import IllegalAction
from .events import Events
from .game import Event, advance, reveal_bids, reveal_tiebreak
from .state import BOX_COMMON_GOLD, BOX_FAIRY_GOLD, Bid, GameState, TieBid, copy_state

PHASE_ACTION = {"bid": "bid", "tiebreak": "tiebreak", "choose": "choose", "over": None}

# Anything a client sent: `apply` checks it against the shapes of engine.action_types.
Sent = Mapping[str, object]
ACTION_KEYS = {
    "bid": BidAction.__required_keys__,
    "tiebreak": TiebreakAction.__required_keys__,
    "choose": ChooseAction.__required_keys__,
}


def _int(action: Sent, key: str) -> int:
    value = action[key]
    if type(value) is int and value >= 0:  # the common case, checked first for speed
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise IllegalAction("malformed", f"{key} must be a non-negative integer, not {value!r}")
    return value


def _bool(action: Sent, key: str) -> bool:
    value = action[key]
    if not isinstance(value, bool):
        raise IllegalAction("malformed", f"{key} must be true or false, not {value!r}")
    return value


def _bid(action: Sent) -> Bid:
    """A bid from its action, or IllegalAction("malformed") naming the field at fault."""
    return Bid(
        _int(action, "fairy_gold"),
        _int(action, "common_gold"),
        _bool(action, "amulet"),
        _bool(action, "black_magic"),
    )


def apply(state: GameState, seat: int, action: Sent) -> tuple[GameState, list[Event]]:
    """Apply one seat's action; returns the new state and the events. `state` is not changed.

    Raises IllegalAction (with a stable `code`) when the action is not legal now.
    """
    # Most actions are bids: a well-formed, affordable bid by a seat yet to bid is recognised here
    # in one go. Anything else, every illegal action included, takes the full checks of `_apply`,
    # in their documented order. (Five keys, the four bid fields among them and "type" equal to
    # "bid": exactly the keys of a bid.)
    if type(action) is dict and state.phase == "bid" and len(action) == 5:
        try:
            kind, fairy_gold = action["type"], action["fairy_gold"]
            common_gold, amulet = action["common_gold"], action["amulet"]
            black_magic = action["black_magic"]
        except KeyError:
            return _apply(state, seat, action)
        if (
            kind == "bid"
            and type(fairy_gold) is int
            and type(common_gold) is int
            and (amulet is True or amulet is False)
            and (black_magic is True or black_magic is False)
            and type(seat) is int
            and state.winner is None
        ):
            players = state.players
            if 0 <= seat < len(players) and seat not in state.sealed:
                player = players[seat]
                if (
                    0 <= fairy_gold <= player.fairy_gold
                    and 0 <= common_gold <= player.common_gold
                    and (player.amulets or not amulet)
                    and (player.black_magic or not black_magic)
                ):
                    # One number for the four fields (common_gold < 16 keeps it one-to-one).
                    key = fairy_gold * 64 + common_gold * 4 + amulet * 2 + black_magic
                    bid = BIDS.get(key) if common_gold < 16 else None
                    if bid is None:
                        bid = Bid(fairy_gold, common_gold, amulet, black_magic)
                        if fairy_gold <= BOX_FAIRY_GOLD and common_gold <= BOX_COMMON_GOLD:
                            BIDS[key] = bid
                    sealed = state.sealed.copy()
                    sealed[seat] = bid
                    if len(sealed) < len(players):  # not the last bid: only `sealed` changes
                        st = copy_state(state)
                        st.sealed = sealed
                        return st, [
                            {"type": "bid_submitted", "template": "{seat} has bid.", "seat": seat}
                        ]
                    return _reveal(state, seat, sealed)
    return _apply(state, seat, action)


# Bids are immutable: each one (within what the box holds) is made once and shared, as making a
# named tuple costs twice as much as looking it up. A cache only: it changes no result.
BIDS: dict[int, Bid] = {}


def _seal_bid(state: GameState, seat: int, bid: Bid) -> tuple[GameState, list[Event]]:
    """Seal a checked bid; the last one reveals them all."""
    sealed = state.sealed.copy()
    sealed[seat] = bid
    if len(sealed) < len(state.players):
        st = copy_state(state)  # not the last bid: only `sealed` changes
        st.sealed = sealed
        return st, [{"type": "bid_submitted", "template": "{seat} has bid.", "seat": seat}]
    return _reveal(state, seat, sealed)


def _reveal(state: GameState, seat: int, sealed: dict[int, Bid]) -> tuple[GameState, list[Event]]:
    """The last bid, `seat`'s, is in `sealed`: reveal them all."""
    ev = Events()
    ev.items.append({"type": "bid_submitted", "template": "{seat} has bid.", "seat": seat})
    st = state.derive()
    st.sealed = sealed
    reveal_bids(st, ev)
    return st, ev.items


def _apply(state: GameState, seat: int, action: Sent) -> tuple[GameState, list[Event]]:
    """`apply` with every check, in order: what an illegal action is told."""
    kind = action.get("type") if isinstance(action, dict) else None
    keys = ACTION_KEYS.get(kind) if isinstance(kind, str) else None
    if keys is None:
        raise IllegalAction(
            "malformed",
            f"an action is an object with a type among {sorted(ACTION_KEYS)}, not {action!r}",
        )
    assert isinstance(action, dict)
    if action.keys() != keys:
        raise IllegalAction("malformed", f"a {kind} action has exactly the fields {sorted(keys)}")
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise IllegalAction("unknown_seat", f"there is no seat {seat!r} in this game")
    if state.winner is not None:
        raise IllegalAction("game_over", "the game is over")
    if kind != PHASE_ACTION[state.phase]:
        raise IllegalAction(
            "wrong_phase", f"a {kind} is not asked now: the game waits for a {state.phase}"
        )
    player = state.players[seat]
    if kind == "bid":
        fairy_gold, common_gold = action["fairy_gold"], action["common_gold"]
        amulet, black_magic = action["amulet"], action["black_magic"]
        if (
            type(fairy_gold) is int
            and fairy_gold >= 0
            and type(common_gold) is int
            and common_gold >= 0
            and (amulet is True or amulet is False)
            and (black_magic is True or black_magic is False)
        ):
            bid = Bid(fairy_gold, common_gold, amulet, black_magic)  # the common case, at once
        else:
            bid = _bid(action)
        if seat in state.sealed:
            raise IllegalAction("already_submitted", "you have already bid in this auction")
        if (
            bid.fairy_gold > player.fairy_gold
            or bid.common_gold > player.common_gold
            or (bid.amulet and player.amulets == 0)
            or (bid.black_magic and player.black_magic == 0)
        ):
            raise IllegalAction("unaffordable", "you do not hold the coins of that bid")
        return _seal_bid(state, seat, bid)
    elif kind == "tiebreak":
        tiebid = TieBid(_int(action, "silver"), _bool(action, "amulet"))
        if seat not in state.tied:
            raise IllegalAction("not_your_turn", "only the tied players bid in the tie-break")
        if seat in state.sealed_tiebreak:
            raise IllegalAction("already_submitted", "you have already bid in this tie-break")
        if tiebid.silver > player.silver or (tiebid.amulet and player.amulets == 0):
            raise IllegalAction("unaffordable", "you do not hold the coins of that tie-break bid")
        ev = Events()
        ev.items.append(
            {
                "type": "tiebreak_submitted",
                "template": "{seat} has bid in the tie-break.",
                "seat": seat,
            }
        )
        if len(state.sealed_tiebreak) + 1 < len(state.tied):
            st = state.share()
            st.sealed_tiebreak = {**state.sealed_tiebreak, seat: tiebid}
            return st, ev.items
        st = state.derive()
        st.sealed_tiebreak = {**state.sealed_tiebreak, seat: tiebid}
        reveal_tiebreak(st, ev)
    else:
        option = action["option"]
        q = state.question
        assert q is not None
        if not isinstance(option, str):
            raise IllegalAction("malformed", f"option must be a string, not {option!r}")
        if seat != q.seat:
            raise IllegalAction("not_your_turn", f"Player {q.seat + 1} is choosing, not you")
        if option not in {o.id for o in q.options}:
            raise IllegalAction(
                "unknown_option",
                f"{option!r} is not one of the options: {', '.join(o.id for o in q.options)}",
            )
        st = state.derive()
        st.question = None
        label = next(o.label for o in q.options if o.id == option)
        ev = Events()
        ev.items.append(
            {
                "type": "choice",
                "template": "{seat}: %s." % label,
                "seat": seat,
                "character": q.character,
                "step": q.step,
                "option": option,
            }
        )
        advance(st, ev, option)
    return st, ev.items
