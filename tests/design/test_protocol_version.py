"""The protocol's version: sent in every `hello`, pinned here, and the newest entry of
docs/protocol-changelog.md, so that raising it without saying what it added (or adding to the
changelog without raising it) fails."""

from __future__ import annotations

import json
import re

from app.core.messages import PROTOCOL_VERSION, HelloOut
from tests.server.harness import REPO


def test_the_protocol_is_at_version_3() -> None:
    # Raise this with PROTOCOL_VERSION and a new section of docs/protocol-changelog.md.
    assert PROTOCOL_VERSION == 3


def test_hello_carries_the_protocol_version() -> None:
    hello = json.loads(
        HelloOut(table_id="Zk3o0mWJ3yVbQh4n", seat=None, name=None).model_dump_json()
    )
    assert hello == {
        "type": "hello",
        "table_id": "Zk3o0mWJ3yVbQh4n",
        "seat": None,
        "name": None,
        "protocol": PROTOCOL_VERSION,
    }


def test_the_changelog_tops_with_this_version() -> None:
    text = (REPO / "docs" / "protocol-changelog.md").read_text(encoding="utf-8")
    versions = [int(v) for v in re.findall(r"^## Version (\d+)\b", text, flags=re.MULTILINE)]
    assert versions == list(range(PROTOCOL_VERSION, 0, -1)), versions


def test_the_protocol_page_shows_it_in_hello() -> None:
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert f'"protocol": {PROTOCOL_VERSION}}}' in text
    assert "protocol-changelog.md" in text
