"""The settings of what players meet: bots, time limits, the lobby, the queue and the table chat
(sections of app.core.config.Settings)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class PlaySettings(BaseSettings):
    """Games: bots and time limits."""

    bot_delay_seconds: float = Field(
        default=0.6,
        description="The pause before each bot move, in seconds, so that people can follow the "
        "game. 0: bots answer at once (the tests).",
    )
    default_bot_kind: str = Field(
        default="heuristic",
        description="The kind of bot (`random`, `heuristic` or `hard`) that stands in for an "
        "absent person, and that the queue seats when the player asked for none.",
    )
    # The hard bot thinks in a pool of worker processes, off the event loop.
    hard_bot_workers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Worker processes in which hard bots think, off the event loop (started "
        "with the first hard decision).",
    )
    hard_bot_seconds: float = Field(
        default=0.3,
        gt=0,
        le=30,
        description="A hard bot's CPU time per decision, in seconds: it decides when this is "
        "spent or after `HARD_BOT_PLAYOUTS` playouts, whichever comes first.",
    )
    hard_bot_playouts: int = Field(
        default=100_000,
        ge=1,
        description="The most playouts a hard bot makes for one decision.",
    )
    hard_bot_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="How much lower the hard bots' workers' CPU priority is than the server's "
        "(`os.nice`), so that on a busy machine the event loop is served first. 0: the same.",
    )
    default_turn_seconds: int = Field(
        default=45,
        ge=0,
        le=3600,
        description="The time for a sealed bid or a tie-break, in seconds, at a new table whose "
        "creator chose none (created without `turn_seconds`, quick play's and the queue's "
        "tables). A timed table's absent player gets a bot after a grace period of 30 s. "
        "0: no limit.",
    )
    default_choose_seconds: int = Field(
        default=60,
        ge=0,
        le=3600,
        description="The time for a power decision, in seconds, at a new table whose creator "
        "chose none (as `DEFAULT_TURN_SECONDS`). 0: no limit.",
    )
    extra_time_per_game: int = Field(
        default=3,
        ge=0,
        le=100,
        description='How many times each seated player may ask for more time ("+30 s") in one '
        "game, for whichever decision is open, their own or another player's (WCAG 2.2.1, "
        "timing adjustable). Past it the server refuses with `no_more_time`. 0: never.",
    )
    extra_time_seconds: int = Field(
        default=30,
        ge=1,
        le=600,
        description="The seconds one request for more time adds to the open decision's deadline.",
    )
    relaxed_factor: int = Field(
        default=10,
        ge=1,
        le=100,
        description='A "relaxed" table\'s time limits are the defaults (`DEFAULT_TURN_SECONDS`, '
        "`DEFAULT_CHOOSE_SECONDS`) times this, capped at an hour.",
    )
    # Play over days: a decision may wait while its player sleeps or works.
    slow_decision_hours: int = Field(
        default=24,
        ge=1,
        le=168,
        description='A "slow" table\'s time limit for every decision (bids, tie-breaks and '
        "powers), in hours: a seat that has not answered by then plays the default, and a "
        "player away for two such limits gets a stand-in until they return (its grace "
        "period is two limits). Usual choices: 12, 24 or 72.",
    )

    test_seed: int | None = Field(
        default=None,
        ge=0,
        le=2**64 - 1,
        description="For tests only: never set it on a server people play on (whoever knows it "
        "knows every hand). Unset (the default): every game is dealt from 64 random bits. Set "
        "(0 to 2^64-1): the n-th game the database starts (counting from 0) is dealt from "
        "TEST_SEED + n, its bots' and stand-ins' seeds follow from the game's seed and the seat, "
        'and the start request may name the game\'s seed (`{"seed": n}`, refused with '
        "`400 invalid_request` when TEST_SEED is unset). A hard bot still stops its search on CPU "
        "time (HARD_BOT_SECONDS), so it may not play the same game twice. The server logs a "
        "warning at start while it is set.",
    )
    test_clock: float | None = Field(
        default=None,
        ge=-86_400,
        le=86_400,
        description="For tests only: never set it on a server people play on. Unset (the "
        "default): the server keeps real time. Set: the server's clock starts TEST_CLOCK seconds "
        "off real time (0: on time; negative: behind), and `POST /test/clock` "
        '(`{"seconds": n}`) moves it forward by n seconds: its time limits, grace periods, away '
        "notices, presence, idle tables, the queue and the rate limits, so that a test moves "
        "time instead of waiting for it. The server logs a warning at start while it is set.",
    )

    def relaxed_limits(self) -> dict[str, int | None]:
        """The time-limit columns of a table whose host chose "relaxed"."""
        return {
            key: min(3600, seconds * self.relaxed_factor) if seconds else None
            for key, seconds in self.default_limits().items()
        }

    def slow_limits(self) -> dict[str, int | None]:
        """The time-limit columns of a table whose host chose "slow" (play over days)."""
        seconds = self.slow_decision_hours * 3600
        return {"turn_seconds": seconds, "choose_seconds": seconds}

    def default_limits(self) -> dict[str, int | None]:
        """The time-limit columns of a new table whose creator chose none."""
        return {
            "turn_seconds": self.default_turn_seconds or None,
            "choose_seconds": self.default_choose_seconds or None,
        }


class LobbySettings(BaseSettings):
    """The lobby, presence and the matchmaking queue."""

    max_name_length: int = Field(
        default=32,
        description="Has no effect: a player's name is at most 64 characters, a limit fixed in "
        "the server's code.",
    )
    table_idle_minutes: float = Field(
        default=10.0,
        description="The lobby lists an open table while it changed (created, joined, bots...) "
        "within this many minutes, or while a seated person holds a socket to it; a table that "
        "has not started and had nobody connected for as long closes. A game being played "
        'leaves "games to watch" once nobody seated has been there and nothing was played for '
        "as long (an abandoned game). 0: no idle limit.",
    )
    empty_table_listed_seconds: float = Field(
        default=60.0,
        ge=0,
        description="A public table nobody is seated at (no person: bots do not count) is listed "
        "in the lobby (`GET /api/tables`, quick play) for this many seconds after it was opened "
        "or its last person left, and then no more; it stays open, reachable by its link, until "
        "`TABLE_IDLE_MINUTES` close it. 0: such a table is never listed.",
    )
    max_empty_tables_per_address: int = Field(
        default=3,
        ge=0,
        description="Tables nobody is seated at (no person: bots do not count) that one client "
        "address may have opened (`POST /api/tables`; the address as `TRUSTED_PROXIES` decides) "
        "within `EMPTY_TABLE_LISTED_SECONDS`, still open: the empty tables of one address the "
        "lobby lists at once. One more is refused with `429 too_many_tables` until one of them "
        "has a player, closes, or is older than that. 0: no limit.",
    )
    table_close_interval_seconds: float = Field(
        default=30.0,
        description="How often, in seconds, each process looks for open tables idle for "
        "`TABLE_IDLE_MINUTES`, to close them.",
    )
    presence_heartbeat_seconds: float = Field(
        default=20.0,
        description="How often, in seconds, each process refreshes the presence of the seats it "
        "holds a socket of; a seat not refreshed for 3 intervals (its process crashed) counts as "
        "away. 0: no heartbeat, and a crashed process's seats stay online.",
    )
    queue_grace_seconds: float = Field(
        default=10.0,
        description="A queue entry none of whose sockets refreshed it for this many seconds (a "
        "closed page, a crashed process, a ticket whose socket never came) leaves the queue; a "
        "page reload comes back sooner.",
    )
    queue_match_seconds: float = Field(
        default=1.0,
        description="How often, in seconds, each process runs a matching pass (besides one after "
        "every join).",
    )
    queue_poll_seconds: float = Field(
        default=0.5,
        description="How often, in seconds, each process reads the tickets of its queue sockets: "
        "a match made by another process reaches the player within this.",
    )
    queue_bots_after_seconds: int = Field(
        default=60,
        description="The wait, in seconds, after which a player in the queue may accept bots, "
        "unless the player picks another (`bots_after`).",
    )
    queue_max_per_address: int = Field(
        default=4,
        description="Waiting queue entries one client address may hold at once; beyond, "
        "`429 too_many_tickets`.",
    )
    queue_keep_minutes: float = Field(
        default=10.0,
        description="A matched or left queue entry (with a matched seat's token) is deleted this "
        "many minutes after.",
    )


class ChatSettings(BaseSettings):
    """The table chat."""

    chat_lines_per_window: int = Field(
        default=5,
        description="Chat lines a seat (all its sockets together), or the spectators of one "
        "client address at one table, may post per `CHAT_WINDOW_SECONDS`; more are refused with "
        "`chat_rate_limited`, and the socket stays open.",
    )
    chat_window_seconds: float = Field(
        default=10.0,
        description="The window of `CHAT_LINES_PER_WINDOW`, in seconds.",
    )
    chat_replay_lines: int = Field(
        default=100,
        description="Chat lines sent to a socket on connect without `chat_since` (the last "
        "ones it may see), and when a player shows the spectators' channel.",
    )
    chat_replay_max: int = Field(
        default=500,
        description="The most chat lines sent to a socket on connect with `chat_since` (the "
        "latest of those it missed).",
    )
    secret_key: str = Field(
        default="",
        description="The secret that signs spectators' chat labels (the `viewer` key). Give "
        "every process of one service the same. Empty: one is made at start, so a spectator "
        "gets a new label from another process or after a restart.",
    )
