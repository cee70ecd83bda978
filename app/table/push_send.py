"""Sending one Web Push, and what a push needs: the server's VAPID key pair (made here when the
database has none), the check that a subscription's endpoint is a real push service, and the
request itself through `pywebpush` (VAPID signature, RFC 8291 encryption) on one aiohttp session,
retried with backoff. A 404 or 410 means the browser unsubscribed: the subscription is dropped."""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import aiohttp
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid, Vapid01
from pywebpush import WebPushException, webpush_async

from app.core.clock import server_clock
from app.core.config import Settings
from app.core.metrics import Metrics
from app.store.push_ports import Subscription, VapidKeys

log = logging.getLogger("dragonstones.push")

GONE = {404, 410}  # the subscription no longer exists: drop it
RETRY = {408, 425, 429, 500, 502, 503, 504}  # the push service may take it later


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def public_key_of(vapid: Vapid01) -> str:
    return b64url(
        vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


def make_keys() -> VapidKeys:
    """A new P-256 key pair, as stored."""
    vapid = Vapid()
    vapid.generate_keys()
    private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    return VapidKeys(private_key=b64url(private), public_key=public_key_of(vapid))


def keys_from_setting(private_key: str) -> VapidKeys:
    vapid = Vapid.from_string(private_key=private_key)
    return VapidKeys(private_key=private_key, public_key=public_key_of(vapid))


def allowed_endpoint(endpoint: str, settings: Settings) -> bool:
    """An endpoint the server may post to: https on a known push service (PUSH_SERVICES), so
    that a client's input cannot point the server at an internal host; and, with
    PUSH_TEST_ENDPOINTS only, http on 127.0.0.1 (a test's push service)."""
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None or not host:
        return False
    if settings.push_test_endpoints and parts.scheme == "http" and host == "127.0.0.1":
        return True
    if parts.scheme != "https" or port not in (None, 443):
        return False
    services = [s.strip().lower() for s in settings.push_services.split(",") if s.strip()]
    return any(host == s or host.endswith("." + s) for s in services)


def contact(settings: Settings) -> str:
    if settings.push_contact:
        return settings.push_contact
    public = settings.public_url or ""
    return public if public.startswith("https://") else "mailto:admin@localhost"


class Sender:
    """Posts pushes to push services, retrying what they did not take."""

    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        keys: VapidKeys,
        drop: Callable[[str], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.vapid = Vapid.from_string(private_key=keys.private_key)
        self.drop = drop  # forget a subscription the push service says is gone
        self.session: aiohttp.ClientSession | None = None
        self.running = asyncio.Semaphore(8)  # requests in flight at once

    def _session(self) -> aiohttp.ClientSession:
        if self.session is None or self.session.closed:
            # trust_env: a network whose way out is a proxy names it in HTTPS_PROXY.
            self.session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.settings.push_timeout_seconds),
                trust_env=True,
            )
        return self.session

    async def send(self, sub: Subscription, data: str) -> None:
        """Deliver `data` to one subscription, retrying with backoff; never raises."""
        wait = self.settings.push_retry_seconds
        for attempt in range(self.settings.push_retries + 1):
            if attempt:
                await server_clock.sleep(wait)
                wait *= 2
            outcome = await self._once(sub, data)
            if outcome != "retry":
                return
        self.metrics.push_failures.labels("gave_up").inc()

    async def _once(self, sub: Subscription, data: str) -> str:
        """ "sent", "dropped" (gone, or refused for good) or "retry"."""
        info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        try:
            async with self.running:
                await webpush_async(
                    info,
                    data,
                    vapid_private_key=self.vapid,
                    vapid_claims={"sub": contact(self.settings)},
                    ttl=self.settings.push_ttl_seconds,
                    timeout=aiohttp.ClientTimeout(total=self.settings.push_timeout_seconds),
                    aiohttp_session=self._session(),
                )
        except WebPushException as exc:
            response = exc.response
            status = getattr(response, "status", None) or getattr(response, "status_code", None)
            if status in GONE:
                self.metrics.push_failures.labels("gone").inc()
                try:
                    await self.drop(sub.endpoint)
                except Exception as failure:  # the database away: 410 again next time
                    log.warning("could not drop a push subscription: %r", failure)
                return "dropped"
            if status in RETRY:
                self.metrics.push_failures.labels(f"http_{status}").inc()
                return "retry"
            self.metrics.push_failures.labels("refused").inc()
            log.warning("a push service refused a push: %s", str(exc).splitlines()[0][:200])
            return "dropped"
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            # No way out to the push service (a server without internet): counted, quietly.
            self.metrics.push_failures.labels("unreachable").inc()
            log.info("push service unreachable: %r", exc)
            return "retry"
        except Exception:
            self.metrics.push_failures.labels("error").inc()
            log.exception("a push failed")
            return "dropped"
        self.metrics.push_sent.inc()
        return "sent"

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
