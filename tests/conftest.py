"""Shared test helpers.

Tests that need an outside service (Postgres, Chromium) call `require_service`: where the service is
absent they skip with a clear reason, except under CI=true, where an absent service is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests import shared_tls, zygote

shared_tls.share()


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def require_service(available: bool, reason: str) -> None:
    """Skip (or fail under CI=true) when a service a test needs is absent."""
    if available:
        return
    if in_ci():
        pytest.fail(f"CI=true and a required service is absent: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session", autouse=True)
def _warm_start_helper() -> Iterator[None]:
    """The helper that forks the test servers (tests/zygote.py) ends with the test run."""
    yield
    zygote.close()
