"""The garbage collector's settings for a long-running server.

CPython's cyclic collector stops the whole process while it runs, and a full collection walks
every object the process holds: with thousands of tables and sockets that is hundreds of
thousands of objects and pauses of a tenth of a second or more, which every table's clients
feel as latency. Two settings keep it away from the tables:

- everything built at start-up (modules, the rooms, the tables' tasks) is frozen: moved out of
  the collector's reach, never walked again;
- the young generation is collected after 10,000 allocations instead of 700, so collections
  are rarer and a burst of short-lived messages is mostly freed by reference counting first.

``watch`` times every collection, so an operator sees the pauses (``/metrics``:
``baccarat_gc_pause_seconds`` by generation).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

YOUNG_THRESHOLD = 10_000
"""Allocations (net of frees) before a young collection; CPython's default is 700."""


def settle() -> None:
    """Collect once, freeze what survives, and make young collections rarer."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def watch(observe: Callable[[int, float], None]) -> Callable[[], None]:
    """Tell ``observe(generation, seconds)`` how long each collection stopped the process;
    return the function that stops watching."""
    started = [0.0]

    def timing(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            observe(int(info["generation"]), time.perf_counter() - started[0])

    gc.callbacks.append(timing)
    return lambda: gc.callbacks.remove(timing)
