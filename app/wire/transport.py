"""The server's transport and WebSocket protocol of each socket, kept within reach: a socket whose
client stopped reading can then be dropped at once and its kernel buffer capped, and the frames
due to it are written in one go (app.wire.outbox)."""

from __future__ import annotations

from typing import Any

from starlette.types import Scope, Send

TRANSPORT_KEY = "dragonstones.transport"
PROTOCOL_KEY = "dragonstones.protocol"


def keep_transport(scope: Scope, send: Send) -> None:
    """Put uvicorn's protocol object of this WebSocket, and its transport, in the scope (`send`
    is that protocol's bound method when nothing wraps it, as on the lean socket path,
    app.edge.socket_path)."""
    protocol: Any = getattr(send, "__self__", None)
    transport = getattr(protocol, "transport", None)
    if transport is not None:
        scope[TRANSPORT_KEY] = transport
        scope[PROTOCOL_KEY] = protocol
