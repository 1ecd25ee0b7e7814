"""The WebSocket endpoint: authenticate, say hello, then read commands and route them.

A connection acts only as its own user: the user id comes from the session, never from a
message. Table commands go to the table's task, which answers them in order with its events.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from baccarat.errors import BaccaratError, InvalidInput, RuleViolation
from baccarat.server import auth
from baccarat.server.connection import Connection
from baccarat.server.driver import TableDriver
from baccarat.server.lobby import View
from baccarat.server.protocol import (
    MAX_FRAME,
    Message,
    ack,
    dumps,
    error,
    hello,
    parse_message,
    refusal,
)
from baccarat.table import (
    ClearBets,
    Double,
    Emote,
    Event,
    JoinQueue,
    LeaveQueue,
    OpenCard,
    PlaceChip,
    Rebet,
    Say,
    SetAutoOpen,
    Sit,
    SqueezeProgress,
    StandUp,
    Undo,
    Urge,
    UserInfo,
)

if TYPE_CHECKING:
    from baccarat.server.app import Server

log = logging.getLogger("baccarat.server")


async def websocket(request: web.Request) -> web.StreamResponse:
    """GET /ws: one client's socket, for as long as it stays."""
    server: Server = request.app[SERVER]
    if not auth.origin_allowed(request, server.origins):
        return auth.fail(403, "bad_origin", "This origin may not open a socket here.")
    found = await auth.current_user(request)
    if found is None:
        return auth.fail(401, "not_authenticated", "Log in first.")
    user, token = found
    if not server.accepting:
        return auth.fail(503, "shutting_down", "The server is shutting down.")
    # No per-message compression: it costs CPU and memory on every socket for frames of a
    # few hundred bytes (docs/benchmarks.md), and it would make each socket's bytes its own.
    ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MAX_FRAME * 4, compress=False)
    await ws.prepare(request)
    conn = Connection(
        ws,
        request,
        user.user_id,
        queue_limit=server.queue_limit,
        on_drop=server.dropped,
        command_rate=server.command_rate,
    )
    conn.token = token
    first = server.hub.add(conn)
    server.metrics.clients.inc()
    conn.start()
    seat = server.hub.seats.get(user.user_id)
    seat_json = None if seat is None else {"table_id": seat[0], "seat": seat[1]}
    conn.send(dumps(hello(auth.user_json(user), time.time(), seat_json)))
    if seat is not None:
        # Back at the table: mark the user connected, then send the table as it stands.
        if first:
            server.reconnected(user.user_id, seat[0])
        server.rewatch(conn, seat[0])
    try:
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await server.dispatch(conn, msg.data)
            elif msg.type == WSMsgType.BINARY:
                conn.answer(error(None, "bad_message", "Send JSON text frames."))
            if conn.closed:
                break
            # Frames already buffered are read without a pause: let the writer send the
            # answers (and wait while half the queue is unsent) before the next one.
            await conn.wait_for_room()
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


Handler = Callable[[Connection, Message], Awaitable[None]]


