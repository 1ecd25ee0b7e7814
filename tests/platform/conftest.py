"""The platform's tests: the reference platform and the game, each a real process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from platform_support import Stack, running_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One platform and one game for the module's tests."""
    with running_stack(tmp_path_factory.mktemp("platform"), "--test-hooks") as running:
        yield running
