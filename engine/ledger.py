"""The coin and stone ledger every rule is written with: taking coins and stones from the bank
(a short bank gives what it has, R1), paying stones back, scoring (reaching 3 ends the game at
once, R7), and how stones are written in events and sentences."""

from __future__ import annotations

from .events import Events
from .state import COLOURS, WINNING_SCORE, GameState

COIN_LABELS = {
    "fairy_gold": "Fairy Gold",
    "common_gold": "Common Gold",
    "silver": "Silver",
    "amulets": "Amulet",
}


def take_from_bank(st: GameState, seat: int, coin: str, n: int, ev: Events) -> int:
    """Give a player up to `n` coins of a kind from the bank; a short bank gives what it has (R1)."""
    have: int = getattr(st.bank, coin)
    got = min(n, have)
    setattr(st.bank, coin, have - got)
    player = st.player(seat)
    setattr(player, coin, getattr(player, coin) + got)
    label = COIN_LABELS[coin] + ("s" if coin == "amulets" and got != 1 else "")
    if got == n:
        ev.items.append(
            {
                "type": "gain",
                "template": "{seat} takes %d %s from the bank." % (got, label),
                "seat": seat,
                "coin": coin,
                "amount": got,
            }
        )
    elif got == 0:
        ev.add(
            "gain",
            "{seat} gets no %s: the bank has none." % COIN_LABELS[coin],
            seat=seat,
            coin=coin,
            amount=0,
            wanted=n,
        )
    else:
        ev.add(
            "gain",
            "{seat} takes only %d %s: the bank had no more." % (got, label),
            seat=seat,
            coin=coin,
            amount=got,
            wanted=n,
        )
    return got


TAKES_STONE = tuple("{seat} takes a %s stone from the bank." % name for name in COLOURS)


def take_stone_from_bank(st: GameState, seat: int, colour: int, ev: Events) -> bool:
    name = COLOURS[colour]
    if st.bank.stones[colour] == 0:
        ev.add(
            "gain",
            "{seat} gets no %s stone: the bank has none." % name,
            seat=seat,
            stone=name,
            amount=0,
        )
        return False
    st.bank.stones[colour] -= 1
    st.player(seat).stones[colour] += 1
    ev.items.append(
        {"type": "gain", "template": TAKES_STONE[colour], "seat": seat, "stone": name, "amount": 1}
    )
    return True


def pay_stones(st: GameState, seat: int, stones: list[int], ev: Events) -> None:
    player = st.player(seat)
    for colour, n in enumerate(stones):
        player.stones[colour] -= n
        st.bank.stones[colour] += n
    ev.items.append(
        {
            "type": "pay_stones",
            "template": "{seat} pays %s to the bank." % describe_stones(stones),
            "seat": seat,
            "stones": stones_dict(stones),
        }
    )


def score(st: GameState, seat: int, points: int, ev: Events) -> None:
    """Add points; reaching 3 ends the game at once, even mid-power (R7)."""
    player = st.player(seat)
    player.score += points
    ev.items.append(
        {
            "type": "score",
            "template": "{seat} scores %d point%s (now %d)."
            % (points, "" if points == 1 else "s", player.score),
            "seat": seat,
            "points": points,
            "score": player.score,
        }
    )
    if player.score >= WINNING_SCORE and st.winner is None:
        st.winner = seat
        st.phase = "over"
        st.tasks.clear()
        st.question = None
        st.sealed, st.sealed_tiebreak, st.tied = {}, {}, []  # replaced: shared with states before
        if st.bag is not None:  # a game can end with stones in the bag: they go back
            for colour in range(3):
                st.bank.stones[colour] += st.bag[colour]
            st.bag = None
        ev.add(
            "game_over",
            "{winner} wins the game with %d points." % player.score,
            winner=seat,
            seed=str(st.seed),
        )


def stones_dict(stones: list[int]) -> dict[str, int]:
    return {"red": stones[0], "blue": stones[1], "yellow": stones[2]}  # COLOURS, in order


def describe_stones(stones: list[int]) -> str:
    parts = [f"{n} {COLOURS[i]}" for i, n in enumerate(stones) if n]
    if not parts:
        return "no stones"
    total = sum(stones)
    return ", ".join(parts) + (" stone" if total == 1 else " stones")
