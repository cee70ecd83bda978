"""The messages of Web Push: a browser's subscription as the page sends it (the shape of the
browser's `PushSubscription.toJSON()`), what the page asks first (is push offered here, and the
server's public key), and the payload a push carries to the service worker (encrypted by
RFC 8291: only that browser reads it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

B64URL = r"^[A-Za-z0-9_-]+=*$"

# What a push says: your turn, the game ended, a stand-in took your seat.
PushKind = Literal["your_turn", "ended", "stand_in"]


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="ignore")

    # The browser's P-256 public key (65 bytes) and its auth secret (16 bytes), base64url.
    p256dh: str = Field(min_length=80, max_length=100, pattern=B64URL)
    auth: str = Field(min_length=16, max_length=32, pattern=B64URL)


class SubscriptionIn(BaseModel):
    """POST /api/me/push: this browser's subscription, as `PushSubscription.toJSON()` gives it
    (`expirationTime` and other fields are ignored)."""

    model_config = ConfigDict(extra="ignore")

    endpoint: str = Field(min_length=10, max_length=1024)
    keys: PushKeys


class UnsubscribeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(min_length=10, max_length=1024)


class PushInfo(BaseModel):
    """GET /api/push: whether this server sends pushes, and the key a browser subscribes with."""

    available: bool
    public_key: str | None = Field(
        description="The server's VAPID public key, base64url: `applicationServerKey`"
    )


class PushPayload(BaseModel):
    """What one push carries to the service worker, which shows it as a notification."""

    kind: PushKind
    table_id: str
    host: str | None = Field(description="the host's name: the table is '<host>'s table'")
    url: str = Field(description="the page a click on the notification opens")
    title: str
    body: str = Field(description="the notification's text, in English")
