"""The WebSocket endpoint: authenticate, say hello, then read commands and route them.

A connection acts only as its own user: the user id comes from the session, never from a
message. Every command gets exactly one answer through its ``Reply``; table commands go to
the table's task, which answers them in order with its events. Seating is ``seating.py``'s.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, cast

from aiohttp import WSMsgType, web

from baccarat.cluster.outage import log_failure, part_down
from baccarat.errors import BaccaratError, InternalError, InvalidInput, RuleViolation
from baccarat.protocol.codec import dumps
from baccarat.protocol.frames import Seat
from baccarat.protocol.ids import UserId
from baccarat.protocol.messages import hello
from baccarat.protocol.parse import MAX_FRAME, parse
from baccarat.protocol.registry import BY_TYPE, REGISTRY, Route
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
from baccarat.server.http import auth
from baccarat.server.http.guard import require_user
from baccarat.server.metrics import Metrics
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.frames import pong_frame
from baccarat.server.sockets.hub import Hub
from baccarat.server.sockets.replies import OK, Ack, Reply
from baccarat.server.tables.driver import TableDriver
from baccarat.server.tables.lobby import Lobby, View
from baccarat.server.tables.node import Node
from baccarat.server.tables.seating import Seating
from baccarat.server.tables.tables import Tables
from baccarat.store import Store, User
from baccarat.table import (
    Command,
    JoinQueue,
    Say,
    SetAutoOpen,
    SqueezeProgress,
    UserInfo,
)

C = TypeVar("C", bound="Command | Request")

log = logging.getLogger("baccarat.server")


class Host(Protocol):
    """What the endpoint and the dispatcher use of the server (``app.Server``)."""

    origins: tuple[str, ...]
    queue_limit: int
    command_rate: float
    squeeze_rate: float
    hub: Hub
    metrics: Metrics
    lobby: Lobby
    store: Store
    node: Node
    seating: Seating
    tables: Tables
    drivers: dict[str, TableDriver]


def _dropped(metrics: Metrics, conn: Connection, reason: str) -> None:
    """A connection the server closed: counted, and logged when the client was too slow."""
    metrics.dropped.labels(reason).inc()
    if reason == "too_slow":
        log.warning("client too slow; dropped", extra={"user_id": conn.user_id})


async def websocket(server: Host, dispatch: Dispatcher, request: web.Request) -> web.StreamResponse:
    """GET /ws: one client's socket, for as long as it stays (``dispatch`` routes its
    commands: one for the server, made with its application)."""
    if not auth.origin_allowed(request, server.origins):
        return auth.fail(403, "bad_origin", "This origin may not open a socket here.")
    user, token = await require_user(request)
    if not server.tables.accepting:
        return auth.fail(503, "shutting_down", "The server is shutting down.")
    # No per-message compression: it costs CPU and memory on every socket for frames of a
    # few hundred bytes (docs/benchmarks.md), and it would make each socket's bytes its own.
    # The heartbeat is the server's (``heartbeat.py``), not a timer per socket: pings and
    # pongs come through here.
    ws = web.WebSocketResponse(autoping=False, max_msg_size=MAX_FRAME * 4, compress=False)
    try:
        await ws.prepare(request)
    except ConnectionResetError:
        # The client left during its upgrade: nothing went wrong here.
        log.info("client left during its upgrade", extra={"user_id": user.user_id})
        return ws
    conn = _connect(server, ws, request, await server.seating.shown(user), token)
    try:
        await _read(server, dispatch, conn, ws)
    finally:
        server.metrics.clients.dec()
        server.lobby.unsubscribe(conn)
        server.hub.remove(conn)
        if conn.closed:
            # Returning now would let aiohttp close with 1000 before the server's own code.
            await conn.wait_closed()
        else:
            await conn.finish()
    return ws


def _connect(
    server: Host, ws: web.WebSocketResponse, request: web.Request, user: User, token: str
) -> Connection:
    """The client's connection, counted and greeted with ``hello``; a user with a seat is
    shown their table as it stands."""
    conn = Connection(
        ws,
        request,
        user.user_id,
        queue_limit=server.queue_limit,
        on_drop=functools.partial(_dropped, server.metrics),
        command_rate=server.command_rate,
    )
    conn.token = token
    first = server.hub.add(conn)
    server.metrics.clients.inc()
    conn.start()
    seat = server.seating.seats.get(user.user_id)
    seat_json: Seat | None = (
        None if seat is None else {"table_id": seat.table_id, "seat": seat.seat}
    )
    conn.send(dumps(hello(auth.user_json(user), time.time(), seat_json, server.squeeze_rate)))
    if seat is not None:
        # Back at the table: mark the user connected, then send the table as it stands.
        if first:
            server.tables.reconnected(user.user_id, seat.table_id)
        server.tables.rewatch(conn, seat.table_id)
    return conn


async def _read(
    server: Host, dispatch: Dispatcher, conn: Connection, ws: web.WebSocketResponse
) -> None:
    """Read the client's frames until it leaves or is dropped; each text frame is a command."""
    async for msg in ws:
        conn.heard = True
        if msg.type == WSMsgType.TEXT:
            await dispatch(conn, msg.data)
        elif msg.type == WSMsgType.PING:
            conn.send_frame(pong_frame(msg.data))
        elif msg.type == WSMsgType.BINARY:
            dispatch.refuse(conn, InvalidInput("bad_message", "Send JSON text frames."))
        if conn.closed:
            break
        # Frames already buffered are read without a pause: let the writer send the
        # answers (and wait while half the queue is unsent) before the next one.
        await conn.wait_for_room()


