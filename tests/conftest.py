"""How the suite is spread over two processes (``pytest -n 2 --dist loadgroup``)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep each module's tests in one process (they share module fixtures) and every browser
    module in the same one: the browser tests run one module at a time, as they do alone,
    while the other process runs the rest."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = "browser" if "e2e" in item.path.parts else str(item.path)
        item.add_marker(pytest.mark.xdist_group(group))
