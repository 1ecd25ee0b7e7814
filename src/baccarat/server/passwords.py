"""Password hashing on a few threads of its own, behind a bounded queue.

Every argon2 hash holds its memory (19 MiB) and a core for tens of milliseconds. Run on the
default thread pool, a burst of logins would fill every thread of it, so database reads,
WebSocket logins and ``sit`` would wait behind the hashes, and memory would grow with the
number of threads. Here at most ``workers`` hashes run at once and at most ``queue`` more
wait; a job past that is refused at once with :class:`PasswordsBusy` (the server answers
503 with Retry-After) instead of joining an ever longer line.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from baccarat.errors import BaccaratError

T = TypeVar("T")

RETRY_AFTER = 2
"""Seconds a refused client is asked to wait (a hash takes tens of milliseconds)."""


class PasswordsBusy(BaccaratError):
    """Every password thread is busy and the queue is full."""

    default_code = "server_busy"


class PasswordPool:
    """A small executor for password work, with a limit on the jobs it holds."""

    def __init__(self, workers: int, queue: int) -> None:
        self.capacity = workers + queue
        """Jobs running or waiting, at most."""
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="baccarat-password")
        self._lock = threading.Lock()
        self._jobs = 0
        self.refused = 0
        """Jobs refused because the pool was full (since start)."""

    @property
    def jobs(self) -> int:
        """Jobs running or waiting now."""
        return self._jobs

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` on a password thread; PasswordsBusy when the pool is full."""
        with self._lock:
            if self._jobs >= self.capacity:
                self.refused += 1
                raise PasswordsBusy(
                    "server_busy",
                    "The server is busy checking other passwords; try again in a few seconds.",
                )
            self._jobs += 1
        try:
            future = self._executor.submit(fn, *args)
        except BaseException:
            self._release(None)
            raise
        # Counted down when the job ends, not when the request does: a client that hangs
        # up does not free a thread that is still hashing for it.
        future.add_done_callback(self._release)
        return await asyncio.wrap_future(future)

    def _release(self, _future: object) -> None:
        with self._lock:
            self._jobs -= 1

    def close(self) -> None:
        """Drop waiting jobs and let running ones finish in the background."""
        self._executor.shutdown(wait=False, cancel_futures=True)
