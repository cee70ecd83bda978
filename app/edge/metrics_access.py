"""`GET /metrics` and who may read it: a client whose address is in `METRICS_ALLOWED_NETWORKS`
(default: loopback and private networks, where a Prometheus of one's own scrapes from), or any
client sending `Authorization: Bearer <METRICS_TOKEN>`; anyone else gets 403 `forbidden`.

The address is the one the rate limits use (app.edge.ratelimit.client_address): the TCP peer, or
behind `TRUSTED_PROXIES` the address they forwarded. A request that came through a proxy which is
not trusted (it carries a forwarding header such as `X-Forwarded-For`) is judged as coming from
outside: a reverse proxy or tunnel on this machine would otherwise make every visitor look like
loopback.
"""

from __future__ import annotations

import hmac
import ipaddress

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.types import Scope

from app.core.errors import Code, ServiceError
from app.core.metrics import CONTENT_TYPE
from app.edge.ratelimit import client_address, parse_proxies

router = APIRouter(include_in_schema=False)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Headers by which a proxy names the client it relays.
FORWARDING = frozenset(
    {b"x-forwarded-for", b"forwarded", b"x-real-ip", b"cf-connecting-ip", b"true-client-ip"}
)


class MetricsAccess:
    """The rule of `/metrics`, made once from the settings."""

    def __init__(self, allowed: str, token: str, trusted_proxies: str) -> None:
        self.allowed = parse_proxies(allowed)
        self.token = token.strip().encode()
        self.proxies = parse_proxies(trusted_proxies)

    def allows(self, scope: Scope) -> bool:
        headers = scope.get("headers") or []
        if self.token:
            for name, value in headers:
                if name == b"authorization" and hmac.compare_digest(
                    value.strip(), b"Bearer " + self.token
                ):
                    return True
        client = scope.get("client")
        peer = str(client[0]) if client else ""
        if not _within(peer, self.proxies) and any(name in FORWARDING for name, _ in headers):
            return False  # relayed by a proxy that is not trusted: the client is unknown
        return _within(client_address(scope, self.proxies), self.allowed)


def _within(address: str, networks: list[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # a dual-stack socket's IPv4 peer
    return any(ip in net for net in networks)


def _access(request: Request) -> MetricsAccess:
    state = request.app.state
    access: MetricsAccess | None = getattr(state, "metrics_access", None)
    if access is None:
        settings = state.settings
        access = state.metrics_access = MetricsAccess(
            settings.metrics_allowed_networks, settings.metrics_token, settings.trusted_proxies
        )
    return access


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus text: games, sockets, actions, latencies, errors, conflicts."""
    if not _access(request).allows(request.scope):
        raise ServiceError(
            Code.FORBIDDEN,
            "metrics are served to the networks of METRICS_ALLOWED_NETWORKS, or with "
            "Authorization: Bearer <METRICS_TOKEN>",
        )
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)
