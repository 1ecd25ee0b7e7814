"""The aiohttp application: HTTP API, WebSocket, static browser client, and the live tables.

``create_app`` builds it; the tables start with the app and stop with it. ``Server`` holds
what the handlers share: the store, the hub of connections, one driver per table, metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import time
from collections.abc import Awaitable, Coroutine
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from baccarat.cluster import Directory, LocalDirectory
from baccarat.cluster.keeper import DEFAULT_TTL
from baccarat.errors import RuleViolation
from baccarat.roads.patterns import PATTERNS
from baccarat.server import auth, mybets, shoes, tickets
from baccarat.server.config import RoomsConfig, table_config
from baccarat.server.connection import (
    CLOSE_GOING_AWAY,
    CLOSE_LOGGED_OUT,
    CLOSE_TABLE_MOVED,
    Connection,
)
from baccarat.server.driver import TableDriver
from baccarat.server.headers import add_security_headers
from baccarat.server.heartbeat import INTERVAL as HEARTBEAT_INTERVAL
from baccarat.server.heartbeat import Heartbeat
from baccarat.server.holds import hold_route
from baccarat.server.hub import Hub
from baccarat.server.inflight import CoinsInFlight
from baccarat.server.limits import AuthLimits
from baccarat.server.lobby import Lobby, View
from baccarat.server.logs import quiet_bad_requests
from baccarat.server.metrics import Metrics
from baccarat.server.node import Node
from baccarat.server.passwords import PasswordPool
from baccarat.server.seating import Seating
from baccarat.server.static import StaticFiles
from baccarat.server.verifier import verifier_routes
from baccarat.server.ws import Dispatcher, websocket
from baccarat.shoe import Shoe
from baccarat.store import Store
from baccarat.table import Command, Disconnect, LeaveQueue, Reconnect, Table
from baccarat.table.queue import position as queue_position

log = logging.getLogger("baccarat.server")

SHUTDOWN_GRACE = 30.0
"""Seconds a round in play may take to finish at a planned stop before it is voided: its
betting may run on (15 s in every room) and its cards open at once."""


def web_root() -> Path:
    """The browser client's files (``baccarat/web``)."""
    return Path(str(resources.files("baccarat").joinpath("web")))


