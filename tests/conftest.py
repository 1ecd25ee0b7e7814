"""The suite in parallel (``pytest -n``): every browser test in one worker, one after another.

Chromium's pages are the heaviest load of the suite: two browsers at once on a small machine
starve each other's pages and the servers they watch. The browser tests also share one
server per worker session. Every other module is a unit of its own, as with
``--dist loadscope``; the browser unit, the largest, is handed out first.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import Producer


class BrowserTestsTogether(LoadScopeScheduling):
    """``--dist loadscope`` with the whole of ``tests/e2e`` as one scope."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith("tests/e2e/"):
            return "tests/e2e"
        return super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadScopeScheduling:
    return BrowserTestsTogether(config, log)
