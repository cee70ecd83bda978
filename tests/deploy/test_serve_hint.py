"""`dragonstones serve` says where to open the game and what to share with friends."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import httpx

from app.edge.addresses import lan_addresses, serving_lines
from tests.server.harness import Database, ServerProcess


def test_lan_addresses_are_this_machines_and_not_loopback() -> None:
    for address in lan_addresses():
        ip = ipaddress.ip_address(address)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_unspecified
        # An address of this machine: a socket can bind to it.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((address, 0))


def test_every_interface_lists_the_addresses_to_share() -> None:
    lines = serving_lines("0.0.0.0", 8123, lan=["192.168.1.20", "10.0.0.7"], container=False)
    text = "\n".join(lines)
    assert "http://127.0.0.1:8123" in lines[0]
    assert "http://192.168.1.20:8123, http://10.0.0.7:8123" in text
    assert "tunnel" in text
    offline = "\n".join(serving_lines("0.0.0.0", 8123, lan=[], container=False))
    assert "offline" in offline
    boxed = "\n".join(serving_lines("0.0.0.0", 8123, lan=["172.17.0.2"], container=True))
    assert "172.17.0.2" not in boxed and "published on the host" in boxed


def test_loopback_hints_at_every_interface_and_health_checks_are_not_logged(tmp_path: Path) -> None:
    lines = serving_lines("127.0.0.1", 8123)
    assert "this machine only" in lines[0] and "--host 0.0.0.0" in lines[1]
    assert serving_lines("192.168.1.20", 8123) == ["Dragonstones: open http://192.168.1.20:8123"]
    # The real command prints it before serving.
    path = tmp_path / "hint.sqlite3"
    server = ServerProcess(Database(url=f"sqlite+aiosqlite:///{path}", path=path), tmp_path)
    server.start()  # asks /healthz until it answers
    try:
        assert httpx.get(f"{server.http}/healthz").status_code == 200
        assert httpx.get(f"{server.http}/").status_code == 200
    finally:
        server.stop()
    log = server.log()
    assert f"open http://127.0.0.1:{server.port} (this machine only)" in log
    assert f"dragonstones serve --host 0.0.0.0 --port {server.port}" in log
    # Health checks stay out of the access log; other requests are in it.
    assert '"GET / HTTP/1.1" 200' in log and "/healthz" not in log