class Server:
    """Everything the handlers share."""

    def __init__(
        self,
        store: Store,
        config: RoomsConfig,
        *,
        speed: float = 1.0,
        allow_register: bool | None = None,
        origins: tuple[str, ...] = (),
        queue_limit: int = 512,
        command_rate: float | None = None,
        shutdown_grace: float = SHUTDOWN_GRACE,
        directory: Directory | None = None,
        node_id: str = "local",
        public_url: str = "",
        metrics_token: str | None = None,
        lease_ttl: float = DEFAULT_TTL,
        heartbeat: float = HEARTBEAT_INTERVAL,
        test_hooks: bool = False,
    ) -> None:
        self.store = store
        self.config = config
        self.speed = speed
        self.test_hooks = test_hooks
        """Serve ``/api/test/tables/{id}``: the browser tests' holds (``server/holds.py``)."""
        self.allow_register = (
            config.server.allow_register if allow_register is None else allow_register
        )
        self.origins = origins
        self.queue_limit = queue_limit
        self.command_rate = config.server.command_rate if command_rate is None else command_rate
        self.squeeze_rate = config.server.squeeze_rate
        """Peel moves a second passed on to a table (told to every client in its hello)."""
        self.shutdown_grace = shutdown_grace
        self.node_id = node_id
        self.hub = Hub()
        self.heartbeat = Heartbeat(self.hub, heartbeat)
        self.metrics = Metrics()
        self.metrics_token = metrics_token or None
        """With a token, ``/metrics`` on the public listener answers its bearer only."""
        settings = config.server
        self.passwords = PasswordPool(settings.password_hash_workers, settings.password_hash_queue)
        self.metrics.watch_passwords(self.passwords)
        self.metrics.watch_store(store)
        self.inflight = CoinsInFlight()
        """Users whose coins an unsettled round holds, at every table of this server."""
        self.drivers: dict[str, TableDriver] = {}
        self.accepting = True
        self._drained = False
        self._background: set[asyncio.Task[Any]] = set()
        self.hub.on_last_close = self._last_close
        self.hub.on_unwatch = self._unwatched
        self.lobby = Lobby(config, self.hub, self._line)
        self.node = Node(
            LocalDirectory.alone() if directory is None else directory,
            self.hub,
            node_id=node_id,
            public_url=public_url,
            table_ids=list(config.table_room()),
            start_table=self._gained,
            stop_table=self._lost,
            summary_of=self._summary,
            regained=self._regained,
            ttl=lease_ttl,
            on_heard=self.lobby.put,
            inflight=self.inflight,
        )
        """This server as a node: one of many with a shared directory, else a system of one."""
        self.lobby.on_local_line = self.node.line_changed
        self.seating = Seating(self.hub, self.node, store, self.inflight)
        self.dispatch = Dispatcher(self)

    # -- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Start the tables whose lease this node gets (now and later): each is taken
        (raising its epoch, returning the stakes of rounds a crash left open), then its task
        starts. A server alone (a system of one) gets every table at once."""
        self.lobby.start()
        self._spawn(self.heartbeat.run())
        await self.node.start()
        log.info("node running", extra={"tables": len(self.drivers)})

    async def _take(self, table_id: str) -> int:
        # One transaction raises the table's epoch and voids the rounds it left in escrow:
        # from here on the database refuses the writes of whoever ran it before.
        taken = await asyncio.to_thread(self.store.take_table, table_id, self.node_id)
        if taken.voided:
            log.warning("voided unfinished rounds", extra={"rounds": taken.voided})
        log.info("table taken", extra={"table_id": table_id, "epoch": taken.epoch})
        driver = self._start_table(table_id, taken.epoch)
        try:
            await self.seating.restore(driver, taken.seats)
        except Exception:
            log.exception("seats not restored", extra={"table_id": table_id})
        return taken.epoch

    async def _regained(self, table_id: str) -> bool:
        # The directory forgot the lease (Redis restarted): keep the table if the database
        # agrees that nobody took it meanwhile, under a new epoch, voiding nothing.
        driver = self.drivers.get(table_id)
        if driver is None or not driver.running:
            return False
        kept = await driver.ledger.renew_epoch(self.node_id)
        log.warning(
            "table kept through a lost lease" if kept else "table was taken meanwhile",
            extra={"table_id": table_id, "epoch": driver.ledger.epoch},
        )
        return kept

    def _start_table(self, table_id: str, epoch: int) -> TableDriver:
        room = self.config.table_room()[table_id]
        table = Table(table_config(room, table_id).scaled(self.speed), Shoe.fresh)
        driver = TableDriver(
            table,
            table_id=table_id,
            room_id=room.room_id,
            names=room.names_of(table_id),
            hub=self.hub,
            store=self.store,
            metrics=self.metrics,
            epoch=epoch,
            inflight=self.inflight,
            squeeze_interval=1 / self.squeeze_rate,
        )
        driver.on_dealer_turn = lambda uid: self._spawn(self.seating.dealer_turn(driver, uid))
        self.drivers[table_id] = driver
        driver.start()
        self.hub.changed.add(table_id)
        # The table's line goes out now (published to the other nodes), not at the next tick.
        self.lobby.refresh()
        self.metrics.tables.set(len(self.drivers))
        return driver

    async def _gained(self, table_id: str, token: int) -> None:
        # No other node runs the table now: a round it left in escrow is over.
        if not self.accepting:
            raise RuleViolation("table_closed", "The node is shutting down.")
        log.info("table lease gained", extra={"table_id": table_id, "token": token})
        await self._take(table_id)

    async def _lost(self, table_id: str) -> None:
        # Another node runs the table now (or this node is leaving): stop it here at once.
        driver = self.drivers.pop(table_id, None)
        if driver is None:
            return
        self.metrics.tables.set(len(self.drivers))
        try:
            if driver.running:
                await driver.stop(0.0)
        finally:
            seated = [u for u, (t, _) in self.hub.seats.items() if t == table_id]
            self.hub.set_seats(table_id, {})
            self.hub.changed.add(table_id)
            # The table runs elsewhere now (or soon): its screens reconnect and find it.
            conns = set(self.hub.watchers.get(table_id, ()))
            for user_id in seated:
                conns.update(self.hub.by_user.get(user_id, ()))
            for conn in conns:
                self.hub.unwatch(conn)
                conn.drop(CLOSE_TABLE_MOVED, "table_moved")

    def _summary(self, table_id: str) -> dict[str, Any] | None:
        return self.lobby.lines.get(table_id) if table_id in self.drivers else None

    def _line(self, table_id: str) -> dict[str, Any] | None:
        driver = self.drivers.get(table_id)
        if driver is None:
            return None
        return self.node.line(driver.line())

    async def drain(self) -> None:
        """Stop taking sockets and tables; close every table (the round in play finishes,
        none starts) and hand each to another node as soon as its round is over. A round
        still in escrow when the grace runs out is voided."""
        if self._drained:
            return
        self._drained = True
        self.accepting = False
        self.node.keeper.stop_taking()
        await asyncio.gather(*(self._hand_over(t, d) for t, d in list(self.drivers.items())))
        self.metrics.tables.set(0)

    async def _hand_over(self, table_id: str, driver: TableDriver) -> None:
        await driver.close(self.shutdown_grace)
        # Its lease and line go now: another node takes the table with its seats, and the
        # table's screens are sent to find it (4002).
        await self.node.keeper.give_back(table_id)

    async def stop(self) -> None:
        """Drain the tables, then close every socket."""
        await self.drain()
        await self.lobby.stop()
        await self.node.stop()
        for conn in list(self.hub.connections):
            conn.drop(CLOSE_GOING_AWAY, "shutting_down")
        for task in list(self._background):
            task.cancel()
        self.passwords.close()
        # Let the close frames go out.
        await asyncio.sleep(0.05)

    # -- hooks ------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _tell(self, table_id: str, cmd: Command) -> None:
        """Hand the table a command in the background. The table may refuse (already
        marked, grace over, stopping): nothing to tell anyone."""
        driver = self.drivers.get(table_id)
        if driver is not None:
            self._spawn(_quietly(driver.submit(driver.command(cmd))))

    def _last_close(self, user_id: int) -> None:
        where = self.hub.seats.get(user_id)
        if where is not None and self.accepting:
            self._tell(where[0], Disconnect(user_id))

    def reconnected(self, user_id: int, table_id: str) -> None:
        """A seated user opened their first connection again."""
        self._tell(table_id, Reconnect(user_id))

    def rewatch(self, conn: Connection, table_id: str) -> None:
        """Make a seated user's new connection watch its table (a snapshot follows)."""
        driver = self.drivers.get(table_id)
        if driver is not None:
            # A table that is stopping is found again when the connection comes back.
            self._spawn(_quietly(driver.watch(conn)))

    def _unwatched(self, conn: Connection, table_id: str) -> None:
        """A user who no longer watches a table (nor sits there) leaves its dealer queue."""
        driver = self.drivers.get(table_id)
        uid = conn.user_id
        if driver is None or not self.accepting or queue_position(driver.table, uid) is None:
            return
        if self.hub.seats.get(uid, ("",))[0] == table_id:
            return
        if any(c.watching == table_id for c in self.hub.by_user.get(uid, ())):
            return
        self._tell(table_id, LeaveQueue(uid, "away"))

    def dropped(self, conn: Connection, reason: str) -> None:
        """A connection was closed by the server."""
        self.metrics.dropped.labels(reason).inc()
        if reason == "too_slow":
            log.warning("client too slow; dropped", extra={"user_id": conn.user_id})

    def logged_out(self, token: str) -> None:
        """Close every socket of a session that ended."""
        for conn in list(self.hub.connections):
            if conn.token == token:
                conn.drop(CLOSE_LOGGED_OUT, "logged_out")

    # -- HTTP -------------------------------------------------------------------------

    async def healthz(self, request: web.Request) -> web.Response:
        """GET /healthz: the database answers and every table's task runs."""
        try:
            await asyncio.to_thread(self.store.house_balance)
            db = True
        except Exception:
            db = False
        running = sum(1 for d in self.drivers.values() if d.running)
        ok = db and running == len(self.drivers) and self.accepting
        body = {"ok": ok, "db": db, "tables": running, "clients": len(self.hub.connections)}
        return web.json_response(body, status=200 if ok else 503)

    async def metrics_page(self, request: web.Request) -> web.Response:
        """GET /metrics: Prometheus text format (see :func:`create_metrics_app`)."""
        return web.Response(body=self.metrics.render(), content_type="text/plain")

    async def public_metrics(self, request: web.Request) -> web.Response:
        """GET /metrics on the public listener: only with the operator's bearer token."""
        if self.metrics_token is None:
            return auth.fail(
                404,
                "not_found",
                "Metrics are not served here; the operator reads them with a token or on a "
                "listener of their own.",
            )
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {self.metrics_token}".encode()):
            return auth.fail(
                401,
                "not_authenticated",
                "Send the metrics token as 'Authorization: Bearer TOKEN'.",
                **{"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
        return await self.metrics_page(request)

    async def lobby_page(self, request: web.Request) -> web.Response:
        """GET /api/lobby: the lobby without a socket (``?room=ID&page=N&road=R``: one page)."""
        query = request.query
        room, page, road = query.get("room"), query.get("page"), query.get("road")
        if room is None and page is None and road is None:
            return web.json_response(self.lobby.message())
        if road is not None and road != "any" and road not in PATTERNS:
            return auth.fail(400, "bad_message", f"road is 'any' or one of {', '.join(PATTERNS)}.")
        try:
            number = int(page or 0)
            if number < 0:
                raise ValueError(page)
            view = self.lobby.check(View(room, number, road))
        except ValueError:
            return auth.fail(400, "bad_message", "page is a whole number >= 0.")
        except RuleViolation as exc:
            return auth.fail(404, exc.code, exc.message)
        return web.json_response(self.lobby.message(view))


async def _quietly(job: Awaitable[None]) -> None:
    with contextlib.suppress(Exception):
        await job


@web.middleware
async def _log_requests(request: web.Request, handler: Any) -> web.StreamResponse:
    started = time.perf_counter()
    response: web.StreamResponse = await handler(request)
    if request.path.startswith("/api/"):
        log.info(
            "http",
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status,
                "ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )
    return response


SERVER = web.AppKey("server", Server)
"""The application's ``Server``."""


def create_app(server: Server) -> web.Application:
    """The aiohttp application serving ``server``."""
    quiet_bad_requests()
    app = web.Application(middlewares=[_log_requests], client_max_size=64 * 1024)
    app[SERVER] = server
    app[auth.STORE] = server.store
    app[auth.SETTINGS] = server.config.server
    app[auth.ALLOW_REGISTER] = server.allow_register
    app[auth.ORIGINS] = server.origins
    app[auth.LIMITS] = AuthLimits.from_settings(server.config.server)
    app[auth.PASSWORDS] = server.passwords
    app[auth.ON_LOGOUT] = server.logged_out
    app[shoes.TABLES] = frozenset(server.config.table_room())

    app.router.add_post("/api/register", auth.register)
    app.router.add_post("/api/login", auth.login)
    app.router.add_post("/api/logout", auth.logout)
    app.router.add_get("/api/me", auth.me)
    app.router.add_post("/api/ticket", tickets.ticket)
    app.router.add_get("/api/enter", tickets.enter)
    app.router.add_get("/api/lobby", server.lobby_page)
    app.router.add_get("/api/my/rounds", mybets.my_rounds)
    app.router.add_get("/api/my/net", mybets.my_net)
    app.router.add_get("/api/shoes", shoes.shoe_list)
    app.router.add_get("/api/shoes/{shoe_id}", shoes.shoe_detail)
    app.router.add_get("/healthz", server.healthz)
    app.router.add_get("/metrics", server.public_metrics)
    app.router.add_get("/ws", functools.partial(websocket, server))
    if server.test_hooks:
        held = hold_route(server.drivers)
        app.router.add_get("/api/test/tables/{table_id}", held)
        app.router.add_post("/api/test/tables/{table_id}", held)
    app.router.add_routes(verifier_routes(web_root()))
    app.router.add_get("/{path:.*}", StaticFiles(web_root()).serve)

    async def on_startup(app: web.Application) -> None:
        await server.start()

    async def on_shutdown(app: web.Application) -> None:
        await server.stop()

    app.on_response_prepare.append(add_security_headers)
    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    return app


def create_metrics_app(server: Server) -> web.Application:
    """An application serving only ``GET /metrics``, for a listener only the operator reaches."""
    app = web.Application()
    app.router.add_get("/metrics", server.metrics_page)
    return app
