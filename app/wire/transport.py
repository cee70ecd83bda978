"""The server's transport of each WebSocket, kept within reach: a socket whose client stopped
reading can then be dropped at once and its kernel buffer capped (app.wire.outbox)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

TRANSPORT_KEY = "dragonstones.transport"


class KeepTransport:
    """Pure ASGI middleware: puts the server's transport of each WebSocket in its scope (the
    framework wraps `send` on the way in, which hides the transport)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            protocol = getattr(send, "__self__", None)  # uvicorn's protocol object
            transport = getattr(protocol, "transport", None)
            if transport is not None:
                scope[TRANSPORT_KEY] = transport
        await self.app(scope, receive, send)
