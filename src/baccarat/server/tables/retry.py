"""A table's writes: retried with their idempotency keys until done, under the table's epoch.

A write waits out a database outage, and the table's time stands still meanwhile (``paused``).

A ledger operation carries its own key, so sending it again after an uncertain failure (the
connection dropped before the commit was confirmed) either applies it or replays it. What is
not worth retrying is a refusal (a ``BaccaratError``: the database answered no), or a write
whose table is being given up (its lease is gone, or the node is stopping). A refusal for a
stale epoch says that another node runs the table now (``fenced``): the table stops here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from baccarat.errors import BaccaratError, Conflict
from baccarat.server.metrics import Metrics
from baccarat.store import Applied, Store
from baccarat.store.ops import Op

log = logging.getLogger("baccarat.server")

T = TypeVar("T")

FIRST_WAIT = 0.1
LONGEST_WAIT = 2.0
"""Seconds between attempts: doubling from the first to the longest."""


class GaveUp(Exception):
    """The write was abandoned: its table stopped while the database was unreachable."""


async def until_written(
    attempt: Callable[[], Awaitable[T]],
    *,
    given_up: Callable[[], bool],
    waiting: Callable[[bool], None],
    what: str,
    retried: Callable[[], None] = lambda: None,
) -> T:
    """Run ``attempt`` until it succeeds or is refused; ``waiting(True)`` while it fails,
    and ``retried()`` for each failure that will be tried again."""
    delay = FIRST_WAIT
    failures = 0
    try:
        while True:
            try:
                return await attempt()
            except BaccaratError:
                raise
            except Exception as exc:
                if given_up():
                    raise GaveUp(f"{what} abandoned: the table stopped") from exc
                failures += 1
                if failures == 1 or failures % 10 == 0:
                    log.warning(
                        "database unreachable; retrying",
                        extra={"write": what, "attempts": failures, "error": str(exc)},
                    )
                retried()
                waiting(True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, LONGEST_WAIT)
            if given_up():
                raise GaveUp(f"{what} abandoned: the table stopped")
    finally:
        if failures:
            waiting(False)


VOIDED_TAKEN_OVER = "taken_over"
"""A void counted here that the node taking the table over wrote (as a ``crash``)."""
VOIDED_ABANDONED = "abandoned"
"""A round whose stakes never reached the database: its table stopped meanwhile."""


class TableWrites:
    """One table's way to the store: each write retried until done, carrying the epoch."""

    def __init__(self, store: Store, metrics: Metrics, table_id: str, epoch: int) -> None:
        self.store = store
        self.metrics = metrics
        self.table_id = table_id
        self.epoch = epoch
        """The table's epoch this node holds; every write carries it."""
        self.fenced = False
        """The database refused this node's epoch: another node runs the table now."""
        self.on_fenced: Callable[[], None] | None = None
        self.paused = False
        """A write is waiting for the database to answer again."""
        self.on_paused: Callable[[], None] | None = None
        """Called when ``paused`` changes (the table's time stands still meanwhile)."""
        self.given_up = False
        """The table is stopping: a write that cannot be done now is abandoned."""
        self.lock = asyncio.Lock()
        """Held by each step's writes: one at a time, so the epoch never changes under one."""

    def waiting(self, on: bool, *, quiet: bool = False) -> None:
        """Mark the table paused (or resumed) while a write waits."""
        if on and not self.paused and not quiet:
            log.warning("table paused: waiting for the database", extra={"table_id": self.table_id})
        elif not on and self.paused and not quiet:
            log.warning("table resumed", extra={"table_id": self.table_id})
        changed = on != self.paused
        self.paused = on
        if changed and self.on_paused is not None:
            self.on_paused()

    async def write(self, op: Op) -> Applied:
        """Submit a ledger operation until the writer takes it (or refuses it)."""
        return await until_written(
            lambda: asyncio.wrap_future(self.store.submit(op)),
            given_up=lambda: self.given_up,
            waiting=self.waiting,
            what=op.key,
            retried=self.metrics.ledger_retries.inc,
        )

    async def call(self, what: str, fn: Callable[..., T], *args: object) -> T:
        """Call one of the store's methods in a thread until it answers."""
        return await until_written(
            lambda: asyncio.to_thread(fn, *args),
            given_up=lambda: self.given_up,
            waiting=self.waiting,
            what=what,
            retried=self.metrics.ledger_retries.inc,
        )

    async def standing_still(self, call: Awaitable[T]) -> T:
        """A call to the platform's wallet, the table's time standing still meanwhile: no
        countdown (a betting's, a squeeze's) runs while the platform answers."""
        self.waiting(True, quiet=True)
        try:
            return await call
        finally:
            self.waiting(False, quiet=True)

    def void_reason(self, otherwise: str) -> str:
        """Why a round whose write failed is void: taken over, abandoned, or ``otherwise``."""
        if self.fenced:
            return VOIDED_TAKEN_OVER
        return VOIDED_ABANDONED if self.given_up else otherwise

    def note_fenced(self, exc: BaseException) -> bool:
        """Whether ``exc`` says another node holds the table now (remembered, and told once
        to ``on_fenced``: the table stops here)."""
        if not self.fenced and isinstance(exc, Conflict) and exc.code == "stale_epoch":
            self.fenced = True
            if self.on_fenced is not None:
                self.on_fenced()
        return self.fenced
