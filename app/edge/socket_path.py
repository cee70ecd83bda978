"""The lean path of the table's and the queue's sockets: their WebSocket scopes go from uvicorn
straight to their handlers, past the HTTP middlewares (the /api rate limits, gzip, the browser
headers, the body limit, the replica header) and FastAPI's routing and exception wrappers, which
have nothing to do with a socket and would otherwise run around every receive and send of it
(about a fifth of the server's CPU per action, bench/RESULTS.md).

What those layers did for a socket is done here: the scope holds the application, the server's
transport and protocol (app.wire.transport), and the `X-Dragonstones-Replica` header that the
handshake's answer carries (app.edge.replica). Every other scope, HTTP and any other WebSocket
path, takes the application's usual stack.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIWebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from app.wire.transport import keep_transport

# The headers a lean socket's handshake answer carries (see app.edge.sockets.admit).
ACCEPT_HEADERS = "dragonstones.accept_headers"
Handler = Callable[..., Awaitable[None]]


class LeanSockets(FastAPI):
    """The application, whose lean socket routes skip its middleware stack."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lean_routes: list[tuple[re.Pattern[str], Handler]] = []
        self.accept_headers: list[tuple[bytes, bytes]] = []

    def lean(self, *routers: APIRouter) -> None:
        """Serve the WebSocket endpoints of these routers (included without a prefix; endpoints
        without dependencies, whose path parameters are plain strings) by the lean path."""
        for router in routers:
            for route in router.routes:
                if isinstance(route, APIWebSocketRoute):
                    self.lean_routes.append((route.path_regex, route.endpoint))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not self.root_path:
            path = scope["path"]
            for pattern, handler in self.lean_routes:
                match = pattern.match(path)
                if match is not None:
                    scope["app"] = self
                    scope[ACCEPT_HEADERS] = self.accept_headers
                    keep_transport(scope, send)
                    await handler(WebSocket(scope, receive, send), **match.groupdict())
                    return
        await super().__call__(scope, receive, send)
