"""The store raises only its own errors: every coroutine method of every store the app is wired
with (app.store.stores, on Postgres and on SQLite), and of the transactions they hand out, maps
the driver's exceptions (app.store.errors `@mapped`). A new store method cannot forget it."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator

import pytest

from app.core.config import Settings
from app.store.errors import _WRAPPED
from app.store.stores import open_stores

URLS = {
    "sqlite": "sqlite+aiosqlite:///unused.sqlite3",
    # Nothing connects until a store is used: no database is needed here.
    "postgres": "postgresql+asyncpg://nobody@127.0.0.1:1/none",
}


def _handed_up(url: str) -> Iterator[type]:
    stores = open_stores(Settings(database_url=url))
    for field in dataclasses.fields(stores):
        if field.name == "close":
            continue
        store = getattr(stores, field.name)
        yield type(store)
        write_class = getattr(store, "write_class", None)
        if write_class is not None:  # the transactions a store's write() hands out
            yield write_class


@pytest.mark.parametrize("database", sorted(URLS))
def test_every_store_method_raises_only_the_stores_errors(database: str) -> None:
    unmapped = [
        f"{kind.__module__}.{kind.__qualname__}.{name}"
        for kind in _handed_up(URLS[database])
        for name, method in inspect.getmembers(kind, inspect.iscoroutinefunction)
        if not name.startswith("_") and method not in _WRAPPED
    ]
    assert not unmapped, f"not @mapped (app.store.errors): {unmapped}"
