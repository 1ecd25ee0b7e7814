"""Writes that wait out a database outage: retried with their idempotency keys until done.

A ledger operation carries its own key, so sending it again after an uncertain failure (the
connection dropped before the commit was confirmed) either applies it or replays it. What is
not worth retrying is a refusal (a ``BaccaratError``: the database answered no), or a write
whose table is being given up (its lease is gone, or the node is stopping).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from baccarat.errors import BaccaratError

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
