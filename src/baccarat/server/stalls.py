"""The event loop's stalls: how late a timer that should wake every ``INTERVAL`` wakes.

Every table, socket and tick of a node runs on one loop, so a callback that holds it (a
garbage collection, a long lobby tick, a burst of snapshots) delays every table's events by
as much. ``watch`` sleeps ``INTERVAL`` again and again and reports how late each wake-up
came: an operator reads the stalls in ``/metrics`` (``baccarat_loop_lag_seconds``), and
``baccarat loadtest`` counts them in each step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

INTERVAL = 0.1
"""Seconds between two looks (ten wake-ups a second cost the loop nothing measurable)."""


async def watch(observe: Callable[[float], None], interval: float = INTERVAL) -> None:
    """Tell ``observe(seconds)`` how late each wake-up came, until cancelled."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + interval
        await asyncio.sleep(interval)
        observe(max(0.0, loop.time() - due))
