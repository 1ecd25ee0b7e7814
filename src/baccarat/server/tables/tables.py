"""The tables this node runs: each one's task started when its lease comes, stopped when
it goes, and closed table by table at a planned stop.

A table is taken in one transaction that raises its epoch (fencing whoever ran it before)
and voids the rounds a crash left in escrow; its seats come back from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from baccarat.cluster.keeper import Keeper
from baccarat.cluster.outage import log_failure
from baccarat.errors import RuleViolation
from baccarat.protocol.lobby import LineJson
from baccarat.server.config import RoomsConfig, table_config
from baccarat.server.keyfile import Keys
from baccarat.server.metrics import Metrics
from baccarat.server.sockets.connection import CLOSE_TABLE_MOVED, Connection
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables import shoes
from baccarat.server.tables.driver import TableDriver
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.outbox import LineOutbox
from baccarat.server.tables.recheck import Recheck
from baccarat.server.tables.rollback import Rollback
from baccarat.server.tables.seating import Seating
from baccarat.shoe import Shoe
from baccarat.store import VOID_CRASH, Store
from baccarat.table import Command, Disconnect, LeaveQueue, Reconnect, Table
from baccarat.table.queue import position as queue_position

log = logging.getLogger("baccarat.server")


class Tables:
    """This node's live tables, by id, and what happens to them over the node's life."""

    def __init__(
        self,
        store: Store,
        config: RoomsConfig,
        hub: Hub,
        metrics: Metrics,
        inflight: CoinsInFlight,
        *,
        seating: Seating,
        outbox: LineOutbox,
        node_id: str,
        public_url: str = "",
        speed: float,
        squeeze_rate: float,
        shutdown_grace: float,
        keys: Keys | None = None,
        rollback: Rollback | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.hub = hub
        self.metrics = metrics
        self.inflight = inflight
        self.seating = seating
        self.outbox = outbox
        self.node_id = node_id
        self.public_url = public_url
        """Where clients reach this node: each local line names it (none: a server alone)."""
        self.speed = speed
        self.squeeze_rate = squeeze_rate
        self.shutdown_grace = shutdown_grace
        self.keys = keys
        """Seal new shoes' seeds and sign the log's heads; open the seeds of shoes to deal on."""
        self.rollback = rollback
        """Ends the shoes of a restored database instead of dealing them on (None: no kept
        head, as for servers built in code)."""
        self.drivers: dict[str, TableDriver] = {}
        self.keeper: Keeper | None = None
        """The node's keeper, which hands a shed table's lease over (set by the server)."""
        self.accepting = True
        self._closed = False
        self._background: set[asyncio.Task[Any]] = set()
        hub.on_last_close = self.last_close
        hub.on_unwatch = self.unwatched

    def cancel_background(self) -> None:
        """Cancel the table work still running in the background (at the very end)."""
        for task in list(self._background):
            task.cancel()

    async def take(self, table_id: str) -> int:
        # One transaction raises the table's epoch and voids the rounds it left in escrow:
        # from here on the database refuses the writes of whoever ran it before.
        taken = await asyncio.to_thread(self.store.take_table, table_id, self.node_id)
        if taken.voided:
            log.warning("voided unfinished rounds", extra={"rounds": taken.voided})
            self.metrics.rounds_voided.labels(VOID_CRASH).inc(len(taken.voided))
        log.info("table taken", extra={"table_id": table_id, "epoch": taken.epoch})
        room = self.config.table_room()[table_id]
        cfg = table_config(room, table_id).scaled(self.speed)
        if self.rollback is not None:
            await asyncio.to_thread(self.rollback.before_take, table_id)
        give = await shoes.deal_on(self.store, self.keys, table_id, cfg)
        driver = self.start_table(table_id, taken.epoch, suspended=taken.suspended, prepare=give)
        try:
            await self.seating.restore(driver, taken.seats)
        except Exception as exc:
            log_failure(log, "seats not restored", exc, {"table_id": table_id})
        return taken.epoch

    async def regained(self, table_id: str) -> bool:
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

    async def confirm(self, table_ids: Sequence[str]) -> set[str]:
        """Which of these tables the database still gives this node (their epoch is the one
        their driver holds): the directory could not renew their leases, and a table plays
        on through a Redis outage until another node has really taken it."""
        running = {t: d for t in table_ids if (d := self.drivers.get(t)) is not None and d.running}
        if not running:
            return set()
        now = await asyncio.to_thread(self.store.epochs_of, list(running))
        return {t for t, d in running.items() if not d.ledger.fenced and now[t] == d.ledger.epoch}

    async def taker_alive(self, table_id: str) -> str | None:
        """The node that took the table over from this one, while it runs (it renews its
        console address in the database); None once it is gone."""
        taker = await asyncio.to_thread(self.store.holder_of, table_id)
        if taker is None or taker == self.node_id:
            return None
        return taker if taker in await asyncio.to_thread(self.store.fresh_nodes) else None

    def _taken_over(self, table_id: str) -> None:
        """The database refused this node's epoch: the table stops here (``Keeper``)."""
        if self.keeper is not None:
            self.spawn(self.keeper.taken_over(table_id))

    def start_table(
        self,
        table_id: str,
        epoch: int,
        *,
        suspended: str | None = None,
        prepare: Callable[[Table], None] | None = None,
    ) -> TableDriver:
        room = self.config.table_room()[table_id]
        table = Table(table_config(room, table_id).scaled(self.speed), Shoe.fresh)
        # A table an operator closed stays closed on whichever node runs it next.
        table.suspended = suspended
        if prepare is not None:
            prepare(table)  # the shoe it was dealing before a restart, before its first step
        driver = TableDriver(
            table,
            table_id=table_id,
            room_id=room.room_id,
            names=room.names_of(table_id),
            hub=self.hub,
            seats=self.seating.seats,
            store=self.store,
            metrics=self.metrics,
            epoch=epoch,
            inflight=self.inflight,
            squeeze_interval=1 / self.squeeze_rate,
            keys=self.keys,
        )
        driver.ledger.wallet = self.seating.wallet
        driver.ledger.on_fenced = lambda: self._taken_over(table_id)
        if self.rollback is not None:
            driver.on_recorded = self.rollback.recorded
        driver.ledger.on_away = Recheck(driver).start
        driver.on_dealer_turn = lambda uid: self.spawn(self.seating.dealer_turn(driver, uid))
        self.drivers[table_id] = driver
        driver.start()
        self.hub.changed.add(table_id)
        # The table's line goes out now (published to the other nodes), not at the next tick.
        line = self.line(table_id)
        if line is not None:
            self.outbox.put(line)
        self.metrics.tables.set(len(self.drivers))
        return driver

    async def gained(self, table_id: str, token: int) -> None:
        # No other node runs the table now: a round it left in escrow is over.
        if not self.accepting:
            raise RuleViolation("table_closed", "The node is shutting down.")
        log.info("table lease gained", extra={"table_id": table_id, "token": token})
        await self.take(table_id)

    async def lost(self, table_id: str) -> None:
        # Another node runs the table now (or this node is leaving): stop it here at once.
        driver = self.drivers.pop(table_id, None)
        if driver is None:
            return
        self.metrics.tables.set(len(self.drivers))
        try:
            if driver.running:
                await driver.stop(0.0)
        finally:
            seats = self.seating.seats
            seated = [u for u, at in seats.at.items() if at.table_id == table_id]
            seats.record(table_id, {})
            self.hub.changed.add(table_id)
            # The table runs elsewhere now (or soon): its screens reconnect and find it.
            conns = set(self.hub.watchers.get(table_id, ()))
            for user_id in seated:
                conns.update(self.hub.by_user.get(user_id, ()))
            for conn in conns:
                self.hub.unwatch(conn)
                conn.drop(CLOSE_TABLE_MOVED, "table_moved")

    def line(self, table_id: str) -> LineJson | None:
        """A local table's line as every node shows it, None for a table not run here.

        Without a public URL nobody is ever sent here from elsewhere: the line stays as the
        table gives it."""
        driver = self.drivers.get(table_id)
        if driver is None:
            return None
        if not self.public_url:
            return driver.line().json()
        return driver.line().placed(self.node_id, self.public_url).json()

    async def drain(self, keeper: Keeper) -> None:
        """Stop taking sockets and tables; close every table (the round in play finishes,
        none starts) and hand each to another node (``keeper``) as soon as its round is
        over. A round still in escrow when the grace runs out is voided."""
        if self._closed:
            return
        self._closed = True
        self.accepting = False
        keeper.stop_taking()
        await asyncio.gather(*(self.hand_over(t, d, keeper) for t, d in list(self.drivers.items())))
        self.metrics.tables.set(0)

    def shed(self, table_id: str) -> None:
        """Hand a table over to the node the placement gives it, as its round ends (the same
        planned handover as a stop's: nothing voided, seats kept, screens sent on)."""
        driver = self.drivers.get(table_id)
        if driver is None or not self.accepting or self.keeper is None:
            return
        self.spawn(self.hand_over(table_id, driver, self.keeper))

    async def hand_over(self, table_id: str, driver: TableDriver, keeper: Keeper) -> None:
        await driver.close(self.shutdown_grace)
        # Its lease and line go now: another node takes the table with its seats, and the
        # table's screens are sent to find it (4002).
        await keeper.give_back(table_id)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def tell(self, table_id: str, cmd: Command) -> None:
        """Hand the table a command in the background. The table may refuse (already
        marked, grace over, stopping): nothing to tell anyone."""
        driver = self.drivers.get(table_id)
        if driver is not None:
            self.spawn(_quietly(driver.submit(driver.command(cmd))))

    def last_close(self, user_id: int) -> None:
        where = self.seating.seats.get(user_id)
        if where is not None and self.accepting:
            self.tell(where.table_id, Disconnect(user_id))

    def reconnected(self, user_id: int, table_id: str) -> None:
        """A seated user opened their first connection again."""
        self.tell(table_id, Reconnect(user_id))

    def rewatch(self, conn: Connection, table_id: str) -> None:
        """Make a seated user's new connection watch its table (a snapshot follows)."""
        driver = self.drivers.get(table_id)
        if driver is not None:
            # A table that is stopping is found again when the connection comes back.
            self.spawn(_quietly(driver.watch(conn)))

    def unwatched(self, conn: Connection, table_id: str) -> None:
        """A user who no longer watches a table (nor sits there) leaves its dealer queue."""
        driver = self.drivers.get(table_id)
        uid = conn.user_id
        if driver is None or not self.accepting or queue_position(driver.table, uid) is None:
            return
        if self.seating.seats.table_of(uid) == table_id:
            return
        if any(c.watching == table_id for c in self.hub.by_user.get(uid, ())):
            return
        self.tell(table_id, LeaveQueue(uid, "away"))


async def _quietly(job: Awaitable[None]) -> None:
    with contextlib.suppress(Exception):
        await job
