"""The suite in parallel (``pytest -n``): every browser test in one worker, one after another.

Chromium's pages are the heaviest load of the suite: two browsers at once on a small machine
starve each other's pages and the servers they watch. The browser tests also share one
server per worker session. Every other module is a unit of its own, as with
``--dist loadscope``. The browser unit, the largest, is handed out first, then the units
that mostly wait (``EARLY``), so that their waits overlap the other workers' work; the
small units come last and even out the workers' ends. Three workers on two cores: with two,
both were often waiting on game clocks and servers of their own at once, a core idle.
"""

from __future__ import annotations

from dataclasses import dataclass

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
tests, in another worker."""


BROWSER_ELSEWHERE = (
    "tests/platform/test_platform_browser.py",
    "tests/platform/test_platform_seamless_browser.py",
)
"""Browser modules outside ``tests/e2e``: they join the browser unit, never beside it."""


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
    """``--dist loadscope`` with the whole of ``tests/e2e`` (and ``BROWSER_ELSEWHERE``) as
    one scope (but ``ALONE``), and the ``EARLY`` units handed out before the rest."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(ALONE):
            return nodeid.split("::")[0]
        if nodeid.startswith(("tests/e2e/", *BROWSER_ELSEWHERE)):
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


@dataclass
class WorkerTime:
    """What one xdist worker spent: its tests' summed durations and the span it was busy."""

    tests: int = 0
    seconds: float = 0.0
    first: float = float("inf")
    last: float = 0.0


WORKER_TIMES: dict[str, WorkerTime] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    node = getattr(report, "node", None)  # set by xdist on the controller, for a worker's report
    if node is None:
        return
    time = WORKER_TIMES.setdefault(node.gateway.id, WorkerTime())
    time.tests += report.when == "call"
    time.seconds += report.duration
    time.first = min(time.first, report.start)
    time.last = max(time.last, report.stop)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Each worker's test time, and when it ended: the record of whether the two ended together."""
    if not WORKER_TIMES:
        return
    start = min(time.first for time in WORKER_TIMES.values())
    terminalreporter.section("time per worker")
    for name, time in sorted(WORKER_TIMES.items()):
        terminalreporter.write_line(
            f"{name}: {time.tests} tests, {time.seconds:.1f} s of tests (setup, call and"
            f" teardown), ended {time.last - start:.1f} s after the first test began"
        )
