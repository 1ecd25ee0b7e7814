"""One client's WebSocket: a bounded send queue drained by its own writer task.

A table never waits for a client: ``send`` only puts text in the queue. A client whose
queue is full cannot keep up; it is closed with code 4000 (``too_slow``) and may reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from aiohttp import web

log = logging.getLogger("baccarat.server")

CLOSE_TOO_SLOW = 4000
CLOSE_LOGGED_OUT = 4001
CLOSE_GOING_AWAY = 1001
DEFAULT_QUEUE = 512
"""Messages a client may have waiting before it counts as too slow."""
COMMAND_RATE = 50.0
"""Commands per second a client may send over time (squeeze moves are coalesced instead)."""
BURST_SECONDS = 2.0
"""A client may send this many seconds' worth of commands at once."""


class Connection:
    """A logged-in client's socket and what it is subscribed to."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        request: web.Request,
        user_id: int,
        *,
        queue_limit: int = DEFAULT_QUEUE,
        on_drop: Callable[[Connection, str], None] | None = None,
        command_rate: float = COMMAND_RATE,
    ) -> None:
        self.ws = ws
        self.request = request
        self.user_id = user_id
        self.watching: str | None = None
        self.token: str | None = None
        self.lobby = False
        self.closed = False
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_limit)
        self._on_drop = on_drop
        self._writer: asyncio.Task[None] | None = None
        self._rate = command_rate
        self._tokens = command_rate * BURST_SECONDS
        self._refilled: float | None = None

    def allow(self, now: float) -> bool:
        """Take one command from the client's budget (a token bucket); False when spent."""
        if self._refilled is not None:
            self._tokens = min(
                self._rate * BURST_SECONDS, self._tokens + (now - self._refilled) * self._rate
            )
        self._refilled = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def start(self) -> None:
        """Start the writer task."""
        self._writer = asyncio.create_task(self._write_loop(), name=f"writer-{self.user_id}")

    def send(self, text: str) -> None:
        """Queue one encoded message; a full queue drops the client (never waits)."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop(CLOSE_TOO_SLOW, "too_slow")

    def drop(self, code: int, reason: str) -> None:
        """Close the socket in the background without waiting for the client."""
        if self.closed:
            return
        self.closed = True
        if self._on_drop is not None:
            self._on_drop(self, reason)
        if self._writer is not None:
            self._writer.cancel()
        task = asyncio.create_task(self._close(code, reason))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)

    async def _close(self, code: int, reason: str) -> None:
        try:
            await asyncio.wait_for(self.ws.close(code=code, message=reason.encode()), 1.0)
        except (TimeoutError, ConnectionError, RuntimeError):
            pass
        finally:
            # A client that reads nothing never answers the close frame: cut the transport.
            transport = self.request.transport
            if transport is not None and not transport.is_closing():
                transport.abort()

    async def finish(self) -> None:
        """Send what is queued (bounded wait), then stop the writer."""
        if self._writer is None or self.closed:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._writer), 1.0)
        self._writer.cancel()

    async def _write_loop(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if text is None:
                    return
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            self.drop(CLOSE_GOING_AWAY, "gone")


_BACKGROUND: set[asyncio.Task[None]] = set()
