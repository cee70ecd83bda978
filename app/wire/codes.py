"""The WebSocket close codes the server sends (RFC 6455's, and 4xxx of its own)."""

from __future__ import annotations

CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008  # floods, bad token
CLOSE_TOO_BIG = 1009
CLOSE_RESTART = 1012  # server shutting down: reconnect later
CLOSE_TRY_AGAIN = 1013  # too far behind: reconnect with the last version
CLOSE_NOT_FOUND = 4404  # no such table
CLOSE_TOO_MANY = 4429  # refused by the limits on sockets: like HTTP 429, "not now"
