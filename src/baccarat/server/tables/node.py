"""This server as a node of the system: the tables it leases, its users' seat claims, the lobby.

Every server is a node; a single server is a system of one, on a ``LocalDirectory``. The
node runs only the tables whose lease it holds, keeps its seated users' claims in the
directory alive (``SeatClaims``: a user holds one seat in the whole system) and publishes
its tables' lobby lines (``LineOutbox``); the lobby reads every node's from the directory. A
node with a public URL (one of many, ``--redis``) has its lines name it and that URL
(``Tables.line``), so that clients can find the node a table runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from baccarat.cluster import Directory, LobbyChange
from baccarat.cluster.follow import follow_lobby
from baccarat.cluster.keeper import DEFAULT_TTL, Confirm, Keeper, TakerAlive
from baccarat.cluster.outage import log_failure
from baccarat.cluster.placement import Pins
from baccarat.protocol.lobby import LineJson
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables.claims import SeatClaims
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.outbox import LineOutbox
from baccarat.server.tables.seatmap import SeatMap

log = logging.getLogger("baccarat.server")


class Node:
    """The node's standing in the directory, and the tasks that keep it."""

    def __init__(
        self,
        directory: Directory,
        hub: Hub,
        claims: SeatClaims,
        outbox: LineOutbox,
        seats: SeatMap,
        *,
        node_id: str,
        public_url: str,
        table_ids: list[str],
        start_table: Callable[[str, int], Awaitable[None]],
        stop_table: Callable[[str], Awaitable[None]],
        summary_of: Callable[[str], LineJson | None],
        rank_of: Callable[[str], int],
        regained: Callable[[str], Awaitable[bool]] | None = None,
        confirm: Confirm | None = None,
        taker_alive: TakerAlive | None = None,
        on_operator: Callable[[LineJson], None] | None = None,
        ttl: float = DEFAULT_TTL,
        inflight: CoinsInFlight | None = None,
        share: tuple[int, int] | None = None,
        shed_table: Callable[[str], None] | None = None,
        pins: Pins | None = None,
    ) -> None:
        self.directory = directory
        self.hub = hub
        self.claims = claims
        self.outbox = outbox
        self.seats = seats
        self.node_id = node_id
        self.ttl = ttl
        self.summary_of = summary_of
        """The current line of a table this node runs, to keep it from expiring."""
        self.rank_of = rank_of
        """A table's place in the lobby (the rooms file's order)."""
        self.on_operator = on_operator
        """Carries out an operator's word heard by every node (a ban, a notice)."""
        self.inflight = inflight if inflight is not None else CoinsInFlight()
        self._held_claims: dict[int, str] = {}
        """Users who left their seat while a round here holds their coins: their claim in the
        directory is kept (and renewed) until that round lands in the ledger."""
        self.inflight.on_landed = self._landed
        self.keeper = Keeper(
            directory,
            node_id,
            public_url,
            table_ids,
            on_gained=start_table,
            on_lost=stop_table,
            seats=self._claims,
            on_seat_lost=self._seat_lost,
            on_regained=regained,
            on_confirm=confirm,
            taker_alive=taker_alive,
            ttl=ttl,
            share=share,
            on_shed=shed_table,
            pins=pins,
        )
        self._tasks: list[asyncio.Task[None]] = []
        seats.on_freed = self._seat_freed

    @property
    def public_url(self) -> str:
        """Where clients reach this node."""
        return self.keeper.public_url

    async def start(self) -> None:
        """Take the tables that are free now, then keep renewing and following the lobby."""
        await self.keeper.tick()
        self.keeper.start()
        self._tasks = [
            asyncio.create_task(self._publish_lines(), name="lobby-publish"),
            asyncio.create_task(
                follow_lobby(self.directory, self._heard),
                name="lobby-follow",
            ),
        ]

    async def stop(self) -> None:
        """Give every lease, line and seat claim back (the tables have stopped)."""
        self.seats.on_freed = None
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        try:
            for user_id, table_id in self._claims().items():
                await self.claims.release(user_id, table_id)
        except Exception:
            # The claims left run out on their own within a lease's time.
            log.warning("seat claims not given back", exc_info=True)
        self._held_claims.clear()
        await self.keeper.stop()

    # -- seats ------------------------------------------------------------------------

    def _claims(self) -> dict[int, str]:
        """The claims this node keeps: every seated user's, and those held for coins in play."""
        claims = dict(self._held_claims)
        claims.update({u: at.table_id for u, at in self.seats.at.items()})
        return claims

    def _seat_freed(self, user_id: int, table_id: str) -> None:
        if self.inflight.tables_of(user_id):
            # Coins still in a round here: no other node may seat the user on a balance its
            # settlement is about to change, so the claim stays until the round lands.
            self._held_claims[user_id] = table_id
            return
        self._spawn(self.claims.release(user_id, table_id))

    def _landed(self, user_id: int) -> None:
        table_id = self._held_claims.pop(user_id, None)
        if table_id is not None and self.seats.table_of(user_id) != table_id:
            self._spawn(self.claims.release(user_id, table_id))

    def _seat_lost(self, user_id: int) -> None:
        # The directory lost the claim (Redis restarted): claim it again where the user sits.
        where = self.seats.get(user_id)
        if where is not None:
            self._spawn(self.claims.claim(user_id, where.table_id, where.seat))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[Any]) -> None:
        with contextlib.suppress(ValueError):
            self._tasks.remove(task)
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            # Redis away: a claim not given back runs out by itself, one not renewed is
            # claimed again by the keeper; a warning, not a traceback.
            log_failure(log, "directory call failed", exc)

    # -- lobby ------------------------------------------------------------------------

    async def _publish_lines(self) -> None:
        # One task publishes, so a table's lines reach the directory in the order they
        # changed; every ttl / 3 the lines of held tables are refreshed before they expire.
        # Where nothing runs out (a system of one) there is no refresh.
        loop = asyncio.get_running_loop()
        refresh_at = loop.time() + self.ttl / 3 if self.directory.expires else None
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(refresh_at):
                    await self.outbox.wait()
            pending = self.outbox.take()
            due = set(pending)
            if refresh_at is not None and loop.time() >= refresh_at:
                # The refresh republishes every held table before its line expires.
                due |= set(self.keeper.held)
                refresh_at = loop.time() + self.ttl / 3
            for table_id in due:
                summary = pending.get(table_id) or self.summary_of(table_id)
                if summary is None:
                    continue
                try:
                    await self.directory.publish(
                        self.node_id,
                        summary,
                        self.ttl,
                        rank=self.rank_of(table_id),
                    )
                except Exception as exc:
                    log_failure(log, "lobby line not published", exc, {"table_id": table_id})
                    if table_id in pending:
                        # Published with the next change or refresh, whichever comes.
                        self.outbox.put_back(summary)

    def _heard(self, change: LobbyChange) -> None:
        if change.operator is not None:
            if self.on_operator is not None:
                self.on_operator(change.operator)
        elif change.summary is None and change.table_id in self.keeper.table_ids:
            # A node gave one of our tables up: take it now rather than at the next tick.
            self.keeper.wake()
