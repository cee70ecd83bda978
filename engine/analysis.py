"""After the game: the hard bot's view of each decision of a finished game.

For each decision of a seat (a sealed bid, a tie-break bid, a power's choice) the game is replayed
to just before it, and only what that seat could see then is kept: its view and its prompt (its
information set, never the true hidden state). From there the hard bot's machinery
(engine/hard.py) estimates the seat's chance of winning with each candidate action: worlds the
seat cannot tell from the real one are drawn from its view (`sample_world`), every candidate is
played out in each of them with the same dice (common random numbers), and the end is scored by
`score_world` (1 for a win, 0 for a loss, else a share of the players' standing). The action taken
is always among the candidates.

The loss of a decision is the estimated chance of the best candidate less that of the action
taken. It is labelled, as chess sites label a drop in winning chance, by thresholds
(`INACCURACY`, `MISTAKE`, `BLUNDER`), and only when it stands clear of the sampling noise (more
than `CLEAR` standard errors of the per-world differences): a few dozen worlds cannot tell apart
two actions a point apart.

Deterministic: each decision's generator is seeded from a hash of the seat's view, its prompt and
a salt, so the same game with the same budget gives the same analysis, and two games that differ
only in what the seat could not see give the same estimate of that decision.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .action_types import Action as Action
from .actions import apply
from .bots import HeuristicBot
from .game import new_game
from .hard import HORIZON, HardBot, playout, score_world
from .prompts import prompts
from .sample import sample_world
from .state import GameState
from .view import view

# A drop in the estimated chance of winning (0..1) from the best action to the one taken.
INACCURACY = 0.05
MISTAKE = 0.10
BLUNDER = 0.20
CLEAR = 2.0  # a loss is labelled only beyond this many standard errors of the difference
DEFAULT_WORLDS = 40
LABELS = ("best", "good", "inaccuracy", "mistake", "blunder", "forced")


@dataclass(frozen=True)
class Decision:
    """The analysis of one decision: the action taken against the best the search found."""

    index: int  # the action's place in the game's actions (its version, less one)
    seat: int
    kind: str  # "bid", "tiebreak" or "choose"
    character: str
    step: str  # a choose prompt's step ("" for bids)
    action: Action
    best: Action
    chance: float | None  # the estimated chance of winning with the action taken (None: forced)
    best_chance: float | None
    loss: float  # best_chance - chance (>= 0)
    noise: float  # the standard error of that difference
    label: str  # one of LABELS
    playouts: int  # the playouts behind the estimate (0: a forced decision)
    options: dict[str, str]  # a choose prompt's option ids and labels, to name the actions

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def label(loss: float, noise: float) -> str:
    """The label of a loss in chance of winning, given the noise of its estimate."""
    if loss <= 1e-9:
        return "best"
    if loss <= CLEAR * noise:
        return "good"
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return "good"


def decision_seed(seat_view: dict[str, Any], prompt: dict[str, Any], salt: int) -> int:
    """A seed from what the seat could see (and the salt): nothing hidden can change it."""
    text = json.dumps([salt, seat_view, prompt], sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _key(action: Action) -> tuple[Any, ...]:
    return tuple(sorted(action.items()))


def analyse_decision(
    seat_view: dict[str, Any],
    prompt: dict[str, Any],
    action: Action,
    *,
    index: int = 0,
    worlds: int = DEFAULT_WORLDS,
    salt: int = 0,
    horizon: int = HORIZON,
) -> Decision:
    """The analysis of `action`, taken by the seat whose view and prompt these are."""
    seat = seat_view["me"]["seat"]
    rng = random.Random(decision_seed(seat_view, prompt, salt))
    options = HardBot(rng.getrandbits(64)).candidates(seat_view, prompt)
    keys = [_key(a) for a in options]
    if _key(action) not in keys:
        options.append(action)
        keys.append(_key(action))
    taken = keys.index(_key(action))
    names = {str(o["id"]): str(o.get("label", o["id"])) for o in prompt.get("options", [])}
    common = {
        "index": index,
        "seat": seat,
        "kind": prompt["kind"],
        "character": prompt["character"],
        "step": str(prompt.get("step", "")),
        "action": action,
        "options": names,
    }
    if len(options) == 1:
        return Decision(
            **common,
            best=action,
            chance=None,
            best_chance=None,
            loss=0.0,
            noise=0.0,
            label="forced",
            playouts=0,
        )
    scores: list[list[float]] = [[] for _ in options]
    for _ in range(max(1, worlds)):
        world = sample_world(seat_view, seat, rng)
        dice = rng.getrandbits(64)
        for i, candidate in enumerate(options):
            bot = HeuristicBot(0)
            bot.rng = random.Random(dice)  # the same dice for every candidate
            st, _ = apply(world, seat, candidate)
            scores[i].append(score_world(playout(st, bot, horizon), seat))
    n = len(scores[0])
    means = [sum(s) / n for s in scores]
    best = max(range(len(options)), key=lambda i: (means[i], i == taken))
    diffs = [b - t for b, t in zip(scores[best], scores[taken], strict=True)]
    # Rounded as shown (0.1 %), and labelled as shown.
    chance, best_chance = round(means[taken], 3), round(means[best], 3)
    loss = round(max(0.0, best_chance - chance), 3)
    noise = _stderr(diffs)
    return Decision(
        **common,
        best=options[best],
        chance=chance,
        best_chance=best_chance,
        loss=loss,
        noise=round(noise, 4),
        label=label(loss, noise),
        playouts=n * len(options),
    )


def _stderr(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def analyse_at(
    st: GameState, seat: int, action: Action, *, worlds: int = DEFAULT_WORLDS, salt: int = 0
) -> Decision:
    """The analysis of `action` by `seat` in `st`: from that seat's view and prompt alone."""
    prompt = next(p for p in prompts(st, seat=seat) if p["seat"] == seat)
    return analyse_decision(view(st, seat), prompt, action, worlds=worlds, salt=salt)


