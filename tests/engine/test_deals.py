"""The seeds the end-to-end tests are dealt from (tests/deals.py) still give each test what it
needs: a change of the engine's shuffle, of a bot or of a test's script fails here first, by
name, instead of as a browser test that waits in vain (`python -m tests.deals` finds new ones)."""

from __future__ import annotations

import pytest

from tests import deals


@pytest.mark.parametrize("name", sorted(deals.NEEDS))
def test_each_tests_seed_deals_what_the_test_needs(name: str) -> None:
    seed = getattr(deals, name)
    assert deals.NEEDS[name](seed), f"{name} = {seed} no longer fits: python -m tests.deals {name}"


@pytest.mark.parametrize("name", sorted(deals.NEEDS))
def test_each_seed_is_the_first_that_fits(name: str) -> None:
    # So that `python -m tests.deals` finds the same seeds again from the same scripts.
    assert deals.first(deals.NEEDS[name]) == [getattr(deals, name)]
