"""The collector's settings: start-up objects frozen, young collections rarer."""

from __future__ import annotations

import gc

from baccarat.server import collector
from baccarat.server.metrics import Metrics


def test_settle_freezes_what_exists_and_raises_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        collector.settle()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, before[1], before[2])
        # Frozen objects are out of the collector's reach, not gone.
        gc.unfreeze()
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def _count(text: str, generation: int) -> float:
    key = f'baccarat_gc_pause_seconds_count{{generation="{generation}"}} '
    return float(next(line for line in text.splitlines() if line.startswith(key)).split()[-1])


def test_every_collection_pause_is_in_the_metrics_by_generation() -> None:
    metrics = Metrics()
    stop = metrics.watch_collector()
    try:
        for _ in range(3):
            gc.collect(2)
        gc.collect(0)
    finally:
        stop()
    text = metrics.render().decode()
    # The forced ones at least (the interpreter may collect the young generation by itself).
    full = _count(text, 2)
    assert full >= 3 and _count(text, 0) >= 1
    # Stopped: later collections are not counted.
    gc.collect(2)
    assert _count(metrics.render().decode(), 2) == full