@dataclass(frozen=True)
class Moment:
    """One decision of a finished game, with what its seat could see just before it."""

    index: int
    seat: int
    view: dict[str, Any]
    prompt: dict[str, Any]
    action: Action


def moments(players: int, seed: int, actions: Sequence[tuple[int, Action]]) -> Iterator[Moment]:
    """The game replayed from its seed, decision by decision (raises IllegalAction on a record
    that does not play)."""
    st: GameState = new_game(players, seed)
    for index, (seat, action) in enumerate(actions):
        prompt = next(p for p in prompts(st, seat=seat) if p["seat"] == seat)
        yield Moment(index, seat, view(st, seat), prompt, action)
        st, _ = apply(st, seat, action)


def analyse_game(
    players: int,
    seed: int,
    actions: Sequence[tuple[int, Action]],
    *,
    worlds: int = DEFAULT_WORLDS,
    salt: int = 0,
    skip: int = 0,
    on_decision: Callable[[Decision], None] | None = None,
) -> list[Decision]:
    """Every decision of a game analysed in order (from the `skip`-th on: a resumed analysis)."""
    out = []
    for m in moments(players, seed, actions):
        if m.index < skip:
            continue
        d = analyse_decision(m.view, m.prompt, m.action, index=m.index, worlds=worlds, salt=salt)
        out.append(d)
        if on_decision is not None:
            on_decision(d)
    return out


def summary(decisions: Sequence[Decision], players: int) -> list[dict[str, Any]]:
    """Per seat: decisions, how many of each label, the average loss over analysed decisions."""
    out = []
    for seat in range(players):
        mine = [d for d in decisions if d.seat == seat]
        analysed = [d for d in mine if d.label != "forced"]
        counts = {name: sum(1 for d in mine if d.label == name) for name in LABELS}
        average = sum(d.loss for d in analysed) / len(analysed) if analysed else 0.0
        out.append(
            {
                "seat": seat,
                "decisions": len(mine),
                "labels": counts,
                "average_loss": round(average, 3),
            }
        )
    return out


def key_moments(decisions: Sequence[Decision], count: int = 5) -> list[dict[str, Any]]:
    """The largest swings: where a seat's estimated chance moved most since its last decision."""
    last: dict[int, float] = {}
    swings = []
    for d in decisions:
        if d.chance is None:
            continue
        if d.seat in last:
            swings.append(
                {"index": d.index, "seat": d.seat, "swing": round(d.chance - last[d.seat], 3)}
            )
        last[d.seat] = d.chance
    swings.sort(key=lambda s: (-abs(s["swing"]), s["index"]))
    return sorted(swings[:count], key=lambda s: s["index"])


def share_mistakes(decisions: Sequence[Decision]) -> float:
    """The share of analysed decisions labelled mistake or blunder."""
    analysed = [d for d in decisions if d.label != "forced"]
    bad = sum(1 for d in analysed if d.label in ("mistake", "blunder"))
    return bad / len(analysed) if analysed else 0.0
