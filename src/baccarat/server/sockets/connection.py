"""One client's WebSocket: frames written at once while the client keeps up, else a bounded
queue drained by its own writer task.

A table never waits for a client. While nothing of the client's is waiting (its queue empty,
its transport's buffer empty), a message's frame goes straight to the transport: no task
switch, no copy, the same bytes the hub encoded for the whole table (``send_frame``). Else
``send`` only puts it in the queue. A client whose
queue is full cannot keep up; it is closed with code 4000 (``too_slow``) and may reconnect.
The socket's reader waits instead (``wait_for_room``): a client that sends a burst of commands
is read no faster than its answers are written, so its own burst cannot drop it.

A writer that fails for any reason other than a gone client logs it and closes the socket
with 1011: never a socket that stays open and answers nothing.

The connection remembers the answers to its last ``ANSWERS_KEPT`` commands: a command whose
``id`` was already answered is not run again; the first answer is sent again (``replay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import cast

from aiohttp import web

from baccarat.protocol.frames import Ack, Refusal
from baccarat.protocol.messages import ack
from baccarat.server.sockets.frames import PING, encode, payload, text_frame

log = logging.getLogger("baccarat.server")

CLOSE_TOO_SLOW = 4000
CLOSE_LOGGED_OUT = 4001
CLOSE_TABLE_MOVED = 4002
CLOSE_BANNED = 4003
CLOSE_GOING_AWAY = 1001
CLOSE_INTERNAL_ERROR = 1011
DEFAULT_QUEUE = 512
"""Messages a client may have waiting before it counts as too slow."""
COMMAND_RATE = 50.0
"""Commands per second a client may send over time (squeeze moves are coalesced instead)."""
BURST_SECONDS = 2.0
"""A client may send this many seconds' worth of commands at once."""
WRITE_HIGH = 64 * 1024
"""Bytes a transport may hold unsent before the writer waits for the client to read."""
DRAIN_POLL = 0.01
"""Seconds between two looks at a slow client's transport (only while it is behind)."""
READ_AHEAD = 16
"""Commands read in a row without a turn of the loop in between, while none waits to be
written (a burst of peel moves on one socket must not hold the other tables up)."""
ANSWERS_KEPT = 32
"""Answered command ids a connection remembers, so a retried command runs once."""
_PLAIN_ACK = b""
"""Kept in place of an ack without fields: rebuilt from the id (most answers are these)."""


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
        self._queue: deque[str | bytes | None] | None = None
        """What waits for the writer, oldest first; None asks it to stop. Made when a first
        message has to wait (a client that keeps up never needs one)."""
        self._limit = queue_limit
        self._wakeup: asyncio.Future[None] | None = None
        """What the writer waits on while the queue is empty (a plain deque and one future a
        socket: an ``asyncio.Queue`` and ``Event`` held five deques each socket's life)."""
        self._transport: asyncio.Transport | None = None
        """Where frames are written directly; None when the socket compresses (then every
        message goes through aiohttp's writer)."""
        self._busy = False
        """The writer holds a message it has not finished writing: nothing may overtake it."""
        # The reader stops above the high mark and reads on once the writer is below the low.
        self._high = max(1, queue_limit // 2)
        self._low = queue_limit // 4
        self._full = False
        """The queue passed the high mark and has not drained to the low one yet."""
        self._room: asyncio.Future[None] | None = None
        """What the reader waits on while the queue is full."""
        self._on_drop = on_drop
        self._writer: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._answers: dict[str | int, bytes | None] = {}
        """Command id -> its answer's frame, or None while the command runs (oldest first)."""
        self._repeats: dict[str | int, int] = {}
        """Copies of a running command that wait for its answer."""
        self._corked: list[str | bytes] | None = None
        """What was sent since ``cork``: written in one go by ``uncork``."""
        self._rate = command_rate
        self._tokens = command_rate * BURST_SECONDS
        self._refilled: float | None = None
        self._read_ahead = 0
        self.heard = True
        """The client sent something (any frame) since the heartbeat's last look."""
        self._pinged = False

    def beat(self) -> None:
        """The heartbeat's look (``heartbeat.py``): a client heard from is left alone; a quiet
        one is pinged; one pinged at the last look and silent since is dropped. A client whose
        queue is full counts as heard: its frames wait unread until the writer has room (its
        pong among them), and one that reads nothing is dropped when the queue fills."""
        if self.closed:
            return
        if self.heard or self._full:
            self.heard = self._pinged = False
        elif self._pinged:
            self.drop(CLOSE_GOING_AWAY, "no_pong")
        else:
            self._pinged = True
            self.send_frame(PING)

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
        # uvloop's transports are not asyncio.Transport subclasses: ask for what is used.
        transport = self.request.transport
        if not self.ws.compress and hasattr(transport, "get_write_buffer_size"):
            self._transport = cast(asyncio.Transport, transport)
        self._writer = asyncio.create_task(self._write_loop(), name=f"writer-{self.user_id}")

    def send(self, text: str) -> None:
        """Send one encoded message (written now, or queued); a full queue drops the client."""
        self._put(text)

    def send_frame(self, frame: bytes) -> None:
        """Send one message already made into a text frame (``frames.encode``)."""
        self._put(frame)

    def cork(self) -> None:
        """Hold what is sent until ``uncork``, which writes it all at once (a table's step
        sends a client several frames: one write, one system call, instead of one each)."""
        if self._corked is None:
            self._corked = []

    def uncork(self, joined: Joined | None = None) -> None:
        """Write what was held since ``cork``, in order. Clients of one table mostly hold
        the same frames: ``joined`` keeps each run of frames made one write, so a step's
        write is built once for all of them (``Hub.corked``)."""
        items, self._corked = self._corked, None
        if not items:
            return
        if len(items) > 1 and self._writable():
            data = _join(items, {} if joined is None else joined)
            if data is not None:
                assert self._transport is not None
                self._transport.write(data)
                return
        for item in items:
            self._put(item)

    def _writable(self) -> bool:
        # Written straight to the transport: nothing of this client's waits to keep order with.
        transport = self._transport
        return (
            not self.closed
            and transport is not None
            and not self._busy
            and not self._queue
            and not transport.is_closing()
            and not transport.get_write_buffer_size()
        )

    def _put(self, item: str | bytes) -> None:
        if self.closed:
            return
        if self._corked is not None:
            self._corked.append(item)
            return
        if not self._write_through(item):
            self._enqueue(item)

    def _write_through(self, item: str | bytes) -> bool:
        """Write ``item`` straight to the transport if nothing of this client's waits; whether
        that settled it (written, or the client dropped for a closing transport)."""
        transport = self._transport
        if transport is None or self._busy or self._queue:
            return False
        if transport.is_closing():
            self.drop(CLOSE_GOING_AWAY, "gone")
            return True
        frame = item if isinstance(item, bytes) else _frame_or_none(item)
        if frame is None or transport.get_write_buffer_size():
            return False
        # Nothing of this client's is waiting: nothing to keep in order behind.
        transport.write(frame)
        return True

    def _enqueue(self, item: str | bytes) -> None:
        # For the writer task; a client too slow to keep up is dropped, not waited for.
        queue = self._backlog()
        if len(queue) >= self._limit:
            self.drop(CLOSE_TOO_SLOW, "too_slow")
            return
        queue.append(item)
        self._wake_writer()
        if len(queue) >= self._high:
            self._full = True

    def _backlog(self) -> deque[str | bytes | None]:
        if self._queue is None:
            self._queue = deque()
        return self._queue

    def _wake_writer(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def _make_room(self) -> None:
        self._full = False
        room, self._room = self._room, None
        if room is not None and not room.done():
            room.set_result(None)

    async def wait_for_room(self) -> None:
        """Let the writer run; while the queue is over half full, wait until it drains.

        With nothing queued (the answers went straight to the socket) the next command is
        read at once, up to ``READ_AHEAD`` in a row: then the rest of the loop gets a turn."""
        self._read_ahead += 1
        if not self._queue and self._read_ahead < READ_AHEAD:
            return
        self._read_ahead = 0
        await asyncio.sleep(0)
        if self._full:
            if self._room is None:
                self._room = asyncio.get_running_loop().create_future()
            await self._room

    def replay(self, msg_id: str | int) -> bool:
        """Whether a command with this id was seen before (then it must not run again).

        Its answer is sent again now, or, while the first copy still runs, once it comes.
        Otherwise the id is remembered as running and ``answer`` will record its answer.
        """
        if msg_id in self._answers:
            frame = self._answers[msg_id]
            if frame is None:
                self._repeats[msg_id] = self._repeats.get(msg_id, 0) + 1
            else:
                self.send_frame(frame or encode(ack(msg_id)))
            return True
        self._answers[msg_id] = None
        while len(self._answers) > ANSWERS_KEPT:
            oldest = next(iter(self._answers))
            del self._answers[oldest]
            self._repeats.pop(oldest, None)
        return False

    def answer(self, message: Ack | Refusal) -> None:
        """Send the answer (ack or error) to a command, and remember it if the command ran."""
        frame = encode(message)
        msg_id = message.get("id")
        copies = 1
        if msg_id is not None and msg_id in self._answers and self._answers[msg_id] is None:
            plain = message == ack(msg_id)
            self._answers[msg_id] = _PLAIN_ACK if plain else frame
            copies += self._repeats.pop(msg_id, 0)
        for _ in range(copies):
            self.send_frame(frame)

    def drop(self, code: int, reason: str) -> None:
        """Close the socket in the background without waiting for the client."""
        if self.closed:
            return
        self.closed = True
        self._make_room()
        if self._on_drop is not None:
            self._on_drop(self, reason)
        if self._writer is not None:
            self._writer.cancel()
        task = asyncio.create_task(self._close(code, reason))
        self._closing = task
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)

    async def wait_closed(self) -> None:
        """Wait until the close that ``drop`` started is done (its code sent first)."""
        if self._closing is not None:
            await asyncio.shield(self._closing)

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
        queue = self._backlog()
        if len(queue) < self._limit:
            queue.append(None)
            self._wake_writer()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._writer), 1.0)
        self._writer.cancel()

    async def _write_loop(self) -> None:
        try:
            while True:
                queue = self._queue
                if not queue:
                    self._wakeup = asyncio.get_running_loop().create_future()
                    try:
                        await self._wakeup
                    finally:
                        self._wakeup = None
                    continue
                item = queue.popleft()
                if item is None:
                    return
                if self._full and len(queue) <= self._low:
                    self._make_room()
                self._busy = True
                try:
                    await self._write(item)
                finally:
                    self._busy = False
        except (ConnectionError, RuntimeError):
            self.drop(CLOSE_GOING_AWAY, "gone")
        except Exception:
            # Never a silent death: the socket would stay open and answer nothing.
            log.exception("socket writer failed; closing", extra={"user_id": self.user_id})
            self.drop(CLOSE_INTERNAL_ERROR, "internal_error")

    async def _write(self, item: str | bytes) -> None:
        transport = self._transport
        if transport is None:
            await self.ws.send_str(item if isinstance(item, str) else payload(item).decode())
            return
        if transport.is_closing():
            raise ConnectionResetError("the client is gone")
        transport.write(item if isinstance(item, bytes) else _frame(item))
        # A client that reads slowly: let it catch up before writing more (it may be dropped
        # meanwhile, when its queue fills).
        while transport.get_write_buffer_size() > WRITE_HIGH and not transport.is_closing():
            await asyncio.sleep(DRAIN_POLL)


def _frame(text: str) -> bytes:
    return text_frame(text.encode("utf-8"))


Joined = dict[tuple[str | bytes, ...], bytes | None]
"""Runs of held frames, each as the one write it makes (None: a text that cannot be sent)."""


def _join(items: list[str | bytes], joined: Joined) -> bytes | None:
    """``items`` as one write, from ``joined`` when another client held the same ones (the
    same objects: a key compares by identity first, and a frame's hash is kept)."""
    key = tuple(items)
    if key in joined:
        return joined[key]
    frames: list[bytes] = []
    data: bytes | None = None
    for item in items:
        frame = item if isinstance(item, bytes) else _frame_or_none(item)
        if frame is None:
            break
        frames.append(frame)
    else:
        data = b"".join(frames)
    joined[key] = data
    return data


def _frame_or_none(text: str) -> bytes | None:
    # Text that cannot be sent goes to the writer, which fails on it and closes the socket.
    try:
        return _frame(text)
    except UnicodeEncodeError:
        return None


_BACKGROUND: set[asyncio.Task[None]] = set()
