"""Which server process answered: every HTTP response and every WebSocket handshake carries
`X-Dragonstones-Replica: <name>` (`REPLICA_NAME`, else the host name: a container's id under
Docker), so that behind a load balancer one can tell which replica served a page or holds a
socket (docs/selfhost.md, "More than one machine")."""

from __future__ import annotations

import socket

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-dragonstones-replica"


def replica_name(configured: str) -> str:
    return configured.strip() or socket.gethostname()


class ReplicaHeader:
    """Pure ASGI middleware: adds the header to responses and to accepted WebSockets."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app = app
        self.value = name.encode("latin-1", errors="replace")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def tagged(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (HEADER, self.value)],
                }
            await send(message)

        await self.app(scope, receive, tagged)
