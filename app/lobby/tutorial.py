"""Learn to play: a private table without time limits for a newcomer and two easy bots, dealt
from one fixed seed so that every newcomer meets the same short game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.schemas import JoinOut

if TYPE_CHECKING:
    from app.lobby.tables import Lobby

# The tutorial's deal, found by an offline search over seeds with the engine and the easy bot,
# the newcomer (seat 0) doing what the hints say (one Fairy Gold a bid, nothing in a tie-break,
# the first option of a power): within seven decisions of the newcomer it has sealed bids and
# their reveal, a cursed card, a tie-break in Silver that the newcomer is part of, a power to
# decide (the Sorcerer), stones scored, and the newcomer wins. The bots' seeds follow from it
# (app.core.seeds.bot_seed), so they play it the same way every time.
TUTORIAL_SEED = 996
TUTORIAL_SEATS = 3
TUTORIAL_BOTS = "random"  # the easy bot


async def start(lobby: Lobby, *, name: str, address: str | None) -> JoinOut:
    """Open the tutorial's table, seat the newcomer (the host, seat 0), add the bots, deal."""
    table = await lobby.create_table(
        seats=TUTORIAL_SEATS, public=False, turn_seconds=None, choose_seconds=None, address=address
    )
    seat = await lobby.join(table_id=table.id, name=name)
    await lobby.add_bots(
        table_id=table.id, token=seat.token, count=TUTORIAL_SEATS - 1, kind=TUTORIAL_BOTS
    )
    await lobby.start(table_id=table.id, token=seat.token, deal=TUTORIAL_SEED)
    return seat
