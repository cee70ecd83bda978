"""Finished games as published documents: a record or a replay is computed once per process,
kept serialised in memory (bounded, least recently used out first) and served with
`Cache-Control: public, max-age=..., immutable` and an `ETag` (`304` to `If-None-Match`).

A finished game never changes, so its documents never do: recomputing the replay of a long game
costs a third of a CPU-second and megabytes of JSON, which one address asking four at a time
would otherwise turn into a lever on every table of the process. Requests for a document being
computed wait for that one computation. The ETag is a hash of the bytes: every process computes the
same bytes for the same game, so a browser's copy stays valid whichever replica answers. A client
that accepts gzip gets the document compressed once, when it was made (JSON shrinks tenfold).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response

# A year: the documents of a finished game never change (their URL names the game).
CACHE_CONTROL = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class Document:
    body: bytes
    etag: str
    gzipped: bytes

    @classmethod
    def of(cls, body: bytes) -> Document:
        return cls(
            body, f'"{hashlib.sha256(body).hexdigest()[:32]}"', gzip.compress(body, 6, mtime=0)
        )

    @property
    def size(self) -> int:
        return len(self.body) + len(self.gzipped)

    @property
    def gzip_etag(self) -> str:
        return self.etag[:-1] + '-gzip"'


class Published:
    """This process's finished-game documents, by key, within `limit` bytes."""

    def __init__(self, limit: int, on_computed: Callable[[str], None] | None = None) -> None:
        self.limit = limit
        self.on_computed = on_computed  # told the kind ("replay", "record") of each document made
        self.size = 0
        self.documents: OrderedDict[str, Document] = OrderedDict()
        self.pending: dict[str, asyncio.Task[Document]] = {}

    async def get(self, key: str, make: Callable[[], Awaitable[bytes]]) -> Document:
        """The document `key`, made by `make` once (its exceptions reach every waiter and
        nothing is kept)."""
        document = self.documents.get(key)
        if document is not None:
            self.documents.move_to_end(key)
            return document
        task = self.pending.get(key)
        if task is None:
            task = asyncio.create_task(self._make(key, make))
            self.pending[key] = task
        # Shielded: a client that goes away does not cancel the others' computation.
        return await asyncio.shield(task)

    async def _make(self, key: str, make: Callable[[], Awaitable[bytes]]) -> Document:
        try:
            body = await make()
            # Compressing megabytes: off the event loop too.
            document = await asyncio.to_thread(Document.of, body)
            if self.on_computed is not None:
                self.on_computed(key.partition(":")[0])
            self._keep(key, document)
            return document
        finally:
            self.pending.pop(key, None)

    def _keep(self, key: str, document: Document) -> None:
        if document.size > self.limit:
            return
        self.documents[key] = document
        self.size += document.size
        while self.size > self.limit:
            _, old = self.documents.popitem(last=False)
            self.size -= old.size


def respond(request: Request, document: Document) -> Response:
    """200 with the body (gzipped when the client accepts it), or 304 when the client's copy
    (If-None-Match) is this one."""
    zipped = "gzip" in request.headers.get("accept-encoding", "").lower()
    etag = document.gzip_etag if zipped else document.etag
    headers = {"Cache-Control": CACHE_CONTROL, "ETag": etag, "Vary": "Accept-Encoding"}
    if _matches(request.headers.get("if-none-match"), (document.etag, document.gzip_etag)):
        return Response(status_code=304, headers=headers)
    if zipped:
        headers["Content-Encoding"] = "gzip"
        return Response(document.gzipped, media_type="application/json", headers=headers)
    return Response(document.body, media_type="application/json", headers=headers)


def _matches(header: str | None, etags: tuple[str, ...]) -> bool:
    if not header:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or any(t.removeprefix("W/") in etags for t in tags)


def published(request: Request) -> Published:
    return request.app.state.published  # type: ignore[no-any-return]
