"""The settings of the server itself: its database, its address, its files, headers, logs and
metrics (sections of app.core.config.Settings; docs/configuration.md shows them in this order)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings

from app.core import resources

SQLITE_DEFAULT_FILE = "dragonstones.sqlite3"


def default_static_dir() -> Path:
    return resources.static_dir()


class StoreSettings(BaseSettings):
    """The database, and what the server keeps in it."""

    database_url: str | None = Field(
        default=None,
        description="The database. `postgresql+asyncpg://user:password@host:5432/db` for "
        "Postgres (`postgres://` and `postgresql://`, as hosting providers hand them out, are "
        "accepted too); `sqlite:///path/file.sqlite3` for a SQLite file. Unset: the SQLite file "
        "`dragonstones.sqlite3` in the working directory, so that `serve` runs on a fresh "
        "machine.",
    )
    database_schema: str | None = Field(
        default=None,
        description="Postgres only: the schema to work in (`search_path`); the tests use a fresh "
        "schema per run. Unset: the database's default (`public`).",
    )
    sqlite_synchronous: str = Field(
        default="FULL",
        description="SQLite only: its durability (`PRAGMA synchronous`: `OFF`, `NORMAL`, `FULL` "
        "or `EXTRA`). `FULL` makes every acknowledged action survive a power loss, not only a "
        "crash of the server.",
    )
    sqlite_busy_timeout_ms: int = Field(
        default=10_000,
        description="SQLite only: how long a writer waits for another process's write to end, "
        "in milliseconds, before it fails.",
    )
    auto_migrate: bool = Field(
        default=True,
        description="Apply the database migrations when the server starts. `false` where "
        "something else runs `dragonstones db upgrade` first (the compose file's `migrate` "
        "service).",
    )
    snapshot_every: int = Field(
        default=50,
        ge=1,
        description="The game row stores the whole state every this many versions (and at the "
        "start and the end); in between only the action is stored, and loading a game replays "
        "the actions after its last snapshot. 1: a snapshot with every action.",
    )
    db_pool_size: int = Field(
        default=10,
        description="Postgres connections kept open by each server process.",
    )
    db_max_overflow: int = Field(
        default=0,
        description="Postgres connections a process may open beyond `DB_POOL_SIZE` under load. "
        "0: none (connections opened and closed under load cost more than waiting for one).",
    )
    group_commit_max: int = Field(
        default=32,
        ge=1,
        description="Postgres only: actions of different games that are ready while two commits "
        "are under way are committed together, up to this many in one transaction, each "
        "acknowledged once that transaction commits. 1: every action in a transaction of its own.",
    )
    sweep_interval_seconds: float = Field(
        default=30.0,
        description="Processes sharing a Postgres database hear of each other's commits at once "
        "(LISTEN/NOTIFY); this slow sweep, every this many seconds, only catches a notification "
        "missed while the listening connection reconnected. 0: never.",
    )
    sqlite_watch_seconds: float = Field(
        default=0.2,
        description="SQLite only: how often, in seconds, to look at the file's change counter, "
        "for a second process sharing the file. 0: never (one process needs none).",
    )
    replay_cache_bytes: int = Field(
        default=64 * 1024 * 1024,
        description="Memory, in bytes, for finished games' replays and records, kept serialised "
        "(each is computed once per process); the least recently used leave first beyond it.",
    )

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


class WebSettings(BaseSettings):
    """The web server: the address people use, the client's files, the headers, logs and
    metrics."""

    public_url: str | None = Field(
        default=None,
        description="The address people use to reach this server (a reverse proxy or a tunnel), "
        "e.g. `https://dragons.example.org`; it must start with `http://` or `https://`. Tables "
        "then carry `invite_url` and `watch_url` built on it, and the table page hands those "
        "out. Unset: the page builds its links from the address its browser used.",
    )
    static_dir: Path = Field(
        default_factory=default_static_dir,
        description="The folder of the browser client's files (`index.html`, `table.html`, "
        "`css/`, `js/`). Unset: the client installed inside the package (`app/static`; "
        "`static/` in a checkout).",
    )
    trusted_proxies: str = Field(
        default="",
        description="Addresses or networks (comma-separated) of your reverse proxies: from them "
        "only, `X-Forwarded-For` names the client (its nearest untrusted entry). Empty: the TCP "
        "peer is the client, and `X-Forwarded-For` is ignored.",
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
        "to let a site of yours frame the table, name it in `frame-ancestors`. Every response "
        "also carries `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`. "
        "Empty: no policy.",
    )
    gzip_minimum_bytes: int = Field(
        default=1024,
        ge=0,
        description="HTTP answers of at least this many bytes (the lists of tables, the client's "
        "scripts and stylesheet, a finished game's record and replay) are sent gzip-compressed to "
        "a client that accepts it (`Accept-Encoding: gzip`); smaller ones are sent as they are. "
        "A replay of a long game shrinks from megabytes to a few per cent. 0: never compress.",
    )
    metrics_allowed_networks: str = Field(
        default="127.0.0.0/8, ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7",
        description="Addresses or networks (comma-separated) that may read `/metrics`: loopback "
        "and private networks by default, where a Prometheus of one's own scrapes from. The "
        "address is the client's as `TRUSTED_PROXIES` decides; a request relayed by a proxy "
        "that is not trusted (it carries `X-Forwarded-For`, `Forwarded` or `X-Real-IP`) counts as "
        "from outside. "
        "Anyone else gets `403 forbidden`. Empty: nobody, unless with `METRICS_TOKEN`.",
    )
    metrics_token: str = Field(
        default="",
        description="A secret that opens `/metrics` from anywhere: `Authorization: Bearer "
        "<METRICS_TOKEN>` (Prometheus: `authorization: {credentials: ...}`). Empty: none.",
    )
    replica_name: str = Field(
        default="",
        description="This process's name in the `X-Dragonstones-Replica` header of every "
        "response and WebSocket handshake. Empty: the machine's host name (a container's id "
        "under Docker).",
    )
    log_format: str = Field(
        default="text",
        description="`text`: one line per event, with `key=value` fields; `json`: one JSON "
        "object per line (event and fields), for every log line.",
    )
    log_level: str = Field(
        default="info",
        description="The least level logged (`debug`, `info`, `warning`, `error`). Our event "
        "lines (`socket_opened`, `socket_closed`, `refused`) are INFO; `action_committed`, one "
        "per action, is DEBUG. `dragonstones serve --log-level` overrides it.",
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
