"""The browser security headers on every HTTP response (pages, static files, API answers):
`Content-Security-Policy` (`CONTENT_SECURITY_POLICY`; by default only this server's own scripts,
styles, images and sockets, no inline script or style, never framed), `X-Frame-Options: DENY`
while the policy forbids framing (for browsers without `frame-ancestors`),
`X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` (a table's address never
leaves in a Referer). A header a response already carries is left as it is."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BrowserHeaders:
    """Pure ASGI middleware: adds the headers to every HTTP response."""

    def __init__(self, app: ASGIApp, policy: str) -> None:
        self.app = app
        headers = [
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
        ]
        policy = policy.strip()
        if policy:
            headers.append((b"content-security-policy", policy.encode("latin-1")))
            if "frame-ancestors 'none'" in policy:
                headers.append((b"x-frame-options", b"DENY"))
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in present]
                if extra:
                    message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