Handler = Callable[[Connection, "Command | Request", Reply], Awaitable[None]]
"""A command's handler: it answers through the ``Reply`` or hands it to a table's task."""


class Dispatcher:
    """Routes each parsed command, by its class, to its handler; every answer goes through a
    ``Reply``. A command's route is its entry's in ``protocol.registry``: a table command
    needs no line here unless the server does something first (its ``server`` route)."""

    def __init__(self, server: Host) -> None:
        self.server = server
        self.handlers: dict[type[object], Handler] = {}
        self._on(Ping, self.ping)
        self._on(LobbySubscribe, self.lobby_subscribe)
        self._on(LobbyUnsubscribe, self.lobby_unsubscribe)
        self._on(Watch, self.watch)
        self._on(Leave, self.leave)
        self._on(Resync, self.resync)
        self._on(TakeSeat, self.sit)
        self._on(SqueezeProgress, self.squeeze)
        self._on(QueueUp, self.queue_join)
        self._on(SetAutoOpen, self.prefs)
        self._on(Say, self.say)
        # The registry gives a table's route to the table's commands only.
        routes: dict[Route, Callable[[Connection, Command, Reply], Awaitable[None]]] = {
            "at_once": self.at_once,
            "at_seat": self.at_seat,
            "at_table": self.at_table,
        }
        for entry in REGISTRY:
            if entry.route != "server":
                self.handlers[entry.command] = cast(Handler, routes[entry.route])
            elif entry.command not in self.handlers:
                raise TypeError(f"{entry.type} is routed to the server, which has no handler")

    def _on(
        self, kind: type[C], handler: Callable[[Connection, C, Reply], Awaitable[None]]
    ) -> None:
        # Handlers are looked up by the command's exact class, so each gets only its own.
        self.handlers[kind] = cast(Handler, handler)

    async def __call__(self, conn: Connection, text: str) -> None:
        """Handle one text frame."""
        started = time.perf_counter()
        metrics = self.server.metrics
        try:
            msg = parse(text, UserId(conn.user_id))
        except InvalidInput as exc:
            self.refuse(conn, exc)
            return
        reply = Reply(conn, msg.id, metrics)
        coalesced = BY_TYPE[msg.type].coalesced
        try:
            if not coalesced and not conn.allow(time.monotonic()):
                # Squeeze moves are coalesced instead; everything else counts.
                raise RuleViolation(
                    "rate_limited", "Too many commands; slow down and try again in a moment."
                )
            # A retry of an answered command gets the first answer and runs nothing.
            if not conn.replay(msg.id):
                await self.handlers[type(msg.command)](conn, msg.command, reply)
        except BaccaratError as exc:
            reply(exc)
        except _NotHere as missing:
            reply(await self._not_here(missing.table_id))
        except Exception as exc:
            part = part_down(exc)
            if part is None:
                log.exception("command failed", extra={"command": msg.type})
                reply(InternalError())
            else:
                log.info("command met an outage", extra={"command": msg.type, "part": part})
                reply(
                    BaccaratError(
                        "service_unavailable",
                        f"The {part} cannot be reached just now; try again in a few seconds.",
                    )
                )
        finally:
            if not coalesced:
                # Peel moves are answered as they arrive (coalesced), many a second; timing
                # each one costs more than it tells.
                metrics.observe_command(msg.type, time.perf_counter() - started)

    def refuse(self, conn: Connection, exc: InvalidInput) -> None:
        """Answer a frame that is not a command (with the id, when one could be read)."""
        Reply(conn, exc.details.get("id"), self.server.metrics)(exc)

    def _driver(self, table_id: str) -> TableDriver:
        driver = self.server.drivers.get(table_id)
        if driver is None:
            raise _NotHere(table_id)
        return driver

    async def _not_here(self, table_id: str) -> RuleViolation:
        """The answer to a command for a table this node does not run."""
        try:
            url = await self.server.lobby.elsewhere(table_id)
        except Exception as exc:
            log_failure(log, "table not looked up", exc, {"table_id": table_id})
            url = None
        if url:
            return RuleViolation(
                "table_elsewhere", f"The table {table_id!r} runs at {url}.", url=url
            )
        if self.server.lobby.listed(table_id):
            # Between nodes: its node died and no node has started it yet (a lease's ttl at
            # most), or this node is starting it now.
            return RuleViolation(
                "table_opening", f"The table {table_id!r} is opening; try again in a moment."
            )
        return RuleViolation("unknown_table", f"There is no table {table_id!r}.")

    async def ping(self, conn: Connection, cmd: Ping, reply: Reply) -> None:
        """Answer with the server's clock."""
        reply(Ack({"server_time": time.time()}))

    async def lobby_subscribe(self, conn: Connection, cmd: LobbySubscribe, reply: Reply) -> None:
        """Send a page of the lobby now, and its changes once a second after."""
        lobby = self.server.lobby
        view = lobby.check(View(cmd.room, cmd.page, cmd.road))
        reply(OK)
        await lobby.subscribe(conn, view)

    async def lobby_unsubscribe(
        self, conn: Connection, cmd: LobbyUnsubscribe, reply: Reply
    ) -> None:
        """Stop the lobby updates."""
        self.server.lobby.unsubscribe(conn)
        reply(OK)

    async def watch(self, conn: Connection, cmd: Watch, reply: Reply) -> None:
        """Watch a table: ack, then a snapshot, then its events (entering needs the level)."""
        driver = self._driver(cmd.table_id)
        user = await asyncio.to_thread(self.server.store.get_user, conn.user_id)
        await driver.watch(conn, reply=reply, level=user.level)

    async def leave(self, conn: Connection, cmd: Leave, reply: Reply) -> None:
        """Stop watching the table."""
        self.server.hub.unwatch(conn)
        reply(OK)

    async def resync(self, conn: Connection, cmd: Resync, reply: Reply) -> None:
        """A fresh snapshot of the watched table."""
        if conn.watching is None:
            raise RuleViolation("not_watching", "Watch a table first (table.watch).")
        await self._driver(conn.watching).watch(conn, reply=reply)

    async def sit(self, conn: Connection, cmd: TakeSeat, reply: Reply) -> None:
        """Take a seat (at most one in the whole system per user); a snapshot follows the ack."""
        driver = self._driver(cmd.table_id)
        await self.server.seating.sit(
            conn.user_id, driver, cmd.seat, reply=reply, after=lambda: driver.show(conn)
        )

    async def prefs(self, conn: Connection, cmd: SetAutoOpen, reply: Reply) -> None:
        """Remember the user's 自動開牌 preference, and tell the table they sit at."""
        await asyncio.to_thread(self.server.store.set_auto_open, conn.user_id, cmd.on)
        where = self.server.seating.seats.get(conn.user_id)
        driver = self.server.drivers.get(where.table_id) if where is not None else None
        if driver is None:
            reply(OK)
            return
        await driver.submit(driver.command(cmd), reply=reply)

    def _here(self, conn: Connection) -> TableDriver:
        """The table the user sits at, else the one this connection watches."""
        where = self.server.seating.seats.get(conn.user_id)
        table_id = where.table_id if where is not None else conn.watching
        if table_id is None:
            raise RuleViolation("not_watching", "Watch a table first (table.watch).")
        return self._driver(table_id)

    async def queue_join(self, conn: Connection, cmd: QueueUp, reply: Reply) -> None:
        """Line up for the dealer seat of the table one sits at or watches."""
        driver = self._here(conn)
        where = self.server.seating.seats.get(conn.user_id)
        if where is not None and where.table_id != driver.table_id:
            raise RuleViolation(
                "already_seated_elsewhere",
                "You hold a seat at another table; stand up there first.",
            )
        user = await asyncio.to_thread(self.server.store.get_user, conn.user_id)
        info = UserInfo(user.user_id, user.display_name, user.level, user.coins)
        await driver.submit(driver.command(JoinQueue(conn.user_id, info)), reply=reply)

    async def at_table(self, conn: Connection, cmd: Command, reply: Reply) -> None:
        """A command for the table one sits at or watches (leaving its dealer queue)."""
        driver = self._here(conn)
        await driver.submit(driver.command(cmd), reply=reply)

    def _seat_of(self, conn: Connection) -> TableDriver:
        """The table where the user sits."""
        where = self.server.seating.seats.get(conn.user_id)
        if where is None:
            raise RuleViolation("not_seated", "You do not hold a seat at any table.")
        return self._driver(where.table_id)

    async def at_seat(self, conn: Connection, cmd: Command, reply: Reply) -> None:
        """A command for the table where the user sits, in the table's order."""
        driver = self._seat_of(conn)
        await driver.submit(driver.command(cmd), reply=reply)

    async def say(self, conn: Connection, cmd: Say, reply: Reply) -> None:
        """A chat line, unless an operator muted the user (read from the store, so a mute
        holds on every node at once)."""
        driver = self._seat_of(conn)
        user = await asyncio.to_thread(self.server.store.get_user, conn.user_id)
        if user.muted(time.time()):
            assert user.muted_until is not None
            minutes = max(1, math.ceil((user.muted_until - time.time()) / 60))
            raise RuleViolation(
                "muted",
                f"An operator muted you in the chat for {minutes} more minutes.",
                minutes=minutes,
            )
        await driver.submit(driver.command(cmd), reply=reply)

    async def at_once(self, conn: Connection, cmd: Command, reply: Reply) -> None:
        """A betting command: run at once when the table idles (``TableDriver.submit``)."""
        driver = self._seat_of(conn)
        await driver.submit(driver.command(cmd), reply=reply, inline=True)

    async def squeeze(self, conn: Connection, cmd: SqueezeProgress, reply: Reply) -> None:
        """Peel the face-down card one controls; moves are coalesced (``squeeze_rate``)."""
        self._seat_of(conn).squeeze(cmd, reply)


class _NotHere(Exception):
    """A command named a table this node does not run: its answer needs the directory
    (``Dispatcher._not_here``), which the commands' common path never waits on."""

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.table_id = table_id
