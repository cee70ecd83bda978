"""Per-address limits of HTTP calls that change something, and who the client address is.

Creating tables, joining, quick play, bots, leaving and starting cost database writes and show in
the lobby, so one address may make `HTTP_RATE_BURST` of them at once and `HTTP_RATE_PER_SECOND`
on average after that (a token bucket per address); beyond, `429 rate_limited` with `Retry-After`.
Reads that cost (a finished game's replay and record, the lists of tables) have a bucket of their
own per address (`READ_RATE_BURST`, `READ_RATE_PER_SECOND`). Leaving the matchmaking queue
(`DELETE /api/queue/{ticket}`) is never limited: a refused leave would keep the ticket waiting.

The address is the TCP peer's. `X-Forwarded-For` is believed only from a peer listed in
`TRUSTED_PROXIES` (a reverse proxy of one's own): otherwise anyone could pick their address.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re

from starlette.types import ASGIApp, Receive, Scope, Send

from app.wire.buckets import Buckets

# Methods that change nothing: never limited.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Reads that cost: a finished game's replay and record, the lists of tables (not one table).
COSTLY_READS = re.compile(r"/api/games/[^/]+(/replay|/screens)?|/api/tables")
# Never limited: a refused leave would keep the ticket in the queue until it expires.
NEVER_LIMITED = re.compile(r"/api/queue/[^/]+")


def parse_proxies(spec: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """`TRUSTED_PROXIES`: comma-separated addresses or networks ("10.0.0.1, 172.16.0.0/12")."""
    return [
        ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip()
    ]


def _trusted(address: str, proxies: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in proxies)


def client_address(
    scope: Scope, proxies: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> str:
    """The client's address: the peer's, or, behind trusted proxies, the nearest untrusted
    address of X-Forwarded-For (the entries left of it could be made up by the client)."""
    client = scope.get("client")
    peer = str(client[0]) if client else "unknown"
    if not proxies or not _trusted(peer, proxies):
        return peer
    forwarded: list[str] = []
    for name, value in scope.get("headers") or []:
        if name == b"x-forwarded-for":
            forwarded += [p.strip() for p in value.decode("latin-1").split(",") if p.strip()]
    for hop in reversed(forwarded):
        if not _trusted(hop, proxies):
            return hop
    return forwarded[0] if forwarded else peer


class HttpRateLimit:
    """Pure ASGI middleware: limits the changing calls under `/api/` per client address."""

    def __init__(
        self,
        app: ASGIApp,
        rate: float,
        burst: int,
        trusted_proxies: str = "",
        read_rate: float = 0.0,
        read_burst: int = 0,
    ) -> None:
        self.app = app
        self.buckets = Buckets(rate, burst)
        self.enabled = burst > 0
        self.reads = Buckets(read_rate, read_burst) if read_burst > 0 else None
        self.proxies = parse_proxies(trusted_proxies)

    def _bucket(self, scope: Scope) -> tuple[Buckets, str] | None:
        """The bucket this call draws on, and what it is called; None: not limited."""
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith("/api/"):
            return None
        method = scope.get("method", "GET")
        if method in SAFE_METHODS:
            if self.reads is not None and method != "OPTIONS" and COSTLY_READS.fullmatch(path):
                return self.reads, "reads"
            return None
        if method == "DELETE" and NEVER_LIMITED.fullmatch(path):
            return None
        return (self.buckets, "changes") if self.enabled else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        bucket = self._bucket(scope)
        if bucket is None:
            await self.app(scope, receive, send)
            return
        buckets, what = bucket
        wait = buckets.take(client_address(scope, self.proxies))
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        retry_after = max(1, math.ceil(wait))
        # Counted (its one log line is the access log's, within the address's budget).
        metrics = getattr(getattr(scope.get("app"), "state", None), "metrics", None)
        if metrics is not None:
            metrics.errors.labels("rate_limited").inc()
        body = json.dumps(
            {
                "detail": {
                    "code": "rate_limited",
                    "message": f"too many {what} from your address; try again in {retry_after} s",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(retry_after).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
