"""docs/rules.md writes out every ruling R1-R25 (a reader needs no other file), in order, and
each has its named tests in tests/engine/test_rulings.py (`test_r<N>_...`)."""

from __future__ import annotations

import re

from tests.server.harness import REPO


def test_every_ruling_is_written_out_in_order() -> None:
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text[
        text.index("## The rulings R1–R25") : text.index("## Rulings this project added")
    ]
    numbers = [int(n) for n in re.findall(r"^- \*\*R(\d+)\. ", section, flags=re.MULTILINE)]
    assert numbers == list(range(1, 26))
    r24 = section[section.index("**R24.") : section.index("**R25.")]
    assert "a doubled Ghost may copy it" in " ".join(r24.split())


def test_every_ruling_has_its_named_tests() -> None:
    tests = (REPO / "tests" / "engine" / "test_rulings.py").read_text(encoding="utf-8")
    named = {int(n) for n in re.findall(r"^def test_r(\d+)_", tests, flags=re.MULTILINE)}
    assert named == set(range(1, 26))
