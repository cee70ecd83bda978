"""The driver's exceptions mapped to the store's own (app.core.errors): nothing above the store
catches, or needs to know, an exception of SQLAlchemy, asyncpg or aiosqlite.

A unique key or foreign key refusing a write is `StoreConflict` (another writer got in first);
anything else the database or the network to it raises is `StoreUnavailable`. Each store class is
decorated with `@mapped`: every public coroutine method of it raises only those (and the
`ServiceError`s it raises itself). Its async context managers (a write transaction handed to the
lobby) map with `translated()` around the block, commit included.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator
from typing import ParamSpec, TypeVar

import asyncpg
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from app.core.errors import StoreConflict, StoreError, StoreUnavailable

# What the database (or the network to it) raises through SQLAlchemy or asyncpg used directly.
DRIVER_ERRORS: tuple[type[Exception], ...] = (
    SQLAlchemyError,
    OSError,
    TimeoutError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
)
# The store's errors and the driver's: what a store's own task catches when the database is away.
FAILURES: tuple[type[Exception], ...] = (StoreError, *DRIVER_ERRORS)
CONFLICTS: tuple[type[Exception], ...] = (IntegrityError, asyncpg.IntegrityConstraintViolationError)

P = ParamSpec("P")
T = TypeVar("T")
C = TypeVar("C", bound=type)


def store_error(exc: BaseException) -> StoreError:
    """The store's error for a driver's exception."""
    if isinstance(exc, CONFLICTS):
        return StoreConflict(_short(exc))
    return StoreUnavailable(_short(exc))


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:300]


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Around a block of driver calls: their exceptions leave as the store's."""
    try:
        yield
    except DRIVER_ERRORS as exc:
        raise store_error(exc) from exc


_WRAPPED: set[object] = set()  # the methods `mapped` made, so that a subclass's pass skips them


def _mapping(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except DRIVER_ERRORS as exc:
            raise store_error(exc) from exc

    _WRAPPED.add(call)
    return call


def mapped(cls: C) -> C:
    """Every public coroutine method of `cls` (its own and inherited ones) raises the store's
    errors, never the driver's."""
    for name in dir(cls):
        method = inspect.getattr_static(cls, name)
        if (
            not name.startswith("_")
            and inspect.isfunction(method)
            and inspect.iscoroutinefunction(method)
            and method not in _WRAPPED
        ):
            setattr(cls, name, _mapping(method))
    return cls
