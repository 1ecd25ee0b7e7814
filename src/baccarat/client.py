"""An asyncio client of the protocol (docs/protocol.md), on aiohttp's WebSocket client.

    token = await baccarat.api.login("http://127.0.0.1:8000", "alice", "secret")
    async with await Client.connect("http://127.0.0.1:8000", token) as client:
        await client.watch("standard-1")
        await client.sit("standard-1", 3)
        async for message in client:
            ...

``send`` sends any command of ``baccarat.protocol.registry`` (written by its entry) and
returns its ``ack`` or raises ``CommandError`` with the server's code, message and details
(``no_answer`` after ``answer_timeout`` seconds); common ones have a method (``sit``, ...).
What the server sends is typed by ``baccarat.protocol.frames``. The client keeps the
watched table's ``view`` up to date from events alone (``baccarat.table.reducer``): a
snapshot only when it watches or sits, when asked with ``resync``, or after a gap in
``seq``. It keeps the lobby's tables up to date too.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import cast

import aiohttp

from baccarat.bets import Area
from baccarat.errors import BaccaratError
from baccarat.protocol.encode import encode
from baccarat.protocol.frames import (
    Ack,
    Event,
    Hello,
    LobbyTable,
    Refusal,
    Room,
    ServerMessage,
    Snapshot,
)
from baccarat.protocol.ids import TableId
from baccarat.protocol.requests import (
    Leave,
    LobbySubscribe,
    LobbyUnsubscribe,
    Ping,
    QueueUp,
    Request,
    Resync,
    TakeSeat,
    Watch,
)
from baccarat.rules import Hand
from baccarat.table.commands import (
    ClearBets,
    Command,
    Double,
    Emote,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Say,
    SetAutoOpen,
    SqueezeProgress,
    StandUp,
    Undo,
    Urge,
)
from baccarat.table.reducer import View, apply
from baccarat.table.squeeze import Corner

PROTOCOL_VERSION = 1


class CommandError(BaccaratError):
    """The server refused a command (``code`` and ``message`` are the server's)."""


def ws_url(base_url: str) -> str:
    """The WebSocket URL of a server given by its http(s) base URL."""
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        return "wss://" + base[len("https://") :] + "/ws"
    if base.startswith("http://"):
        return "ws://" + base[len("http://") :] + "/ws"
    return base if base.endswith("/ws") else base + "/ws"


CONNECT_TIMEOUT = 10.0
"""How long opening a socket (up to the server's hello) may take."""
ANSWER_TIMEOUT = 30.0
"""How long a command may wait for the server's answer (then ``no_answer``)."""


class Client:
    """One WebSocket connection, with commands, events and the watched table's view."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Ack | Refusal]] = {}
        self._inbox: asyncio.Queue[ServerMessage | None] = asyncio.Queue()
        self.hello: Hello = cast(Hello, {})
        self.frames: list[ServerMessage] = []
        """Every message received, in order (kept when ``record`` is true)."""
        self.record = False
        self.table_id: str | None = None
        self.view: View | None = None
        self.seq = 0
        self.lobby_tables: dict[str, LobbyTable] = {}
        self.rooms: list[Room] = []
        self.close_code: int | None = None
        self._resyncing = False
        self.snapshots = 0
        """Snapshots received (joining, resyncs and gaps included)."""
        self.resyncs = 0
        """Snapshots asked for because of a gap in ``seq``."""
        self._reader: asyncio.Task[None] | None = None
        self.on_message: Callable[[ServerMessage], None] | None = None
        self.answer_timeout = ANSWER_TIMEOUT  # a command's, and a watched table's snapshot

    @classmethod
    async def connect(
        cls,
        base_url: str,
        token: str,
        *,
        origin: str | None = None,
        record: bool = False,
        heartbeat: float = 30.0,
        timeout: float = CONNECT_TIMEOUT,
    ) -> Client:
        """Open the socket with a bearer token and wait for the server's hello (within
        ``timeout`` seconds); then ping every ``heartbeat`` seconds, closing the socket if a
        pong takes more than half as long."""
        session = aiohttp.ClientSession()
        headers = {"Authorization": f"Bearer {token}"}
        if origin is not None:
            headers["Origin"] = origin
        try:
            async with asyncio.timeout(timeout):
                ws = await session.ws_connect(
                    ws_url(base_url), headers=headers, heartbeat=heartbeat
                )
        except BaseException:
            await session.close()
            raise
        client = cls(session, ws)
        client.record = record
        client._reader = asyncio.create_task(client._read_loop())
        try:
            async with asyncio.timeout(timeout):
                first = await client._inbox.get()
        except TimeoutError:
            await client.close()
            raise
        if first is None or first["type"] != "hello":
            await client.close()
            raise CommandError("no_hello", "The server did not say hello.")
        if first["v"] != PROTOCOL_VERSION:
            await client.close()
            raise CommandError("bad_version", f"The server speaks protocol v{first['v']}.")
        client.hello = first
        return client

    @property
    def user_id(self) -> int:
        """This connection's user id (from the hello)."""
        return int(self.hello["user"]["id"])

    @property
    def closed(self) -> bool:
        """Whether the socket is closed."""
        return self._ws.closed

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the socket and the HTTP session."""
        with contextlib.suppress(Exception):
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._reader, 2.0)
        await self._session.close()

    # -- sending ----------------------------------------------------------------------

    async def send_text(self, text: str) -> None:
        """Send a raw text frame (for tests of malformed input)."""
        await self._ws.send_str(text)

    async def send(self, command: Command | Request) -> Ack:
        """Send one command; return its ack, or raise ``CommandError``."""
        msg_id = next(self._ids)
        fut: asyncio.Future[Ack | Refusal] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        try:
            await self._ws.send_str(encode(command, msg_id))
            async with asyncio.timeout(self.answer_timeout):
                answer = await fut
        except TimeoutError:
            raise CommandError("no_answer", "The server did not answer in time.") from None
        finally:
            self._pending.pop(msg_id, None)
        if answer["type"] == "error":
            err = CommandError(answer["code"], answer["message"])
            # The refused rule's figures (``area`` and ``limit`` of ``over_limit``, ...).
            err.details = dict(answer.get("details") or {})
            raise err
        return answer

    async def ping(self) -> Ack:
        """Ask the server's clock (the ack's ``server_time``)."""
        return await self.send(Ping())

    async def lobby_subscribe(
        self, room: str | None = None, page: int = 0, road: str | None = None
    ) -> Ack:
        """Ask for a page of the lobby now (a ``lobby`` message) and its changes after."""
        return await self.send(LobbySubscribe(room, page, road))

    async def lobby_unsubscribe(self) -> Ack:
        """Stop the lobby's changes."""
        return await self.send(LobbyUnsubscribe())

    async def leave(self) -> Ack:
        """Stop watching the table (a seat is kept)."""
        return await self.send(Leave())

    async def sit(self, table_id: str, seat: int) -> Ack:
        """Take ``seat`` (0 the dealer's) of a table; its snapshot follows the ack."""
        return await self.send(TakeSeat(TableId(table_id), seat))

    async def stand(self) -> Ack:
        """Leave one's seat."""
        return await self.send(StandUp(self.user_id))

    async def bet(self, area: Area, chip: int) -> Ack:
        """Place one chip on an area."""
        return await self.send(PlaceChip(self.user_id, area, chip))

    async def clear(self) -> Ack:
        """Take back all of one's bets while betting is open."""
        return await self.send(ClearBets(self.user_id))

    async def rebet(self) -> Ack:
        """Place last round's bets again, whole or refused whole (``CommandError``)."""
        return await self.send(Rebet(self.user_id))

    async def double(self) -> Ack:
        """Double every bet on one's slip, whole or refused whole."""
        return await self.send(Double(self.user_id))

    async def undo(self) -> Ack:
        """Take back one's last chip, or one's last rebet or double."""
        return await self.send(Undo(self.user_id))

    async def urge(self) -> Ack:
        """As the dealer, remind every bettor who has not bet yet."""
        return await self.send(Urge(self.user_id))

    async def squeeze(self, hand: Hand, progress: float, corner: Corner) -> Ack:
        """Peel the face-down card of ``hand`` one controls to ``progress`` (0 to 1)."""
        return await self.send(SqueezeProgress(self.user_id, hand, progress, corner))

    async def open(self, hand: Hand) -> Ack:
        """Turn over the face-down card of ``hand`` one controls."""
        return await self.send(OpenCard(self.user_id, hand))

    async def join_queue(self) -> Ack:
        """Line up for the dealer seat of the table one sits at or watches (上莊排隊)."""
        return await self.send(QueueUp())

    async def leave_queue(self) -> Ack:
        """Leave the dealer queue."""
        return await self.send(LeaveQueue(self.user_id))

    async def set_auto_open(self, on: bool) -> Ack:
        """Remember whether to open the cards one controls at once (自動開牌) instead of squeezing."""
        return await self.send(SetAutoOpen(self.user_id, on))

    async def say(self, text: str) -> Ack:
        """Send a chat message to the table one sits at."""
        return await self.send(Say(self.user_id, text))

    async def emote(self, name: str) -> Ack:
        """Send an emote (``clap``, ``laugh``, ...) to the table one sits at."""
        return await self.send(Emote(self.user_id, name))

    async def watch(self, table_id: str) -> View:
        """Watch a table; return its first snapshot's view (a refusal keeps the current one)."""
        before = self.view
        self.view = None
        try:
            await self.send(Watch(TableId(table_id)))
        except CommandError:
            self.view = before
            raise
        return await self.wait_view()

    async def resync(self) -> View:
        """Ask for a fresh snapshot of the watched table; return its view."""
        self.view = None
        await self.send(Resync())
        return await self.wait_view()

    async def wait_view(self) -> View:
        """Wait until a snapshot has arrived."""
        clock = asyncio.get_running_loop().time
        deadline = clock() + self.answer_timeout
        while self.view is None:
            if self.closed:
                raise CommandError("closed", "The connection closed.")
            if clock() > deadline:
                raise CommandError("no_answer", "No snapshot of the table came.")
            await asyncio.sleep(0.005)
        return self.view

    # -- receiving --------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[ServerMessage]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[ServerMessage]:
        while True:
            msg = await self._inbox.get()
            if msg is None:
                return
            yield msg

    async def next_message(self, timeout: float | None = None) -> ServerMessage | None:
        """The next message that is not an answer, or None once the socket closed."""
        return await asyncio.wait_for(self._inbox.get(), timeout)

    async def wait_for(
        self, predicate: Callable[[ServerMessage], bool], timeout: float = 30.0
    ) -> ServerMessage:
        """Read messages until one matches ``predicate``; return it."""

        async def scan() -> ServerMessage:
            async for msg in self:
                if predicate(msg):
                    return msg
            raise CommandError("closed", "The connection closed.")

        return await asyncio.wait_for(scan(), timeout)

    async def _read_loop(self) -> None:
        try:
            async for raw in self._ws:
                if raw.type != aiohttp.WSMsgType.TEXT:
                    continue
                msg = cast(ServerMessage, json.loads(raw.data))
                if self.record:
                    self.frames.append(msg)
                if self._answers(msg):
                    continue
                self._track(msg)
                if self.on_message is not None:
                    self.on_message(msg)
                self._inbox.put_nowait(msg)
        finally:
            self.close_code = self._ws.close_code
            closed: Refusal = {
                "type": "error",
                "id": None,
                "code": "closed",
                "message": "The connection closed.",
            }
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_result(closed)
            self._inbox.put_nowait(None)

    def _answers(self, msg: ServerMessage) -> bool:
        """Whether ``msg`` answers a command this client waits on (it is handed to it)."""
        if msg["type"] not in ("ack", "error"):
            return False
        answer = msg
        msg_id = answer["id"]
        fut = self._pending.get(msg_id) if isinstance(msg_id, int) else None
        if fut is None:
            return False
        if not fut.done():
            fut.set_result(answer)
        return True

    def _track(self, msg: ServerMessage) -> None:
        if msg["type"] == "snapshot":
            self._take_snapshot(msg)
        elif msg["type"] == "event" and msg["table_id"] == self.table_id:
            self._follow_event(msg)
        elif msg["type"] == "lobby":
            self.rooms = msg["rooms"]
            self.lobby_tables = {t["table_id"]: t for t in msg["tables"]}
        elif msg["type"] == "lobby.update":
            # Each entry carries a table's id and the fields of its line that changed.
            for change in msg["tables"]:
                self.lobby_tables.setdefault(change["table_id"], {}).update(change)

    def _take_snapshot(self, msg: Snapshot) -> None:
        # One watched table per connection: a snapshot names it (``sit`` watches too).
        self.table_id = msg["table_id"]
        # A copy: the view changes with later events, the recorded frame must not.
        self.view = copy.deepcopy(msg["view"])
        self.seq = int(msg["seq"])
        self._resyncing = False
        self.snapshots += 1

    def _follow_event(self, msg: Event) -> None:
        # A private event repeats the seq of the public one before it: only public ones count.
        if not msg.get("private") and not self._next_in_sequence(int(msg["seq"])):
            return
        if self.view is not None and not self._resyncing:
            self.view = apply(self.view, msg["event"], msg["data"])

    def _next_in_sequence(self, seq: int) -> bool:
        """Take ``seq`` as the latest; False for a repeat or after a gap."""
        if seq <= self.seq:
            return False
        gap = seq != self.seq + 1
        self.seq = seq
        if gap:
            self._resync()
        return not gap

    def _resync(self) -> None:
        # Something was missed: only a snapshot puts the view right.
        if not self._resyncing:
            self._resyncing = True
            self.resyncs += 1
            asyncio.get_running_loop().create_task(self._ask_resync())

    async def _ask_resync(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.send_str(encode(Resync(), "gap"))
