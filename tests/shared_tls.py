"""One TLS context for every httpx client the tests make.

httpx builds a new SSL context for each client it makes (reading certifi's bundle of
certificate authorities: 40 to 120 ms of CPU), and the tests make thousands of clients, nearly all
for plain http://127.0.0.1 (a `httpx.get` while a server starts, a client per queue call): that
was a quarter of the wall time of some server test files. `share` makes httpx build the default
context once per test process and hand the same one to every client that asks for the default
(verify=True, no client certificate); anything else is built as before. Nothing changes in what
a client checks: it is the same context httpx would make.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx._transports.default as _transports
from httpx._config import create_ssl_context as _build


@functools.cache
def _default(trust_env: bool) -> ssl.SSLContext:
    return _build(verify=True, cert=None, trust_env=trust_env)


def _context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is True and cert is None:
        return _default(trust_env)
    return _build(verify=verify, cert=cert, trust_env=trust_env)


def share() -> None:
    """From now on, in this process, httpx clients share the default context."""
    # httpx's transports call the name they imported from httpx._config.
    _transports.create_ssl_context = _context  # type: ignore[attr-defined]
