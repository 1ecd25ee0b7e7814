"""The work a table's task runs, one job at a time."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from baccarat.server.sockets.replies import Reply
from baccarat.table import Event


@dataclass
class Job:
    """Work for the table's task: ``run(now)`` returns the events it caused.

    The task hands the outcome to ``reply`` (an ack, or the refusal) once the events are
    out, then runs ``after`` if the job was carried out."""

    run: Callable[[float], list[Event]]
    reply: Reply | None = None
    after: Callable[[], None] | None = None
    prepare: Callable[[], Awaitable[None]] | None = None
    """Read what ``run`` needs, in the task, after the table's earlier writes landed."""
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


def stop_job(now: float) -> list[Event]:
    """The last job a table's task runs: it causes nothing, and the task ends after it."""
    return []


def wake(waiter: asyncio.Future[None]) -> None:
    """Wake a task that awaits ``waiter`` (once)."""
    if not waiter.done():
        waiter.set_result(None)


class JobQueue:
    """A table's jobs, oldest first, and the one wait of its idle task.

    The task sleeps on a bare future that ``post`` completes: a job posted reaches the table
    at the loop's next turn, with no task or timer made per job. One timer wakes it at the
    next deadline."""

    def __init__(self, base_clock: Callable[[], float], tick: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.base_clock = base_clock
        self.tick = tick
        """A time less than this away counts as come (the loop's timers' resolution)."""
        self.jobs: deque[Job] = deque()
        self.waiter: asyncio.Future[None] | None = None
        """What the idle task awaits: done when a job comes or a deadline falls due."""
        self._timer: asyncio.TimerHandle | None = None
        self._wakes_at: float | None = None
        """When the idle task's timer wakes it (the base clock), None without a timer."""

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def idle(self) -> bool:
        """Whether the task sleeps with nothing posted."""
        return self.waiter is not None and not self.waiter.done() and not self.jobs

    def post(self, job: Job | None) -> None:
        """A job for the task (None: only look at the deadlines again)."""
        if job is not None:
            self.jobs.append(job)
        if self.waiter is not None:
            wake(self.waiter)

    async def next(self, due: float | None) -> Job | None:
        """The oldest job, or None once ``due`` (base clock) has come."""
        if not self.jobs:
            timeout = None if due is None else due - self.base_clock()
            if timeout is None or timeout > self.tick:
                await self._sleep(due, timeout)
            else:
                # Overdue: let the rest of the loop run before the step, whatever happens.
                await asyncio.sleep(0)
        return self.jobs.popleft() if self.jobs else None

    async def _sleep(self, due: float | None, timeout: float | None) -> None:
        waiter = self.waiter = self.loop.create_future()
        if due is not None and timeout is not None:
            self._arm(waiter, due, timeout)
        try:
            await waiter
        finally:
            self.waiter = None
            self._wakes_at = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def wake_by(self, due: float) -> bool:
        """Make the idle task wake at ``due`` at the latest, without waking it now; False
        when ``due`` has come (or the task is busy: it looks at its deadlines next anyway)."""
        waiter = self.waiter
        if waiter is None or waiter.done():
            return False
        timeout = due - self.base_clock()
        if timeout <= self.tick:
            return False
        if self._wakes_at is None or due < self._wakes_at:
            self._arm(waiter, due, timeout)
        return True

    def _arm(self, waiter: asyncio.Future[None], due: float, timeout: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(timeout, wake, waiter)
        self._wakes_at = due
