"""Where the outside world comes in: the HTTP routes, the table and queue sockets, admission,
body and rate limits, request dependencies, replays, readiness and the addresses to share. Every
error leaves here as a status or a frame. Imports any layer below."""
