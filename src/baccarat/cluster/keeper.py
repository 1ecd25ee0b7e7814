"""A node's standing in the directory: its heartbeat, the tables it leases, its users' seats.

Every period (``ttl / 3``, at most ``MAX_PERIOD``) the keeper announces the node, renews
each lease it holds, tries to lease every table nobody holds, and renews the seat claims of
the users seated here. Three renewals fit in one time-to-live, so one slow tick does not
lose anything; a short period means a table whose node died is taken soon after its lease
runs out. In a system of one (a directory where nothing runs out) there is nothing to
renew: a tick only announces the node and leases the tables not held yet.

A node that finds the directory has forgotten it although it renewed in time knows the
directory lost its data (Redis restarted empty): for one ttl it takes no table it did not
hold, so that each other node can lease its own tables again first.

A refused renewal means the directory no longer has the lease as this node holds it. If
nobody else holds it either (Redis restarted empty), the keeper leases the table again and
asks ``on_regained`` to confirm with the database that nobody took the table meanwhile: the
table keeps playing. Otherwise the table stops here at once.

A lease that could not be renewed in time (Redis away, or this node cut off from it) does not
stop a table by itself: the database's epoch, which every write of the table carries, is the
word on who may run it. So the keeper asks ``on_confirm`` each period which of those tables
the database still gives this node, and stops only the others (another node took them over,
raising their epoch). A Redis restart thus voids nothing, and a node cut off from Redis stops
a table as soon as another node has taken it. After the directory failed, a node takes no
table it did not hold for one ttl, so that every holder leases its own tables again first.

A table whose write the database refused for a stale epoch was taken over by a node this one
may not see in its directory (another system on the same database): it stops here, its lease
is given back, and it is not taken again while ``taker_alive`` names a live taker outside
this system's nodes (the node's health lists it).

The keeper also keeps what an operator watches: when the node last wrote its heartbeat, how
many nodes' heartbeats it saw then, and how many tables it stopped for a lost lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

from baccarat.cluster.directory import Directory
from baccarat.cluster.outage import Outage, log_failure
from baccarat.cluster.placement import Balance, Pins, balance

log = logging.getLogger("baccarat.cluster")


def _now() -> float:
    return asyncio.get_running_loop().time()


DEFAULT_TTL = 10.0
"""Seconds a lease, a seat claim or a heartbeat outlives its node's last renewal."""

MAX_PERIOD = 1.0
"""Seconds between ticks at most, whatever the ttl."""

LOST_REASONS = ("refused", "expired")
"""Why a lease is lost: its renewal was refused (another node holds the table, or the
database says another node took it), or it ran out before a renewal got through (the
directory did not answer) and the database says another node took the table since."""

Shed = Callable[[str], None]
Gained = Callable[[str, int], Awaitable[None]]
Lost = Callable[[str], Awaitable[None]]
Regained = Callable[[str], Awaitable[bool]]
Confirm = Callable[[Sequence[str]], Awaitable[set[str]]]
TakerAlive = Callable[[str], Awaitable[str | None]]


