"""A TCP relay in front of a test's Postgres that passes every byte at once but the end of the
server's side of a connection some time late, as a proxy, a container network or a loaded host
can: when Postgres ends a connection (a shutdown sends each idle one an error, then closes it),
the client reads the error at once and the end of the stream only `delay` seconds later. The
moment in which a pooled connection has been ended but does not yet look closed, short on an
idle loopback, is then long enough for a test to meet it every time.

It runs its own event loop in a thread, so that the test's own work never holds up a byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.ports import free_port


class LateEnd:
    def __init__(self, upstream_port: int, delay: float) -> None:
        self.upstream_port = upstream_port
        self.delay = delay
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="late-end", daemon=True)
        self._server: asyncio.Server | None = None
        self._relays: set[asyncio.Task[None]] = set()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop.close()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", self.port)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._relays):
            task.cancel()
        await asyncio.gather(*self._relays, return_exceptions=True)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._relays.add(task)
        try:
            await self._relay(reader, writer)
        finally:
            self._relays.discard(task)
            writer.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            return  # the database is away: the client's connection ends at once
        try:
            await asyncio.gather(
                self._pipe(reader, up_writer, late=False),
                self._pipe(up_reader, writer, late=True),
            )
        finally:
            up_writer.close()

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, late: bool
    ) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        if late:
            await asyncio.sleep(self.delay)
        sink.close()
