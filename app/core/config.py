"""Settings, read from the environment (pydantic-settings)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core import resources

SQLITE_DEFAULT_FILE = "dragonstones.sqlite3"


def default_static_dir() -> Path:
    return resources.static_dir()


class Settings(BaseSettings):
    """Every knob of the server. Environment variables use the field name in upper case."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    # Unset: a SQLite file in the working directory, so `serve` runs on a fresh machine.
    database_url: str | None = None
    # Postgres only: the schema to work in (search_path); tests use a fresh schema per run.
    database_schema: str | None = None
    # SQLite only: FULL makes every acknowledged action survive a power loss, not only a crash.
    sqlite_synchronous: str = "FULL"
    sqlite_busy_timeout_ms: int = 10_000
    auto_migrate: bool = True

    static_dir: Path = Field(default_factory=default_static_dir)

    # Pause before each bot move so that people can follow the game; tests set 0.
    bot_delay_seconds: float = 0.6
    default_bot_kind: str = "heuristic"
    # The hard bot (issue 19) thinks in a pool of this many worker processes, off the event loop,
    # for at most hard_bot_seconds of CPU (or hard_bot_playouts playouts) per decision.
    hard_bot_workers: int = Field(default=1, ge=1, le=64)
    hard_bot_seconds: float = Field(default=0.3, gt=0, le=30)
    hard_bot_playouts: int = Field(default=100_000, ge=1)
    # The workers' niceness above the server's (os.nice): the event loop is served first.
    hard_bot_nice: int = Field(default=10, ge=0, le=19)

    # Socket limits: a frame above max_message_bytes is refused and the socket closed (1009);
    # more than rate_per_second messages on average (burst rate_burst) closes it with 1008.
    max_message_bytes: int = 8192
    # HTTP bodies are small JSON objects.
    max_body_bytes: int = 16384
    rate_per_second: float = 20.0
    rate_burst: int = 40
    # Outgoing messages queued for a socket that does not read; beyond this it is closed (1013)
    # and the client reconnects with its last version.
    send_queue_limit: int = 512
    # A reconnect whose gap is larger than this gets a full state with a reset log instead of
    # the missed events one by one.
    max_event_gap: int = 2000

    # The game row's `state` is a snapshot written every this many versions (and at the start
    # and the end); in between only the action is stored, and loading replays the actions
    # after the snapshot (app.store.games). 1: a snapshot with every action.
    snapshot_every: int = Field(default=50, ge=1)

    # Postgres connection pool of each server process.
    db_pool_size: int = 10
    # No overflow: connections opened and closed under load cost more than waiting for one.
    db_max_overflow: int = 0
    # Processes learn of each other's commits by LISTEN/NOTIFY; this slow sweep only catches a
    # notification missed while the listening connection was reconnecting (0: never).
    sweep_interval_seconds: float = 30.0
    # SQLite: how often to look at the file's change counter, for a second process sharing the
    # file (0: never; one process needs none).
    sqlite_watch_seconds: float = 0.2
    # A socket whose pending frames have not drained for this long is closed (1013): a client
    # that never reads cannot hold the server's memory.
    send_timeout_seconds: float = 10.0
    # Kernel send buffer of each socket (SO_SNDBUF; 0: the system's, which grows to megabytes):
    # small, so that a client that stops reading is noticed and closed within the timeout above.
    socket_send_buffer_bytes: int = 65536
    # permessage-deflate on WebSockets: saves bandwidth, costs CPU and ~40 KiB per socket.
    ws_compression: bool = False

    # The address people use to reach this server (a reverse proxy or a tunnel), e.g.
    # https://dragons.example.org: invite and watch links are built from it. Unset: the page
    # builds them from the address its browser used.
    public_url: str | None = None

    # Lobby.
    max_name_length: int = 32
    # Issue 18: the time limits of a new table (created, quick play, the queue) unless its
    # creator says otherwise (0: none): a sealed bid or tie-break, and a power decision. A
    # timed table's absent player gets a bot after its grace period (30 s).
    default_turn_seconds: int = Field(default=45, ge=0, le=3600)
    default_choose_seconds: int = Field(default=60, ge=0, le=3600)

    def default_limits(self) -> dict[str, int | None]:
        """The time-limit columns of a new table whose creator chose none."""
        return {
            "turn_seconds": self.default_turn_seconds or None,
            "choose_seconds": self.default_choose_seconds or None,
        }

    # Logs: "text" (one line per event, key=value fields) or "json" (one JSON object per line).
    log_format: str = "text"
    # Our own event lines (one per committed action, socket, refusal) are INFO.
    log_level: str = "info"
    # Limits per client address and per process (issue 11). Sockets: beyond these the handshake
    # is refused with an `error` too_many_sockets and close 4429.
    max_sockets_per_address: int = 20
    max_spectators_per_table: int = 200
    max_sockets: int = 10_000
    # HTTP calls that change something (create, join, quick play, bots, leave, start): a token
    # bucket per client address; beyond it 429 rate_limited with Retry-After (burst 0: no limit).
    http_rate_per_second: float = 1.0
    http_rate_burst: int = 30
    # Addresses or networks of reverse proxies whose X-Forwarded-For is believed (comma-separated;
    # empty: the TCP peer is the client).
    trusted_proxies: str = ""
    gzip_minimum_bytes: int = Field(
        default=1024,
        ge=0,
        description="HTTP answers of at least this many bytes (the lists of tables, the client's "
        "scripts and stylesheet, a finished game's record and replay) are sent gzip-compressed to "
        "a client that accepts it (`Accept-Encoding: gzip`); smaller ones are sent as they are. "
        "A replay of a long game shrinks from megabytes to a few per cent. 0: never compress.",
    )
    content_security_policy: str = Field(
        # The client is plain ES modules and one stylesheet under /static: nothing inline,
        # nothing from elsewhere; sockets go back to the page's origin ('self' covers ws:/wss:).
        default="default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'",
        description="The `Content-Security-Policy` header of every response. The default allows "
        "this server's own scripts, styles, images and sockets only, no inline script or style, "
        "and no framing by any site (`frame-ancestors 'none'`, with `X-Frame-Options: DENY`); "
        "to let a site of yours frame the table, name it in `frame-ancestors`. Empty: no policy.",
    )
    metrics_allowed_networks: str = Field(
        default="127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7",
        description="Addresses or networks (comma-separated) that may read `/metrics`: loopback "
        "and private networks by default, where a Prometheus of one's own scrapes from. The "
        "address is the client's as `TRUSTED_PROXIES` decides; a request relayed by a proxy "
        "that is not trusted (it carries `X-Forwarded-For` or the like) counts as from outside. "
        "Empty: nobody, unless with `METRICS_TOKEN`.",
    )
    metrics_token: str = Field(
        default="",
        description="A secret that opens `/metrics` from anywhere: `Authorization: Bearer "
        "<METRICS_TOKEN>` (Prometheus: `authorization: {credentials: ...}`). Empty: none.",
    )
    # -- a public service (issue 20) --
    # Reads that cost (a finished game's replay and record, the lists of tables): a token bucket
    # of their own per client address; beyond it 429 rate_limited (burst 0: no limit).
    read_rate_per_second: float = 3.0
    read_rate_burst: int = 30
    # New sockets (table and queue) per client address: a token bucket; beyond it the handshake
    # is refused with `socket_rate_limited` and close 4429 (burst 0: no limit).
    socket_rate_per_second: float = 2.0
    socket_rate_burst: int = 20
    # Finished games' replays and records kept in memory, serialised (least recently used first
    # out beyond this many bytes).
    replay_cache_bytes: int = 64 * 1024 * 1024
    # The name of this process in the `X-Dragonstones-Replica` response header (empty: the
    # machine's host name, a container's id under Docker).
    replica_name: str = ""
    # The secret that signs spectators' chat labels (several processes: the same on each; empty:
    # one made at start, so a spectator gets a new label from another process or after a restart).
    secret_key: str = ""
    # The lobby lists an open table only while it changed within this many minutes, or while a
    # seated person holds a socket to it (in this process).
    table_idle_minutes: float = 10.0
    # -- a table flood from one address (issue 26) --
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
    # -- presence and stale tables (issue 8, lobby) --
    # Each process refreshes `seats.seen_at` of the seats it holds a socket of this often; a seat
    # not refreshed for 3 intervals (its process crashed) counts as away (0: no heartbeat, and a
    # crashed process's seats stay online).
    presence_heartbeat_seconds: float = 20.0
    # How often each process looks for open tables idle for table_idle_minutes, to close them.
    table_close_interval_seconds: float = 30.0

    # --- matchmaking queue (issue 8) ---
    # A queue entry none of whose sockets refreshed it for this long (a closed page, a crashed
    # process, a ticket whose socket never came) leaves the queue; a page reload survives it.
    queue_grace_seconds: float = 10.0
    # How often each process runs a matching pass (besides one at every join).
    queue_match_seconds: float = 1.0
    # How often each process reads the state of its queue sockets' tickets (a match made by
    # another process reaches the player within this).
    queue_poll_seconds: float = 0.5
    # The wait after which a player may accept bots, unless the player picks another.
    queue_bots_after_seconds: int = 60
    # Waiting entries one client address may hold at once.
    queue_max_per_address: int = 4
    # A matched or left entry (with a matched seat's token) is deleted this long after.
    queue_keep_minutes: float = 10.0
    # Table chat (issue 8): lines a socket may post per window (more are refused with
    # chat_rate_limited, the socket stays open); lines sent on connect without chat_since, and at
    # most with it.
    chat_lines_per_window: int = 5
    chat_window_seconds: float = 10.0
    chat_replay_lines: int = 100
    chat_replay_max: int = 500

    # -- the connection layer and the log (issue 26): app.edge.accept, app.core.refusals --
    max_connections_per_address: int = Field(
        default=64,
        ge=0,
        description="TCP connections (HTTP and WebSocket) one client address may hold in a "
        "process; beyond, a new one is answered `429 too_many_connections` and closed at accept, "
        "before anything is read. An IPv6 client's /64 counts as one address. The address is the "
        "TCP peer's: a peer in `TRUSTED_PROXIES` (a reverse proxy or tunnel that carries many "
        "clients) is not held to it, only to the process's total (the open-file limit less 128 "
        "descriptors; `503 unavailable` beyond). 0: no cap per address.",
    )
    header_timeout_seconds: float = Field(
        default=10.0,
        ge=0,
        description="Seconds a connection has, from accept (and a later request from its first "
        "byte), to send a complete request line and headers; data trickled meanwhile does not "
        "reset it. "
        "Then it is closed (`408 request_timeout` if it had begun a request; quietly if it sent "
        "nothing). Between requests an idle connection is closed after 5 s anyway (uvicorn's "
        "keep-alive). 0: no timer.",
    )
    max_request_head_bytes: int = Field(
        default=16384,
        ge=1024,
        description="Bytes a request's line and headers may hold (the URL included); beyond, "
        "`431 head_too_large` and the connection is closed.",
    )
    log_refusals_per_address: int = Field(
        default=5,
        ge=0,
        description="Log lines about one client address's refused requests, sockets, messages "
        "and connections (our `refused` lines and uvicorn's access lines of 4xx answers) in each "
        "`LOG_REFUSALS_WINDOW_SECONDS`; the others are counted in `/metrics` and told in one line "
        "when the window ends (`N more refused from A in the last T s`). 0: only that line.",
    )
    log_refusals_window_seconds: float = Field(
        default=60.0,
        ge=0,
        description="The window of `LOG_REFUSALS_PER_ADDRESS`, in seconds. 0: every refusal is "
        "logged.",
    )

    # -- deterministic tests --
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

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if not value or not value.strip():
            return None
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("PUBLIC_URL must start with http:// or https://")
        return value

    def resolved_database_url(self) -> str:
        if self.database_url:
            url = self.database_url
            # Accept the URLs that hosting providers hand out and pick the async driver.
            if url.startswith("postgres://"):
                url = "postgresql+asyncpg://" + url[len("postgres://") :]
            elif url.startswith("postgresql://"):
                url = "postgresql+asyncpg://" + url[len("postgresql://") :]
            elif url.startswith("sqlite:///"):
                url = "sqlite+aiosqlite:///" + url[len("sqlite:///") :]
            return url
        return f"sqlite+aiosqlite:///{Path.cwd() / SQLITE_DEFAULT_FILE}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
