"""`/metrics` answers only the networks of METRICS_ALLOWED_NETWORKS (loopback and private ones by
default) or a client with METRICS_TOKEN; a forged or untrusted X-Forwarded-For never opens it.

In process: the application itself (no lifespan: `/metrics` needs none), each request from the
client address it names, as uvicorn puts the TCP peer in the ASGI scope."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.core.config import Settings
from app.main import create_app


async def _get(
    settings: Settings, peer: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    transport = httpx.ASGITransport(app=create_app(settings), client=(peer, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        return await http.get("/metrics", headers=headers or {})


def _settings(tmp_path: Path, **values: str) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'm.sqlite3'}", **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("peer", "headers", "status"),
    [
        ("127.0.0.1", {}, 200),
        ("::1", {}, 200),
        ("10.1.2.3", {}, 200),
        ("172.20.0.5", {}, 200),  # a Docker network
        ("192.168.1.20", {}, 200),
        ("::ffff:192.168.1.20", {}, 200),  # a dual-stack socket's IPv4 peer
        ("fd00::5", {}, 200),
        ("203.0.113.9", {}, 403),
        ("2001:db8::1", {}, 403),
        ("172.32.0.1", {}, 403),  # just outside 172.16.0.0/12
        # Forged: the peer is public, whatever it claims.
        ("203.0.113.9", {"X-Forwarded-For": "127.0.0.1"}, 403),
        # A proxy on this machine that is not in TRUSTED_PROXIES relays a visitor.
        ("127.0.0.1", {"X-Forwarded-For": "203.0.113.9"}, 403),
        ("127.0.0.1", {"X-Forwarded-For": "127.0.0.1"}, 403),
        ("127.0.0.1", {"Forwarded": "for=203.0.113.9"}, 403),
        ("127.0.0.1", {"X-Real-IP": "203.0.113.9"}, 403),
        ("127.0.0.1", {"Authorization": "Bearer guess"}, 200),  # no token set: by address
    ],
)
async def test_by_address_by_default(
    tmp_path: Path, peer: str, headers: dict[str, str], status: int
) -> None:
    r = await _get(_settings(tmp_path), peer, headers)
    assert r.status_code == status, r.text
    if status == 200:
        assert "dragonstones_games_live" in r.text
    else:
        assert r.json()["detail"]["code"] == "forbidden"
        assert "dragonstones" not in r.text.replace("dragonstones_", "")


@pytest.mark.parametrize(
    ("peer", "forwarded", "status"),
    [
        ("10.0.0.2", "192.168.1.7", 200),  # the proxy says: a client on the private network
        ("10.0.0.2", "203.0.113.9", 403),
        # The client wrote the left entries itself; the proxy appended the real one.
        ("10.0.0.2", "127.0.0.1, 203.0.113.9", 403),
        ("10.0.0.2", "192.168.1.7, 203.0.113.9, 10.0.0.2", 403),
        ("203.0.113.9", "10.0.0.2", 403),  # not the trusted proxy
    ],
)
async def test_behind_trusted_proxies_the_forwarded_client_counts(
    tmp_path: Path, peer: str, forwarded: str, status: int
) -> None:
    settings = _settings(
        tmp_path, trusted_proxies="10.0.0.2", metrics_allowed_networks="192.168.0.0/16"
    )
    r = await _get(settings, peer, {"X-Forwarded-For": forwarded})
    assert r.status_code == status, r.text


async def test_a_bearer_token_opens_it_from_anywhere(tmp_path: Path) -> None:
    settings = _settings(tmp_path, metrics_token="s3cret-token", metrics_allowed_networks="")
    bearer = {"Authorization": "Bearer s3cret-token"}
    assert (await _get(settings, "203.0.113.9", bearer)).status_code == 200
    assert (
        await _get(settings, "203.0.113.9", {**bearer, "X-Forwarded-For": "1.2.3.4"})
    ).status_code == 200
    for wrong in ("Bearer s3cret", "Bearer s3cret-token-2", "s3cret-token", "Basic s3cret-token"):
        r = await _get(settings, "203.0.113.9", {"Authorization": wrong})
        assert r.status_code == 403, wrong
    # METRICS_ALLOWED_NETWORKS empty: not even loopback without the token.
    assert (await _get(settings, "127.0.0.1")).status_code == 403
