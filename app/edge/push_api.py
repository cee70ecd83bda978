"""The Web Push routes: whether this server sends notifications to a closed tab and the key a
browser subscribes with (`GET /api/push`), and the signed-in player's subscription on this
browser, added (`POST /api/me/push`) or removed (`DELETE /api/me/push`). The player is the
browser's cookie player (app.edge.players_api), whose signing out there ends them; the endpoint
is checked by app.table.push."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from app.core.push_schemas import PushInfo, SubscriptionIn, UnsubscribeIn
from app.edge.api import ERRORS
from app.edge.players_api import PlayersDep, Secret
from app.store.push_ports import Subscription
from app.table.push import Pusher

router = APIRouter(prefix="/api", responses=ERRORS, tags=["push"])


async def get_pusher(request: Request) -> Pusher:
    return request.app.state.hub.push  # type: ignore[no-any-return]


PusherDep = Annotated[Pusher, Depends(get_pusher)]


@router.get("/push", response_model=PushInfo)
async def push_info(pusher: PusherDep) -> PushInfo:
    """Whether this server sends notifications that reach a closed tab (false: alerts need the
    tab open), and its VAPID public key (`applicationServerKey` of `pushManager.subscribe`)."""
    keys = pusher.keys if pusher.available else None
    return PushInfo(available=keys is not None, public_key=keys.public_key if keys else None)


@router.post("/me/push", status_code=204)
async def subscribe(
    body: SubscriptionIn, players: PlayersDep, pusher: PusherDep, secret: Secret = None
) -> Response:
    """Notifications on this browser for the signed-in player (its `PushSubscription`).
    Refused `invalid_request` when the server sends none or the endpoint is not a known push
    service (https on one of PUSH_SERVICES); `not_signed_in` without a player."""
    player = await players.signed_in(secret)
    assert secret is not None  # signed in
    sub = Subscription(body.endpoint, body.keys.p256dh, body.keys.auth)
    await pusher.subscribe(player.id, secret, sub)
    return Response(status_code=204)


@router.delete("/me/push", status_code=204)
async def unsubscribe(
    body: UnsubscribeIn, players: PlayersDep, pusher: PusherDep, secret: Secret = None
) -> Response:
    """No more notifications on this browser (its subscription's endpoint); 204 also when it
    was not subscribed."""
    player = await players.signed_in(secret)
    await pusher.unsubscribe(player.id, body.endpoint)
    return Response(status_code=204)
