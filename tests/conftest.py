"""The suite in parallel (``pytest -n``): every browser test in one worker, one after another.

Chromium's pages are the heaviest load of the suite: two browsers at once on a small machine
starve each other's pages and the servers they watch. The browser tests also share one
server per worker session. Every other module is a unit of its own, as with
``--dist loadscope``. The browser unit, the largest, is handed out first, then the units
that mostly wait (``EARLY``), so that their waits overlap the other worker's work; the
small units that keep a core busy come last and even out the two workers' ends.
"""

from __future__ import annotations

import pytest
from hypothesis import settings
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import Producer, WorkerController

# No time limit per example: the suite runs beside browsers on a small, shared machine, and
# a slow example is not a failing one (speed is measured under bench/, never in tests).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


ALONE = (
    "tests/e2e/test_e2e_shoe.py",
    "tests/e2e/test_e2e_nodes.py",
    "tests/e2e/test_e2e_proxy.py",
)
"""Browser modules that mostly wait on servers of their own (a shoe played to its end by
bots; nodes started, stopped, frozen and killed; nginx): they run beside the other browser
tests, in the other worker."""


EARLY = (
    "tests/e2e",
    "tests/cluster/test_cluster_faults.py",
    *ALONE,
    "tests/loadtest/test_loadtest_smoke.py",
    "tests/store/test_store_crash.py",
    "tests/server/test_server_money_races.py",
)
"""Units handed out first, in this order: the browser unit, then those that mostly wait on
timers, servers and processes of their own. Left to the end of a run, their waits kept a
core idle for a minute and more."""


class BrowserTestsTogether(LoadScopeScheduling):
    """``--dist loadscope`` with the whole of ``tests/e2e`` as one scope (but ``ALONE``), and
    the ``EARLY`` units handed out before the rest."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(ALONE):
            return nodeid.split("::")[0]
        if nodeid.startswith("tests/e2e/"):
            return "tests/e2e"
        return super()._split_scope(nodeid)

    def _assign_work_unit(self, node: WorkerController) -> None:
        queue = self.workqueue
        first = next((scope for scope in EARLY if scope in queue), None)
        if first is not None:
            queue.move_to_end(first, last=False)
        super()._assign_work_unit(node)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadScopeScheduling:
    return BrowserTestsTogether(config, log)