class Keeper:
    """Holds what one node holds, and renews it until stopped."""

    def __init__(
        self,
        directory: Directory,
        node_id: str,
        public_url: str,
        table_ids: Iterable[str],
        *,
        on_gained: Gained,
        on_lost: Lost,
        seats: Callable[[], Mapping[int, str]] = dict,
        on_seat_lost: Callable[[int], None] | None = None,
        on_regained: Regained | None = None,
        on_confirm: Confirm | None = None,
        taker_alive: TakerAlive | None = None,
        ttl: float = DEFAULT_TTL,
        share: tuple[int, int] | None = None,
        on_shed: Shed | None = None,
        pins: Pins | None = None,
    ) -> None:
        self.directory = directory
        self.node_id = node_id
        self.public_url = public_url
        self.table_ids = tuple(table_ids)
        self.on_gained = on_gained
        self.on_lost = on_lost
        self.seats = seats
        self.on_seat_lost = on_seat_lost
        self.on_regained = on_regained
        self.on_confirm = on_confirm
        """Which tables whose lease ran out the database still gives this node."""
        self.taker_alive = taker_alive
        """The node that took a table over, while it runs; None once it is gone."""
        self.taken: set[str] = set()
        """Tables another node took over, not taken again while it runs."""
        self.ttl = ttl
        self.on_shed = on_shed
        """Hand a table over to another node as its round ends (the placement moves it)."""
        self.pins = pins or {}
        """Tables an operator pinned to some nodes."""
        self.shedding: set[str] = set()
        """Tables being handed over for the placement."""
        self._free_since: dict[str, float] = {}
        self.period = min(ttl / 3, MAX_PERIOD)
        self.held: dict[str, int] = {}
        """Each table this node runs, with its lease token."""
        # Worker i of n on one machine (``serve --workers``) leases every n-th table first
        # and the others only after a ttl, so that the first worker up does not take them all.
        self.first = frozenset(
            t for k, t in enumerate(self.table_ids) if share is None or k % share[1] == share[0]
        )
        self._others_after = _now() + ttl if share is not None else 0.0
        self._valid_until: dict[str, float] = {}
        self.heartbeat_at: float | None = None
        """When the node last wrote its heartbeat to the directory (Unix time)."""
        self.nodes_seen = 0
        """How many nodes' heartbeats the directory held at this node's last tick."""
        self.leases_lost = dict.fromkeys(LOST_REASONS, 0)
        """Tables stopped here because their lease was lost, by reason (``LOST_REASONS``)."""
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._registered_until: float | None = None
        self._quiet_until = 0.0
        self._wake = asyncio.Event()
        self._closing = False
        self._taking = True
        self._left = False
        self._outage = Outage("the directory tick", log)

    async def tick(self) -> None:
        """One round of renewals and acquisitions."""
        # One tick at a time: two could both find a table not held yet and start it twice.
        async with self._lock:
            try:
                await self._tick()
            except Exception:
                # The directory failed: no other table is taken until a ttl after, so
                # that every holder leases its own tables again first.
                self._quiet_until = max(self._quiet_until, _now() + self.ttl)
                raise

    def wake(self) -> None:
        """Tick now rather than at the next period (a table was just given up elsewhere)."""
        self._wake.set()

    async def _tick(self) -> None:
        await self._expire()
        asked = _now()
        if self._taking:
            await self._register(asked)
        elif not self._left:
            # Stopping: out of the placement, so the other nodes take what it hands over.
            await self.directory.leave(self.node_id)
            self._left = True
        if not self.directory.expires:
            # Nothing held runs out (a system of one): only the tables not held yet remain.
            await self._acquire_free()
            await self._count_nodes()
            return
        for table_id, token in list(self.held.items()):
            asked = _now()
            if await self.directory.renew(table_id, self.node_id, token) or await self._regain(
                table_id
            ):
                self._valid_until[table_id] = asked + self.ttl
            else:
                log.warning("table lease lost", extra={"table_id": table_id})
                await self._drop(table_id, "refused")
        await self._acquire_free()
        lost = await self.directory.renew_seats(self.node_id, self.seats(), self.ttl)
        for user_id in lost:
            if self.on_seat_lost is not None:
                self.on_seat_lost(user_id)
        await self._count_nodes()

    async def _register(self, asked: float) -> None:
        known = await self.directory.register(self.node_id, self.public_url, self.ttl)
        self.heartbeat_at = time.time()
        if not known and self._registered_until is not None and asked < self._registered_until:
            log.warning("the directory lost its data; taking no other node's table for a ttl")
            self._quiet_until = asked + self.ttl
        self._registered_until = asked + self.ttl

    async def _count_nodes(self) -> None:
        """Note how many nodes the directory has heard from (last, so renewals go first)."""
        self.nodes_seen = len(await self.directory.nodes())

    async def _acquire_free(self) -> None:
        if not self._taking or _now() < self._quiet_until:
            return
        await self._forget_takers()
        if not self.directory.expires:
            # A system of one runs every table (but those another node took over).
            for table_id in self.table_ids:
                if table_id not in self.held and table_id not in self.taken:
                    await self._try(table_id)
            return
        live = await self.directory.nodes()
        holders = await self.directory.holders(self.table_ids)
        plan = balance(self.node_id, self.table_ids, live, holders, self.pins)
        await self._take(plan)
        self._shed(plan)

    async def _take(self, plan: Balance) -> None:
        """Lease the free tables this node is first in line for, and those it may take that
        have waited a lease's time, or two when it has no room for them (worker i of n: its
        share first, the rest after a ttl)."""
        now = _now()
        others = now >= self._others_after
        since = self._free_since
        self._free_since = {t: since.get(t, now) for t in (*plan.later, *plan.last)}
        waited = [t for t in plan.later if now - self._free_since[t] >= self.ttl]
        waited += [t for t in plan.last if now - self._free_since[t] >= 2 * self.ttl]
        chosen = [t for t in (*plan.take, *waited) if self._may_lease(t, others)]
        # All at once: a node taking over a dead node's tables starts each in its own time
        # (a takeover's transaction, its shoe, its seats), not after the ones before it.
        await asyncio.gather(*(self._try(t) for t in chosen))

    def _may_lease(self, table_id: str, others: bool) -> bool:
        """Whether to lease a free table now: its share first (worker i of n), and never one
        another system's node took over while that node runs."""
        return (others or table_id in self.first) and table_id not in self.taken

    async def taken_over(self, table_id: str) -> None:
        """The database refused this node's epoch of the table: stop it here, give its lease
        back, and leave it to its taker while that node runs."""
        async with self._lock:
            token = self.held.get(table_id)
            if token is None:
                return
            self.taken.add(table_id)
            log.warning(
                "table taken over by another node; stopped here", extra={"table_id": table_id}
            )
            await self._drop(table_id, "refused")
            try:
                await self.directory.release(table_id, self.node_id, token)
            except Exception as exc:
                log_failure(log, "lease not given back", exc, {"table_id": table_id})

    async def _forget_takers(self) -> None:
        """Take a table back once its taker is gone, or is a node of this system (whose
        leases the placement then follows)."""
        if not self.taken:
            return
        live = set(await self.directory.nodes()) if self.directory.expires else set()
        for table_id in sorted(self.taken):
            taker = await self.taker_alive(table_id) if self.taker_alive is not None else None
            if taker is None:
                log.warning("table's taker is gone; taking it back", extra={"table_id": table_id})
            elif taker not in live:
                continue
            self.taken.discard(table_id)

    def _shed(self, plan: Balance) -> None:
        """Hand over, each once, the tables the placement gives to other nodes."""
        self.shedding &= set(self.held)
        if self.on_shed is None:
            return
        for table_id in plan.shed:
            if table_id in self.held and table_id not in self.shedding:
                self.shedding.add(table_id)
                log.info("table handed over for the placement", extra={"table_id": table_id})
                self.on_shed(table_id)

    async def _regain(self, table_id: str) -> bool:
        # The lease is gone from the directory; if nobody holds it, lease it again, and keep
        # the table only if the database agrees nobody took it meanwhile.
        if self.on_regained is None:
            return False
        token = await self.directory.acquire(table_id, self.node_id, self.ttl)
        if token is None:
            return False
        try:
            kept = await self.on_regained(table_id)
        except Exception:
            log.exception("table lease not confirmed", extra={"table_id": table_id})
            kept = False
        if not kept:
            await self.directory.release(table_id, self.node_id, token)
            return False
        log.warning("table lease taken again", extra={"table_id": table_id, "token": token})
        self.held[table_id] = token
        return True

    async def _expire(self) -> None:
        # Without a renewal the lease has run out in the directory too (it counts from
        # later than ``asked``): another node may take the table. It stops here once the
        # database says so (or at once, with nobody to ask).
        now = _now()
        due = [t for t, until in self._valid_until.items() if until <= now]
        if not due:
            return
        kept = await self._confirmed(due)
        for table_id in due:
            if table_id not in kept:
                log.warning("table lease not renewed in time", extra={"table_id": table_id})
                await self._drop(table_id, "expired")

    async def _confirmed(self, table_ids: Sequence[str]) -> set[str]:
        """The tables the database still gives this node; all of them while it cannot say
        (every write of theirs is fenced by the epoch anyway)."""
        if self.on_confirm is None:
            return set()
        try:
            return await self.on_confirm(table_ids)
        except Exception as exc:
            log_failure(log, "table leases not confirmed", exc)
            return set(table_ids)

    async def _drop(self, table_id: str, lost: str | None = None) -> None:
        """Stop the table here; ``lost`` says why its lease was lost (None: given back)."""
        if lost is not None:
            self.leases_lost[lost] += 1
        self.held.pop(table_id, None)
        self._valid_until.pop(table_id, None)
        try:
            await self.on_lost(table_id)
        except Exception:
            log.exception("table did not stop cleanly", extra={"table_id": table_id})

    async def _try(self, table_id: str) -> None:
        asked = _now()
        token = await self.directory.acquire(table_id, self.node_id, self.ttl)
        if token is None:
            return
        try:
            await self.on_gained(table_id, token)
        except Exception as exc:
            # A table this node cannot start is left for another node to take (a database
            # away meanwhile is a warning: the next tick tries again).
            log_failure(log, "table could not start", exc, {"table_id": table_id})
            await self.directory.release(table_id, self.node_id, token)
            return
        self.held[table_id] = token
        if self.directory.expires:
            self._valid_until[table_id] = asked + self.ttl

    def start(self) -> None:
        """Tick now and every period in a task of its own."""
        self._task = asyncio.create_task(self._run(), name=f"keeper-{self.node_id}")

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self.tick()
                self._outage.passed()
            except Exception as exc:
                # Redis unreachable: the tables play on while the database gives them to
                # this node (``_expire``).
                self._outage.failed(exc)
                async with self._lock:
                    await self._expire()
            with contextlib.suppress(TimeoutError):
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel
                # that lands as its timeout fires, and the keeper would never stop.
                async with asyncio.timeout(self.period):
                    await self._wake.wait()
            self._wake.clear()

    async def stop(self) -> None:
        """Stop renewing; give back every lease and line held (the tables stop first)."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        async with self._lock:
            told = await self._give_back()
        if told:
            try:
                await self.directory.unregister(self.node_id)
            except Exception:
                log.warning("the directory was not told the node left", exc_info=True)

    def stop_taking(self) -> None:
        """Lease no table from now on (the node is stopping); keep renewing those held. The
        node stops announcing itself, so the other nodes count it out of the placement."""
        self._taking = False
        self.wake()

    async def give_back(self, table_id: str) -> None:
        """Hand one table over now: stop it here, give its lease back, and tell the other
        nodes (a node stopping for a restart, one table at a time as its round ends)."""
        async with self._lock:
            await self._give_back_one(table_id)

    async def _give_back(self) -> bool:
        # Every table stops; the directory is told until it first fails to answer.
        told = True
        for table_id in list(self.held):
            told = await self._give_back_one(table_id, tell=told)
        return told

    async def _give_back_one(self, table_id: str, *, tell: bool = True) -> bool:
        """Stop the table and give its lease and line back; False if the directory did not
        answer (they then run out on their own within a lease's time)."""
        token = self.held.get(table_id)
        if token is None:
            return tell
        await self._drop(table_id)
        if not tell:
            return False
        try:
            # The lease first, then the line: a node woken by the line finds the lease free.
            await self.directory.release(table_id, self.node_id, token)
            await self.directory.withdraw(table_id, self.node_id)
        except Exception:
            log.warning("lease not given back", extra={"table_id": table_id}, exc_info=True)
            return False
        return True
