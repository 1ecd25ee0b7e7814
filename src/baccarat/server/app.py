"""The server, composed: a node's store, sockets, tables, lobby and cluster membership.

``Server`` builds each part once and hands it to the parts that use it; the HTTP routes
(:mod:`baccarat.server.http.routes`) and the socket endpoint read what they need from it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from baccarat.cluster import Directory, LocalDirectory
from baccarat.cluster.keeper import DEFAULT_TTL
from baccarat.server import keyfile, loghead, stalls
from baccarat.server.config import RoomsConfig
from baccarat.server.health import Health
from baccarat.server.kepthead import KeptHead
from baccarat.server.keyfile import Keys
from baccarat.server.limits import AuthLimits
from baccarat.server.metrics import Metrics
from baccarat.server.passwords import PasswordPool
from baccarat.server.sockets.connection import CLOSE_GOING_AWAY
from baccarat.server.sockets.heartbeat import INTERVAL as HEARTBEAT_INTERVAL
from baccarat.server.sockets.heartbeat import Heartbeat
from baccarat.server.sockets.hub import Hub
from baccarat.server.sockets.moderation import Moderation
from baccarat.server.tables.claims import SeatClaims
from baccarat.server.tables.driver import TableDriver
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.lobby import Lobby
from baccarat.server.tables.node import Node
from baccarat.server.tables.outbox import LineOutbox
from baccarat.server.tables.rollback import Rollback
from baccarat.server.tables.seating import Seating
from baccarat.server.tables.tables import Tables
from baccarat.server.witnesses import WitnessAt, Witnesses
from baccarat.store import Store

log = logging.getLogger("baccarat.server")

SHUTDOWN_GRACE = 30.0
"""Seconds a round in play may take to finish at a planned stop before it is voided: its
betting may run on (15 s in every room) and its cards open at once."""


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
        share: tuple[int, int] | None = None,
        keys: Keys | None = None,
        kept: KeptHead | None = None,
        witnesses: Sequence[WitnessAt] = (),
        witness_quorum: int | None = None,
    ) -> None:
        settings = config.server
        self.keys = keys if keys is not None else keyfile.process_keys()
        """Seal shoe seeds and sign the log's heads (a server made without any gets the
        process's own, which no other process holds: enough for servers in one process)."""
        self.store = store
        self.config = config
        self.test_hooks = test_hooks
        """Serve ``/api/test/tables/{id}``: the browser tests' holds (``http/holds.py``)."""
        self.allow_register = settings.allow_register if allow_register is None else allow_register
        self.origins = origins
        self.queue_limit = queue_limit
        self.command_rate = settings.command_rate if command_rate is None else command_rate
        self.squeeze_rate = settings.squeeze_rate
        """Peel moves a second passed on to a table (told to every client in its hello)."""
        self.metrics_token = metrics_token or None
        """With a token, ``/metrics`` on the public listener answers its bearer only."""
        self.hub = Hub()
        self.heartbeat = Heartbeat(self.hub, heartbeat)
        self.metrics = Metrics()
        self.passwords = PasswordPool(settings.password_hash_workers, settings.password_hash_queue)
        self.metrics.watch_passwords(self.passwords)
        self.metrics.watch_store(store)
        self.limits = AuthLimits.from_settings(settings)
        """The login and registration limits (kept with the server, whose metrics count them)."""
        self.metrics.watch_limits(self.limits)
        self.inflight = CoinsInFlight()
        """Users whose coins an unsettled round holds, at every table of this server."""
        self.alone = directory is None
        """A system of one (no shared directory): it runs every table."""
        self.rollback = None if kept is None else Rollback(store, self.keys, kept)
        """Tells a restored database from the live one by the head kept beside the keys."""
        quorum = witness_quorum or len(witnesses)
        self.witnesses = (
            Witnesses(store, self.keys, list(witnesses), quorum, kept, self.rollback)
            if witnesses
            else None
        )
        """Asks the witnesses to cosign each new head (None: no witnesses named)."""
        directory = LocalDirectory.alone() if directory is None else directory
        claims = SeatClaims(directory, node_id, lease_ttl)
        outbox = LineOutbox()
        """The local tables' lines for the node to publish (from the tables and the lobby)."""
        self.seating = Seating(self.hub, claims, store, self.inflight)
        self.tables = Tables(
            store,
            config,
            self.hub,
            self.metrics,
            self.inflight,
            seating=self.seating,
            outbox=outbox,
            node_id=node_id,
            public_url=public_url,
            speed=speed,
            squeeze_rate=self.squeeze_rate,
            shutdown_grace=shutdown_grace,
            keys=self.keys,
            rollback=self.rollback,
        )
        self.drivers: dict[str, TableDriver] = self.tables.drivers
        self.lobby = Lobby(config, self.hub, self.tables.line, outbox, directory, node_id)
        self.moderation = Moderation(self.hub)
        self.node = Node(
            directory,
            self.hub,
            claims,
            outbox,
            self.seating.seats,
            node_id=node_id,
            public_url=public_url,
            table_ids=list(config.table_room()),
            start_table=self.tables.gained,
            stop_table=self.tables.lost,
            summary_of=self.tables.line,
            rank_of=self.lobby.rank,
            regained=self.tables.regained,
            confirm=self.tables.confirm,
            taker_alive=self.tables.taker_alive,
            ttl=lease_ttl,
            on_operator=self.moderation.heard,
            inflight=self.inflight,
            share=share,
            shed_table=self.tables.shed,
            pins=config.pins(),
        )
        """This server as a node: one of many with a shared directory, else a system of one."""
        self.metrics.watch_keeper(self.node.keeper)
        self.began = False
        """``start`` was called: stopping drains the tables and leaves the directory."""
        self.health = Health()
        """Liveness, readiness and the shared parts' answers (``/healthz``)."""
        self.health.watch("database", lambda: asyncio.to_thread(store.house_balance))
        if directory.expires:
            self.health.watch("directory", directory.nodes)
        self.metrics.watch_health(self.health)
        self.tables.keeper = self.node.keeper

    async def start(self) -> None:
        """Start the tables whose lease this node gets (now and later). A server alone (a
        system of one) gets every table at once."""
        self.began = True
        self.health.start()
        self.lobby.start()
        self.tables.spawn(self.heartbeat.run())
        self.tables.spawn(stalls.watch(self.metrics.loop_lag.observe))
        self.tables.spawn(loghead.keep(self.store, self.keys))
        if self.rollback is not None:
            # Before any table is taken: a restored database deals none of its shoes on.
            await asyncio.to_thread(self.rollback.at_start, alone=self.alone)
        if self.witnesses is not None:
            self.tables.spawn(self.witnesses.keep())
        await self.node.start()
        # Ready once the first tick has taken this node's tables: a client sent here finds
        # them running.
        self.health.started = True
        log.info("node running", extra={"tables": len(self.drivers)})

    async def drain(self) -> None:
        """Stop taking sockets and tables; close every table and hand it over (``Tables``)."""
        self.health.stopping = True
        await self.tables.drain(self.node.keeper)

    async def stop(self) -> None:
        """Drain the tables, then close every socket (a server never started only closes:
        a node id it shares with a running node must not be told to leave)."""
        if not self.began:
            await self.health.stop()
            self.passwords.close()
            return
        await self.drain()
        await self.lobby.stop()
        await self.node.stop()
        for conn in list(self.hub.connections):
            conn.drop(CLOSE_GOING_AWAY, "shutting_down")
        self.tables.cancel_background()
        await self.health.stop()
        self.passwords.close()
        # Let the close frames go out.
        await asyncio.sleep(0.05)
