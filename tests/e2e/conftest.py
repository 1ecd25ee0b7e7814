"""Browser tests: a real server in a subprocess, real accounts, Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SPEED,
    START_COINS,
    USERS,
    Server,
    close_stores,
    create_account,
    free_port,
)

from serving import start_serve


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`baccarat serve` on a free port with a fresh SQLite file and the accounts of ``USERS``."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    db = f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'e2e.db'}"
    log = tmp_path_factory.mktemp("log") / "serve.log"
    served = start_serve(
        "--db", db, "--speed", str(SPEED), "--test-hooks",
        # Every browser test registers its users and bots from this one address.
        "--register-per-ip", "1000", "--register-per-hour", "1000",
        port=free_port(), log=log,
    )  # fmt: skip
    try:
        running = Server(served.url, db, served.proc)
        for name in USERS:
            create_account(running, name, START_COINS)
        yield running
    finally:
        close_stores()
        served.stop()


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Any]:
    """One headless Chromium per test module.

    Playwright's sync API keeps an event loop running in this thread while it is open; closing
    it at the end of each module keeps that loop away from the asyncio tests that follow.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
