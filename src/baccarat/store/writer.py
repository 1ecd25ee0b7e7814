"""Group commit: one thread applies every queued ledger operation in one DB transaction.

Under load, operations queue up while the previous transaction is being made durable, so
the next commit carries many rounds for the price of one fsync. Each operation keeps its
own idempotency key, and a rejected one does not disturb its neighbours. If the batch's
transaction fails as a whole (a lock timeout, a unique key raced by another process), it
is rolled back and every operation is retried alone.

When operations arrive steadily but each finds the writer idle (many tables, each writing
a few times a round), every one would pay a whole transaction: its commit, its fsync and
the statements' fixed cost. A writer that took more than one operation per gathering window
over the last second, some of them together, therefore waits up to that window for more
before it commits, and no longer than twice the recent gap between two for the next one
(PostgreSQL's ``commit_delay`` with its ``commit_siblings``): a few milliseconds more for
each write, for a fraction of the CPU. A quiet writer commits at once, and so does one fed
by a single caller that waits for each write before the next (there is nobody else to wait
for).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future

import sqlalchemy as sa

from baccarat.store.batch import apply_ops
from baccarat.store.ops import Op, Outcome
from baccarat.store.records import Applied
from baccarat.store.standby import met_standby

log = logging.getLogger(__name__)

_UNREACHABLE = (sa.exc.OperationalError, sa.exc.InterfaceError)
"""What a database that does not answer raises (a connection refused or lost); a write that
met a standby during a failover counts the same (``met_standby``)."""

MAX_BATCH = 512
RETRIES = 5
GATHER = 0.04
"""Seconds a busy writer waits for more operations before it commits what it holds."""
RATE_WINDOW = 1.0
"""Seconds over which the writer counts the operations it took, to tell whether it is busy."""

_Item = tuple[Op, "Future[Applied]"]


class Writer:
    """Owns the write path of one store: a queue and the thread that drains it."""

    def __init__(
        self, engine: sa.Engine, max_batch: int = MAX_BATCH, gather: float = GATHER
    ) -> None:
        self._engine = engine
        self._max_batch = max_batch
        self._gather = gather
        self._batches: deque[tuple[float, int]] = deque()
        """When the writer began each batch of the last ``RATE_WINDOW`` seconds, and its size."""
        self._taken = 0
        """The operations in those batches."""
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._unreachable = False
        """The last batch failed for a database that does not answer (said once)."""
        self.commits = 0
        """How many transactions the writer committed (to observe batching)."""
        self.writes = 0
        """How many operations those transactions carried."""

    def submit(self, op: Op) -> Future[Applied]:
        """Queue ``op``; the future resolves to its outcome once it is durable."""
        fut: Future[Applied] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the store is closed")
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="baccarat-store-writer", daemon=True
                )
                self._thread.start()
            self._queue.put((op, fut))
        return fut

    def close(self) -> None:
        """Finish what is queued, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
            self._queue.put(None)
        if thread is not None:
            thread.join()

    def _loop(self) -> None:
        stop = False
        while not stop:
            item = self._queue.get()
            if item is None:
                break
            began = time.monotonic()
            batch, stop = self._fill_batch(item, began)
            self._count(began, len(batch))
            self._commit_or_fail(batch)

    def _fill_batch(self, first: _Item, began: float) -> tuple[list[_Item], bool]:
        """A batch begun with ``first`` and what joins it in time; True once close() asked."""
        batch = [first]
        until, patience = self._gather_plan(began)
        while len(batch) < self._max_batch:
            try:
                nxt = self._next_item(until, patience)
            except queue.Empty:
                break
            if nxt is None:
                return batch, True
            batch.append(nxt)
        return batch, False

    def _next_item(self, until: float, patience: float) -> _Item | None:
        """The next queued item, waited for while the batch may; queue.Empty if none comes."""
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            left = min(until - time.monotonic(), patience)
            if left <= 0:
                raise
            return self._queue.get(timeout=left)

    def _commit_or_fail(self, batch: Sequence[_Item]) -> None:
        try:
            self._commit(batch)
        except Exception as err:  # the thread must outlive any one batch
            if isinstance(err, _UNREACHABLE) or met_standby(err):
                # The database does not answer: its callers retry each write; one line says so.
                if not self._unreachable:
                    log.warning(
                        "store writer: the database does not answer",
                        extra={"error": str(err).splitlines()[0]},
                    )
                self._unreachable = True
            else:
                log.exception("store writer failed a batch")
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(err)
            return
        if self._unreachable:
            log.warning("store writer: the database answers again")
            self._unreachable = False

    def _gather_plan(self, now: float) -> tuple[float, float]:
        """Until when to wait for more operations before committing a batch begun now, and
        how long to wait for the next one at most: twice the recent gap between two. Callers
        that wait for their writes before sending more (a closed loop) stop sending while
        their writes wait here, and the batch goes without them."""
        batches = self._batches
        while batches and now - batches[0][0] > RATE_WINDOW:
            self._taken -= batches.popleft()[1]
        expected = self._taken * self._gather / RATE_WINDOW
        # More than one operation expected within a window, and writers that overlap (some
        # batch held more than one): waiting for the next pays.
        if expected + self._gather / RATE_WINDOW > 1 and self._taken > len(batches):
            return now + self._gather, 2 * RATE_WINDOW / self._taken
        return now, 0.0

    def _count(self, began: float, size: int) -> None:
        self._batches.append((began, size))
        self._taken += size

    def _commit(self, batch: Sequence[_Item]) -> None:
        # A future whose waiter gave up (an asyncio task cancelled around wrap_future) is
        # applied all the same, since it was asked for; only its result has nobody to go to.
        # Marking the others running first means no cancel can race the result below.
        waiting = [fut.set_running_or_notify_cancel() for _, fut in batch]
        ops = [op for op, _ in batch]
        outcomes: list[Outcome | BaseException]
        try:
            outcomes = list(self.apply(ops))
        except Exception:
            log.debug("batch of %d failed; retrying one by one", len(ops), exc_info=True)
            outcomes = [self._apply_alone(op) for op in ops]
        for (_, fut), out, wanted in zip(batch, outcomes, waiting, strict=True):
            if not wanted:
                continue
            if isinstance(out, BaseException):
                fut.set_exception(out)
            else:
                fut.set_result(out)

    def apply(self, ops: Sequence[Op]) -> list[Outcome]:
        """Apply ``ops`` in one transaction on the calling thread."""
        with self._engine.begin() as conn:
            outcomes = apply_ops(conn, ops)
        self.commits += 1
        self.writes += len(ops)
        return outcomes

    def _apply_alone(self, op: Op) -> Outcome | BaseException:
        last: BaseException | None = None
        for attempt in range(RETRIES):
            try:
                return self.apply([op])[0]
            except sa.exc.DBAPIError as err:
                # A lock timeout, a deadlock, or another process writing the same key:
                # the retry reads again and replays or applies cleanly.
                last = err
                time.sleep(0.01 * (attempt + 1))
            except Exception as err:
                return err
        assert last is not None
        return last
