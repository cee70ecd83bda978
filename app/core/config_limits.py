"""The settings that bound what one client may cost the server: the size of messages and
bodies, rates, sockets, and what a slow reader may hold (a section of app.core.config.Settings)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class LimitSettings(BaseSettings):
    """Sockets and HTTP: sizes, rates and limits per client address and per process."""

    max_message_bytes: int = Field(
        default=8192,
        description="The largest WebSocket message accepted, in bytes; a larger one is refused "
        "(`message_too_large`) and the socket closed (1009).",
    )
    max_body_bytes: int = Field(
        default=16384,
        description="The largest HTTP request body accepted, in bytes (the bodies are small JSON "
        "objects); beyond, `413 body_too_large`.",
    )
    rate_per_second: float = Field(
        default=20.0,
        description="Messages a socket may send per second on average (a token bucket, with "
        "`RATE_BURST`); beyond, `rate_limited` and the socket is closed (1008).",
    )
    rate_burst: int = Field(
        default=40,
        description="Messages a socket may send at once before `RATE_PER_SECOND` applies.",
    )
    send_queue_limit: int = Field(
        default=512,
        description="Answers (acknowledgements, errors, pongs) queued for a socket that does not "
        "read; beyond, the socket is closed (1013) and the client reconnects with its last "
        "version. States and tables never pile up: a socket that falls behind gets one state "
        "covering every version it missed.",
    )
    send_timeout_seconds: float = Field(
        default=10.0,
        description="A socket whose pending frame the client has not taken for this many "
        "seconds is closed (1013) and its memory freed, so that a client that never reads "
        "cannot hold the server's memory; the connection is cut if the client has not read up "
        "to the close frame within as long again.",
    )
    socket_send_buffer_bytes: int = Field(
        default=65536,
        description="The kernel send buffer of each socket (`SO_SNDBUF`), in bytes: small, so "
        "that a client that stops reading is noticed and closed within `SEND_TIMEOUT_SECONDS`. "
        "0: the system's (which grows to megabytes).",
    )
    max_event_gap: int = Field(
        default=2000,
        description="The most versions a reconnecting socket is sent event by event; a larger "
        "gap gets a full state with a reset log instead.",
    )
    ws_compression: bool = Field(
        default=False,
        description="permessage-deflate on WebSockets: saves bandwidth, costs CPU (about half "
        "again the server's CPU per action at machine speed, bench/RESULTS.md) and about 40 KiB "
        "of memory per socket.",
    )
    ws_ping_after_silence_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A WebSocket that has sent nothing for this long gets a ping, and is closed "
        "if no pong comes within 20 s. A page sends a ping message every 25 s, so its socket "
        "is never pinged.",
    )
    max_sockets_per_address: int = Field(
        default=20,
        description="Table sockets one client address may hold in a process; beyond, the "
        "handshake is refused (`too_many_sockets`, close 4429).",
    )
    max_spectators_per_table: int = Field(
        default=200,
        description="Spectator sockets at one table in a process (seats do not count); beyond, "
        "refused the same way.",
    )
    max_sockets: int = Field(
        default=10_000,
        description="Table sockets of a process in all; beyond, refused the same way.",
    )
    socket_rate_per_second: float = Field(
        default=2.0,
        description="New sockets (table and queue) per client address and second, on average: a "
        "token bucket, with `SOCKET_RATE_BURST`; beyond, the handshake is refused "
        "(`socket_rate_limited`, close 4429).",
    )
    socket_rate_burst: int = Field(
        default=20,
        description="New sockets one client address may open at once before "
        "`SOCKET_RATE_PER_SECOND` applies. 0: no limit.",
    )
    http_rate_per_second: float = Field(
        default=1.0,
        description="HTTP calls that change something (create, join, quick play, bots, leave, "
        "start) per client address and second, on average: a token bucket, with "
        "`HTTP_RATE_BURST`; beyond, `429 rate_limited` with `Retry-After`. Leaving the queue "
        "(`DELETE /api/queue/{ticket}`) is never limited.",
    )
    http_rate_burst: int = Field(
        default=30,
        description="HTTP calls that change something one client address may make at once "
        "before `HTTP_RATE_PER_SECOND` applies. 0: no limit.",
    )
    read_rate_per_second: float = Field(
        default=3.0,
        description="Reads that cost (`GET /api/games/{id}`, `GET /api/games/{id}/replay`, "
        "`GET /api/tables`) per client address and second, on average: a token bucket of their "
        "own, with `READ_RATE_BURST`; beyond, `429 rate_limited` with `Retry-After`. Other reads "
        "are not limited.",
    )
    read_rate_burst: int = Field(
        default=30,
        description="Reads that cost one client address may make at once before "
        "`READ_RATE_PER_SECOND` applies. 0: no limit.",
    )


class ConnectionSettings(BaseSettings):
    """The connection layer under uvicorn (app.edge.accept) and how much the log says of refusals
    (app.core.refusals)."""

    max_connections_per_address: int = Field(
        default=64,
        ge=0,
        description="TCP connections (HTTP and WebSocket) one client address may hold in a "
        "process; beyond, a new one is answered `429 too_many_connections` and closed at accept, "
        "before anything is read. An IPv6 client's /64 counts as one address. The address is the "
        "TCP peer's: a peer in `TRUSTED_PROXIES` (a reverse proxy or tunnel that carries many "
        "clients) is not held to it, only to the process's total (the open-file limit less 128 "
        "descriptors; `503 unavailable` beyond). 0: no cap per address. Only under "
        "`dragonstones serve` (app.edge.accept), not under another ASGI server.",
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
