"""The tests' servers never get a port that a browser refuses to load a page from."""

from __future__ import annotations

import itertools

import pytest

from tests import ports


def test_free_port_skips_the_ports_browsers_block(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first worker's block holds 10080, the Fetch standard's last bad port: start the
    # block's walk right on it.
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setattr(ports, "_next", itertools.count(10080 - ports.BASE))
    assert ports.free_port() != 10080
    assert 10080 in ports.BAD_PORTS and 6000 in ports.BAD_PORTS
