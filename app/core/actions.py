"""The engine's actions (engine.action_types) as the socket takes them and the API shows them:
one model per kind, told apart by "type", so that the schemas say what each action holds."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

import engine

# Integers and booleans only (no "1", 1.0 or true for a number), no other field: what breaks these
# rules is the engine's `malformed` (app.edge.ws answers it so, as the engine would).
Amount = Annotated[int, Field(ge=0, strict=True)]
Flag = Annotated[bool, Field(strict=True)]


class Bid(BaseModel):
    """A sealed bid, the answer to a `bid` prompt (within the prompt's `max`)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["bid"]
    fairy_gold: Amount = Field(description="Fairy Gold offered")
    common_gold: Amount = Field(description="Common Gold offered")
    amulet: Flag = Field(description="an amulet added to the bid")
    black_magic: Flag = Field(description="a Black Magic token played with it")

    def engine_action(self) -> engine.BidAction:
        return {
            "type": "bid",
            "fairy_gold": self.fairy_gold,
            "common_gold": self.common_gold,
            "amulet": self.amulet,
            "black_magic": self.black_magic,
        }


class Tiebreak(BaseModel):
    """A sealed tie-break bid, the answer to a `tiebreak` prompt."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tiebreak"]
    silver: Amount = Field(description="Silver offered")
    amulet: Flag = Field(description="an amulet added to the bid")

    def engine_action(self) -> engine.TiebreakAction:
        return {"type": "tiebreak", "silver": self.silver, "amulet": self.amulet}


class Choose(BaseModel):
    """The answer to a `choose` prompt."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["choose"]
    option: str = Field(strict=True, description="the id of one of the prompt's options")

    def engine_action(self) -> engine.ChooseAction:
        return {"type": "choose", "option": self.option}


GameAction = Annotated[Bid | Tiebreak | Choose, Field(discriminator="type")]

game_action = TypeAdapter[Bid | Tiebreak | Choose](GameAction)


def shown(action: engine.Action) -> Bid | Tiebreak | Choose:
    """An action the engine accepted, as the API shows it (a game's record, its replay)."""
    return game_action.validate_python(action)
