"""Where the server may post a push: a subscription's endpoint is a client's input, so it must be
https on a known push service (a host of PUSH_SERVICES or a subdomain of one, port 443, no
credentials), never an internal address; http://127.0.0.1 only with PUSH_TEST_ENDPOINTS (tests)."""

from __future__ import annotations

import pytest

from app.core.config import Settings
from app.table.push_send import allowed_endpoint

ALLOWED = [
    "https://fcm.googleapis.com/fcm/send/abc:def",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
    "https://web.push.apple.com/QGx1",
    "https://wns2-par02p.notify.windows.com/w/?token=x",
    "https://FCM.googleapis.com:443/fcm/send/x",
]
REFUSED = [
    "http://fcm.googleapis.com/fcm/send/x",  # not https
    "https://fcm.googleapis.com.evil.example/x",  # a look-alike host
    "https://evil.example/fcm.googleapis.com",
    "https://notfcm.googleapis.com/x",  # not a subdomain
    "https://user:pw@fcm.googleapis.com/x",
    "https://fcm.googleapis.com:8443/x",
    "https://127.0.0.1/x",
    "https://10.0.0.1/x",
    "https://[::1]/x",
    "https://localhost/x",
    "http://127.0.0.1:8000/push",  # a test's push service, without PUSH_TEST_ENDPOINTS
    "file:///etc/passwd",
    "https://fcm.googleapis.com:99999/x",  # not a port
    "not a url",
]


@pytest.mark.parametrize("endpoint", ALLOWED)
def test_a_push_service_is_allowed(endpoint: str) -> None:
    assert allowed_endpoint(endpoint, Settings())


@pytest.mark.parametrize("endpoint", REFUSED)
def test_anything_else_is_refused(endpoint: str) -> None:
    assert not allowed_endpoint(endpoint, Settings())


def test_the_tests_push_service_only_with_the_test_setting() -> None:
    testing = Settings(push_test_endpoints=True)
    assert allowed_endpoint("http://127.0.0.1:8000/push/ann", testing)
    assert not allowed_endpoint("http://localhost:8000/push/ann", testing)
    assert not allowed_endpoint("http://10.0.0.1:8000/push/ann", testing)
    assert not allowed_endpoint("https://evil.example/x", testing)