class Dispatcher:
    """Routes each checked command to its handler and answers protocol errors."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.handlers: dict[str, Handler] = {
            "ping": self.ping,
            "lobby.subscribe": self.lobby_subscribe,
            "lobby.unsubscribe": self.lobby_unsubscribe,
            "table.watch": self.watch,
            "table.leave": self.leave,
            "resync": self.resync,
            "sit": self.sit,
            "stand": self.seated(lambda uid, f: StandUp(uid)),
            "bet": self.seated(lambda uid, f: PlaceChip(uid, f["area"], f["chip"])),
            "clear": self.seated(lambda uid, f: ClearBets(uid)),
            "rebet": self.seated(lambda uid, f: Rebet(uid)),
            "double": self.seated(lambda uid, f: Double(uid)),
            "undo": self.seated(lambda uid, f: Undo(uid)),
            "urge": self.seated(lambda uid, f: Urge(uid)),
            "open": self.seated(lambda uid, f: OpenCard(uid, f["hand"])),
            "squeeze": self.squeeze,
            "queue.join": self.queue_join,
            "prefs": self.prefs,
            "say": self.seated(lambda uid, f: Say(uid, f["text"])),
            "emote": self.seated(lambda uid, f: Emote(uid, f["emote"])),
            "queue.leave": self.queue_leave,
        }

    async def __call__(self, conn: Connection, text: str) -> None:
        """Handle one text frame."""
        started = time.perf_counter()
        metrics = self.server.metrics
        try:
            msg = parse_message(text)
        except InvalidInput as exc:
            metrics.errors.labels(exc.code).inc()
            conn.answer(refusal(exc.details.get("id"), exc))
            return
        try:
            if msg.type != "squeeze" and not conn.allow(time.monotonic()):
                # Squeeze moves are coalesced instead; everything else counts.
                raise RuleViolation(
                    "rate_limited", "Too many commands; slow down and try again in a moment."
                )
            # A retry of an answered command gets the first answer and runs nothing.
            if not conn.replay(msg.id):
                await self.handlers[msg.type](conn, msg)
        except BaccaratError as exc:
            metrics.errors.labels(exc.code).inc()
            conn.answer(refusal(msg.id, exc))
        except Exception:
            log.exception("command failed", extra={"command": msg.type})
            metrics.errors.labels("internal_error").inc()
            conn.answer(error(msg.id, "internal_error", "The command failed on the server."))
        finally:
            if msg.type != "squeeze":
                # Peel moves are answered as they arrive (coalesced), many a second; timing
                # each one costs more than it tells.
                metrics.observe_command(msg.type, time.perf_counter() - started)

    def _driver(self, table_id: str) -> TableDriver:
        driver = self.server.drivers.get(table_id)
        if driver is None:
            line = self.server.node.lines.get(table_id)
            if line is not None and line.get("url"):
                raise RuleViolation(
                    "table_elsewhere",
                    f"The table {table_id!r} runs at {line['url']}.",
                    url=line["url"],
                )
            raise RuleViolation("unknown_table", f"There is no table {table_id!r}.")
        return driver

    async def ping(self, conn: Connection, msg: Message) -> None:
        """Answer with the server's clock."""
        conn.answer(ack(msg.id, server_time=time.time()))

    async def lobby_subscribe(self, conn: Connection, msg: Message) -> None:
        """Send a page of the lobby now, and its changes once a second after."""
        lobby = self.server.lobby
        view = lobby.check(
            View(msg.fields.get("room"), msg.fields.get("page", 0), msg.fields.get("road"))
        )
        conn.answer(ack(msg.id))
        lobby.subscribe(conn, view)

    async def lobby_unsubscribe(self, conn: Connection, msg: Message) -> None:
        """Stop the lobby updates."""
        self.server.lobby.unsubscribe(conn)
        conn.answer(ack(msg.id))

    async def watch(self, conn: Connection, msg: Message) -> None:
        """Watch a table: ack, then a snapshot, then its events (entering needs the level)."""
        driver = self._driver(msg.fields["table_id"])
        user = await asyncio.to_thread(self.server.store.get_user, conn.user_id)
        await driver.submit(driver.watch(conn, msg.id, user.level))

    async def leave(self, conn: Connection, msg: Message) -> None:
        """Stop watching the table."""
        self.server.hub.unwatch(conn)
        conn.answer(ack(msg.id))

    async def resync(self, conn: Connection, msg: Message) -> None:
        """A fresh snapshot of the watched table."""
        if conn.watching is None:
            raise RuleViolation("not_watching", "Watch a table first (table.watch).")
        driver = self._driver(conn.watching)
        await driver.submit(driver.watch(conn, msg.id))

    async def sit(self, conn: Connection, msg: Message) -> None:
        """Take a seat: at most one seat in the whole system per user."""
        hub = self.server.hub
        table_id = msg.fields["table_id"]
        driver = self._driver(table_id)

        def after() -> None:
            hub.watch(conn, table_id)
            conn.send(dumps(driver.snapshot_for(conn, driver.loop.time())))

        await self.take_seat(
            conn.user_id, table_id, msg.fields["seat"], conn=conn, msg_id=msg.id, after=after
        )

    async def take_seat(
        self,
        uid: int,
        table_id: str,
        seat: int,
        *,
        conn: Connection | None = None,
        msg_id: str | int | None = None,
        after: Callable[[], None] | None = None,
    ) -> None:
        """Seat ``uid`` with a fresh balance, keeping the one-seat rule.

        The balance is read inside the table's task, after every ledger write the table's
        earlier steps caused; a user whose coins are still in an unsettled round at another
        table is refused, since that settlement will change the balance. With ``conn`` the
        table answers the command itself; without, a refusal is raised.
        """
        hub = self.server.hub
        driver = self._driver(table_id)
        if driver.ledger.draining:
            raise RuleViolation("table_closed", "The server is shutting down; no new seats.")
        where = hub.seats.get(uid)
        if (where is not None and where[0] != table_id) or uid in hub.sitting:
            raise RuleViolation(
                "already_seated_elsewhere",
                "You already hold a seat at another table; stand up there first.",
            )
        self.server.inflight.verify_free(uid, table_id)
        node = self.server.node
        hub.sitting.add(uid)
        try:
            # The directory keeps the one-seat rule across nodes; the hub, within this one.
            if not await node.claim_seat(uid, table_id, seat):
                raise RuleViolation(
                    "already_seated_elsewhere",
                    "You already hold a seat at another table; stand up there first.",
                )
            loaded: list[UserInfo] = []

            async def load() -> None:
                self.server.inflight.verify_free(uid, table_id)
                user = await asyncio.to_thread(self.server.store.get_user, uid)
                auto = await asyncio.to_thread(self.server.store.auto_open, uid)
                loaded.append(UserInfo(uid, user.display_name, user.level, user.coins, auto))

            def run(now: float) -> list[Event]:
                return driver.table.handle(Sit(uid, loaded[0], seat), now)

            await driver.submit(run, conn=conn, msg_id=msg_id, after=after, prepare=load)
        finally:
            hub.sitting.discard(uid)
            if hub.seats.get(uid, ("",))[0] != table_id:
                # The table did not seat the user: give the claim back.
                await node.release_seat(uid, table_id)

    async def prefs(self, conn: Connection, msg: Message) -> None:
        """Remember the user's 自動開牌 preference, and tell the table they sit at."""
        on = msg.fields["auto_open"]
        await asyncio.to_thread(self.server.store.set_auto_open, conn.user_id, on)
        where = self.server.hub.seats.get(conn.user_id)
        driver = self.server.drivers.get(where[0]) if where is not None else None
        if driver is None:
            conn.answer(ack(msg.id))
            return
        await driver.submit(driver.command(SetAutoOpen(conn.user_id, on)), conn=conn, msg_id=msg.id)

    def _here(self, conn: Connection) -> TableDriver:
        """The table the user sits at, else the one this connection watches."""
        where = self.server.hub.seats.get(conn.user_id)
        table_id = where[0] if where is not None else conn.watching
        if table_id is None:
            raise RuleViolation("not_watching", "Watch a table first (table.watch).")
        return self._driver(table_id)

    async def queue_join(self, conn: Connection, msg: Message) -> None:
        """Line up for the dealer seat of the table one sits at or watches."""
        driver = self._here(conn)
        where = self.server.hub.seats.get(conn.user_id)
        if where is not None and where[0] != driver.table_id:
            raise RuleViolation(
                "already_seated_elsewhere",
                "You hold a seat at another table; stand up there first.",
            )
        user = await asyncio.to_thread(self.server.store.get_user, conn.user_id)
        info = UserInfo(user.user_id, user.display_name, user.level, user.coins)
        await driver.submit(driver.command(JoinQueue(conn.user_id, info)), conn=conn, msg_id=msg.id)

    async def queue_leave(self, conn: Connection, msg: Message) -> None:
        """Leave the dealer queue of the table one sits at or watches."""
        driver = self._here(conn)
        await driver.submit(driver.command(LeaveQueue(conn.user_id)), conn=conn, msg_id=msg.id)

    def seated(self, build: Callable[[int, dict[str, Any]], Any]) -> Handler:
        """A handler for a command at the table where the user sits."""

        async def handle(conn: Connection, msg: Message) -> None:
            where = self.server.hub.seats.get(conn.user_id)
            if where is None:
                raise RuleViolation("not_seated", "You do not hold a seat at any table.")
            driver = self._driver(where[0])
            cmd = build(conn.user_id, msg.fields)
            await driver.submit(driver.command(cmd), conn=conn, msg_id=msg.id)

        return handle

    async def squeeze(self, conn: Connection, msg: Message) -> None:
        """Peel the face-down card one controls; moves are coalesced to 10 per second."""
        where = self.server.hub.seats.get(conn.user_id)
        if where is None:
            raise RuleViolation("not_seated", "You do not hold a seat at any table.")
        driver = self._driver(where[0])
        f = msg.fields
        driver.squeeze(
            SqueezeProgress(conn.user_id, f["hand"], f["progress"], f["corner"]), conn, msg.id
        )


SERVER: web.AppKey[Any] = web.AppKey("server", object)
