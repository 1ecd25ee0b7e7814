"""The loop's stalls: a callback that holds the loop shows as a late wake-up."""

from __future__ import annotations

import asyncio
import time

from baccarat.server import stalls


async def test_a_callback_that_holds_the_loop_is_seen_as_that_late() -> None:
    seen: list[float] = []
    watcher = asyncio.create_task(stalls.watch(seen.append, interval=0.02))
    try:
        while len(seen) < 3:
            await asyncio.sleep(0.01)
        before = len(seen)
        # A synchronous 300 ms in the middle of the loop: the wake-up due meanwhile comes at
        # least 300 - 20 ms late.
        time.sleep(0.3)
        while len(seen) < before + 2:
            await asyncio.sleep(0.01)
    finally:
        watcher.cancel()
    assert max(seen[before:]) >= 0.25
    assert all(s >= 0 for s in seen)
