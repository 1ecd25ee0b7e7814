"""An asyncio client of the protocol (docs/protocol.md), on aiohttp's WebSocket client.

    token = await login("http://127.0.0.1:8000", "alice", "secret")
    async with await Client.connect("http://127.0.0.1:8000", token) as client:
        await client.watch("standard-1")
        await client.command("sit", table_id="standard-1", seat=3)
        async for message in client:
            ...

``command`` sends a command and returns its ``ack`` or raises ``CommandError`` with the
server's code, message and details. The client keeps the watched table's ``view`` up to date
from events alone (``baccarat.table.reducer``): a snapshot only when it watches or sits, when
asked with ``resync``, or after a gap in ``seq``. It keeps the lobby's tables up to date too.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any

import aiohttp

from baccarat.errors import BaccaratError
from baccarat.table.reducer import apply

PROTOCOL_VERSION = 1


class CommandError(BaccaratError):
    """The server refused a command (``code`` and ``message`` are the server's)."""


class HttpError(BaccaratError):
    """An HTTP call of the API failed (``status`` is the HTTP status)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code, message, status=status)
        self.status = status


def ws_url(base_url: str) -> str:
    """The WebSocket URL of a server given by its http(s) base URL."""
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        return "wss://" + base[len("https://") :] + "/ws"
    if base.startswith("http://"):
        return "ws://" + base[len("http://") :] + "/ws"
    return base if base.endswith("/ws") else base + "/ws"


HTTP_TIMEOUT = aiohttp.ClientTimeout(total=10.0)
"""How long one API call may take: a node that stopped answering is given up on soon."""
CONNECT_TIMEOUT = 10.0
"""How long opening a socket (up to the server's hello) may take."""


async def _answer(resp: aiohttp.ClientResponse) -> dict[str, Any]:
    """The JSON object of an API answer, or HttpError: an error status, or anything that is
    not a JSON object (a proxy's HTML error page for a dead node) is a failed call."""
    try:
        data = json.loads(await resp.text())
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        raise HttpError(
            resp.status, f"http_{resp.status}", f"The server answered {resp.status}, not JSON."
        )
    if resp.status >= 400:
        err = data.get("error", {})
        if not isinstance(err, dict):
            err = {}
        raise HttpError(resp.status, err.get("code", "http_error"), err.get("message", ""))
    return data


async def _post(base_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as session,
        session.post(base_url.rstrip("/") + path, json=body) as resp,
    ):
        return await _answer(resp)


async def _get(base_url: str, path: str, token: str, query: dict[str, str]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as session,
        session.get(base_url.rstrip("/") + path, params=query, headers=headers) as resp,
    ):
        return await _answer(resp)


async def lobby(base_url: str, token: str) -> dict[str, Any]:
    """The lobby without a socket (``GET /api/lobby``): rooms and every table's line."""
    return await _get(base_url, "/api/lobby", token, {})


async def my_rounds(
    base_url: str, token: str, *, limit: int = 20, before: str | None = None
) -> dict[str, Any]:
    """One page of the logged-in user's rounds, newest first: ``{"rounds", "next"}``.

    Pass the page's ``next`` as ``before`` for the following page (None after the last).
    """
    query = {"limit": str(limit)}
    if before is not None:
        query["before"] = before
    return await _get(base_url, "/api/my/rounds", token, query)


async def my_net(base_url: str, token: str, since: float) -> dict[str, Any]:
    """The user's net coins, commission and rounds settled since ``since`` (epoch seconds)."""
    return await _get(base_url, "/api/my/net", token, {"since": repr(float(since))})


async def login(base_url: str, username: str, password: str) -> str:
    """Log in over HTTP; return the session token (for ``Client.connect``)."""
    data = await _post(base_url, "/api/login", {"username": username, "password": password})
    return str(data["token"])


async def register(base_url: str, username: str, password: str) -> str:
    """Create an account over HTTP; return its session token."""
    data = await _post(base_url, "/api/register", {"username": username, "password": password})
    return str(data["token"])


class Client:
    """One WebSocket connection, with commands, events and the watched table's view."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.hello: dict[str, Any] = {}
        self.frames: list[dict[str, Any]] = []
        """Every message received, in order (kept when ``record`` is true)."""
        self.record = False
        self.table_id: str | None = None
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.lobby_tables: dict[str, dict[str, Any]] = {}
        self.rooms: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self._resyncing = False
        self.snapshots = 0
        """Snapshots received (joining, resyncs and gaps included)."""
        self.resyncs = 0
        """Snapshots asked for because of a gap in ``seq``."""
        self._reader: asyncio.Task[None] | None = None
        self.on_message: Callable[[dict[str, Any]], None] | None = None

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
        if first is None or first.get("type") != "hello":
            await client.close()
            raise CommandError("no_hello", "The server did not say hello.")
        if first.get("v") != PROTOCOL_VERSION:
            await client.close()
            raise CommandError("bad_version", f"The server speaks protocol v{first.get('v')}.")
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

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one command; return its ack, or raise ``CommandError``."""
        msg_id = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        try:
            await self._ws.send_str(json.dumps({"type": kind, "id": msg_id, **fields}))
            answer = await fut
        finally:
            self._pending.pop(msg_id, None)
        if answer["type"] == "error":
            err = CommandError(answer["code"], answer["message"])
            # The refused rule's figures (``area`` and ``limit`` of ``over_limit``, ...).
            err.details = dict(answer.get("details") or {})
            raise err
        return answer

    async def rebet(self) -> dict[str, Any]:
        """Place last round's bets again, whole or refused whole (``CommandError``)."""
        return await self.command("rebet")

    async def double(self) -> dict[str, Any]:
        """Double every bet on one's slip, whole or refused whole."""
        return await self.command("double")

    async def undo(self) -> dict[str, Any]:
        """Take back one's last chip, or one's last rebet or double."""
        return await self.command("undo")

    async def join_queue(self) -> dict[str, Any]:
        """Line up for the dealer seat of the table one sits at or watches (上莊排隊)."""
        return await self.command("queue.join")

    async def leave_queue(self) -> dict[str, Any]:
        """Leave the dealer queue."""
        return await self.command("queue.leave")

    async def set_auto_open(self, on: bool) -> dict[str, Any]:
        """Remember whether to open the cards one controls at once (自動開牌) instead of squeezing."""
        return await self.command("prefs", auto_open=on)

    async def say(self, text: str) -> dict[str, Any]:
        """Send a chat message to the table one sits at."""
        return await self.command("say", text=text)

    async def emote(self, name: str) -> dict[str, Any]:
        """Send an emote (``clap``, ``laugh``, ...) to the table one sits at."""
        return await self.command("emote", emote=name)

    async def watch(self, table_id: str) -> dict[str, Any]:
        """Watch a table; return its first snapshot's view (a refusal keeps the current one)."""
        before = self.view
        self.view = None
        try:
            await self.command("table.watch", table_id=table_id)
        except CommandError:
            self.view = before
            raise
        return await self.wait_view()

    async def resync(self) -> dict[str, Any]:
        """Ask for a fresh snapshot of the watched table; return its view."""
        self.view = None
        await self.command("resync")
        return await self.wait_view()

    async def wait_view(self) -> dict[str, Any]:
        """Wait until a snapshot has arrived."""
        while self.view is None:
            if self.closed:
                raise CommandError("closed", "The connection closed.")
            await asyncio.sleep(0.005)
        return self.view

    # -- receiving --------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            msg = await self._inbox.get()
            if msg is None:
                return
            yield msg

    async def next_message(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message that is not an answer, or None once the socket closed."""
        return await asyncio.wait_for(self._inbox.get(), timeout)

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> dict[str, Any]:
        """Read messages until one matches ``predicate``; return it."""

        async def scan() -> dict[str, Any]:
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
                msg = json.loads(raw.data)
                if self.record:
                    self.frames.append(msg)
                kind = msg.get("type")
                if kind in ("ack", "error") and msg.get("id") in self._pending:
                    fut = self._pending[msg["id"]]
                    if not fut.done():
                        fut.set_result(msg)
                    continue
                self._track(msg)
                if self.on_message is not None:
                    self.on_message(msg)
                self._inbox.put_nowait(msg)
        finally:
            self.close_code = self._ws.close_code
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_result(
                        {"type": "error", "code": "closed", "message": "The connection closed."}
                    )
            self._inbox.put_nowait(None)

    def _track(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "snapshot":
            self._take_snapshot(msg)
        elif kind == "event" and msg.get("table_id") == self.table_id:
            self._follow_event(msg)
        elif kind == "lobby":
            self.rooms = msg["rooms"]
            self.lobby_tables = {t["table_id"]: t for t in msg["tables"]}
        elif kind == "lobby.update":
            # Each entry carries a table's id and the fields of its line that changed.
            for change in msg["tables"]:
                self.lobby_tables.setdefault(change["table_id"], {}).update(change)

    def _take_snapshot(self, msg: dict[str, Any]) -> None:
        # One watched table per connection: a snapshot names it (``sit`` watches too).
        self.table_id = msg["table_id"]
        # A copy: the view changes with later events, the recorded frame must not.
        self.view = copy.deepcopy(msg["view"])
        self.seq = int(msg["seq"])
        self._resyncing = False
        self.snapshots += 1

    def _follow_event(self, msg: dict[str, Any]) -> None:
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
            await self._ws.send_str(json.dumps({"type": "resync", "id": "gap"}))
