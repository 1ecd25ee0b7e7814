"""The garbage collector's settings for a long-running server.

CPython's cyclic collector stops the whole process while it runs, and a full collection walks
every object the process holds: with thousands of tables and sockets that is hundreds of
thousands of objects and pauses of a tenth of a second or more, which every table's clients
feel as latency. Two settings keep it away from the tables:

- everything built at start-up (modules, the rooms, the tables' tasks) is frozen: moved out of
  the collector's reach, never walked again;
- the young generation is collected after 100,000 allocations (net of frees) instead of 700.

The second needs a word. A young collection walks every object allocated since the last one
that is still alive, whatever the threshold: under load that is the state each socket's
reader and each table renews with every message (at 1,000 tables, 95,000 to 290,000 live
objects, of which a collection frees none), about 0.5 µs an object. So a young collection
costs the same whether it comes often or not, and the threshold only sets how often the
process stops: at 10,000, every 7 seconds for 15 to 77 ms, which alone pushed the 99th
percentile of delivery latency past 50 ms; at 100,000, none in three minutes of play (they
come while tables fill up, when every new socket adds objects that stay). Garbage in
reference cycles (little here: those collections free nothing) waits longer to be freed.

``watch`` times every collection, so an operator sees the pauses (``/metrics``:
``baccarat_gc_pause_seconds`` by generation).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

YOUNG_THRESHOLD = 100_000
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
