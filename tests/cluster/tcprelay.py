"""A TCP relay of a test's own in front of a service (Redis, PostgreSQL): ``cut`` drops its
connections and refuses new ones, as a network partition would, and ``mend`` ends it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from serving import free_port


class Relay:
    """A TCP relay to Redis for one node; ``cut`` drops its connections and refuses new ones."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._cuts = 0
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.mend()

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def mend(self) -> None:
        """Accept connections again."""
        self._call(self._listen())

    def cut(self) -> None:
        """Close every connection and stop listening."""
        self._call(self._cut())

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        self._cuts += 1
        if self._server is not None:
            self._server.close()
            self._server = None
        for w in list(self._writers):
            w.transport.abort()
        self._writers.clear()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        cuts = self._cuts
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        if self._server is None or self._cuts != cuts:
            # Cut while this connection was being made: it must not outlive the cut.
            writer.transport.abort()
            up_w.transport.abort()
            return
        self._writers.update((writer, up_w))

        async def copy(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            w.transport.abort()

        await asyncio.gather(copy(reader, up_w), copy(up_r, writer))
        self._writers.discard(writer)
        self._writers.discard(up_w)

    def close(self) -> None:
        """Stop the relay's thread and close its loop."""
        self.cut()
        self._call(self._cancel_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()

    async def _cancel_all(self) -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
