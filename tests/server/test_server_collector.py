"""The collector's settings: start-up objects frozen, young collections rarer."""

from __future__ import annotations

import gc

from baccarat.server import collector


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
