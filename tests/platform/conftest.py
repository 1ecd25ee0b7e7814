"""The platform's tests: the reference platform and the game, each a real process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from platform_support import Stack, running_stack

from e2e.e2e_support import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One platform and one game for the module's tests."""
    with running_stack(tmp_path_factory.mktemp("platform"), "--test-hooks") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium for the module's browser tests (skipped where it is not installed)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
