"""The settings of Web Push, notifications that reach a closed tab (a section of
app.core.config.Settings)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings

# The push services of the browsers people use (Chrome and Edge, Firefox, Safari, Windows): a
# subscription's endpoint must be on one of them (a host, or a subdomain of it).
PUSH_SERVICES = (
    "fcm.googleapis.com,updates.push.services.mozilla.com,push.services.mozilla.com,"
    "push.apple.com,notify.windows.com"
)


class PushSettings(BaseSettings):
    """Web Push: "your turn" to a closed tab."""

    push_enabled: bool = Field(
        default=True,
        description="Offer players notifications that reach a closed tab (Web Push). `false`: "
        "the page says that alerts need the tab open, and nothing is sent.",
    )
    push_vapid_private_key: str | None = Field(
        default=None,
        description="The server's VAPID private key (P-256), base64url of its 32 raw bytes (or "
        "of its DER form): what push services know this server by. Unset: a key pair is made at "
        "the first start and stored in the database, shared by every process. Changing it "
        "voids every subscription (players turn alerts on again).",
    )
    push_contact: str | None = Field(
        default=None,
        description="Who push services may write to about this server (the VAPID `sub`): a "
        "`mailto:` address or an `https://` URL. Unset: PUBLIC_URL when it is https, else "
        "`mailto:admin@localhost` (which Apple's push service refuses).",
    )
    push_every_minutes: float = Field(
        default=10,
        ge=0,
        description="At most one push per table per player within this many minutes (a burst "
        "of turns makes one notification). 0: no limit.",
    )
    push_retries: int = Field(
        default=4,
        ge=0,
        le=20,
        description="How many times a push the push service did not take (no answer, 429, 5xx) "
        "is tried again, after PUSH_RETRY_SECONDS, then twice as long each time. 0: never.",
    )
    push_retry_seconds: float = Field(
        default=30,
        gt=0,
        description="The wait before the first retry of a push, in seconds (doubled after each).",
    )
    push_timeout_seconds: float = Field(
        default=10,
        gt=0,
        description="How long one request to a push service may take, in seconds.",
    )
    push_ttl_seconds: int = Field(
        default=86_400,
        ge=0,
        description="How long a push service keeps a push for a device that is off, in seconds.",
    )
    push_subscriptions_per_player: int = Field(
        default=10,
        ge=1,
        description="Devices a player may get alerts on; a new one beyond this replaces the "
        "oldest.",
    )
    push_services: str = Field(
        default=PUSH_SERVICES,
        description="The push services a browser's subscription may point to (hosts, a "
        "subdomain of one counts), comma-separated; an endpoint must be https on one of them, "
        "so that a client cannot make the server post anywhere else.",
    )
    push_test_endpoints: bool = Field(
        default=False,
        description="For tests only: also accept subscriptions whose endpoint is "
        "`http://127.0.0.1:<port>/...` (a test's own push service).",
    )
