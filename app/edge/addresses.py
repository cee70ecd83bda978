"""What `dragonstones serve` prints at start: the addresses to share with friends.

This machine's network addresses are read from its interfaces without sending anything: a UDP
socket "connected" to a private address only asks the kernel which interface it would use.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from pathlib import Path

EVERY_INTERFACE = {"0.0.0.0", "::", ""}
THIS_MACHINE_ONLY = {"127.0.0.1", "localhost", "::1"}


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, the default route's first."""
    found: list[str] = []
    with (
        contextlib.suppress(OSError),
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe,
    ):
        # connect() on UDP sends no packet: it only picks the route (and so the address).
        probe.connect(("10.255.255.255", 1))
        found.append(str(probe.getsockname()[0]))
    with contextlib.suppress(OSError):
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(sockaddr[0]))
    usable = []
    for address in found:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_unspecified) and address not in usable:
            usable.append(address)
    return usable


def in_container() -> bool:
    return Path("/.dockerenv").exists()


def serving_lines(
    host: str, port: int, lan: list[str] | None = None, container: bool | None = None
) -> list[str]:
    """The lines printed before serving: where to open the game, and what to share."""
    if host in THIS_MACHINE_ONLY:
        return [
            f"Dragonstones: open http://127.0.0.1:{port} (this machine only).",
            "To let friends on your network join, serve on every interface: "
            f"dragonstones serve --host 0.0.0.0 --port {port}",
        ]
    if host not in EVERY_INTERFACE:
        return [f"Dragonstones: open http://{host}:{port}"]
    if in_container() if container is None else container:
        return [
            f"Dragonstones: listening on port {port} in a container: open the address and port "
            "published on the host (docker-compose.yml: http://127.0.0.1:8000 by default)."
        ]
    lines = [f"Dragonstones: open http://127.0.0.1:{port} on this machine."]
    lan = lan_addresses() if lan is None else lan
    if lan:
        shared = ", ".join(f"http://{address}:{port}" for address in lan)
        lines.append(f"Friends on the same network open: {shared}")
    else:
        lines.append("No network address found: this machine seems to be offline.")
    lines.append(
        "Over the internet: a tunnel or a reverse proxy in front (README.md, Hosting for friends)."
    )
    return lines
