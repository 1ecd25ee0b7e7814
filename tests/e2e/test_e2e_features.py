"""What players of a player-banked table expect, in the browser, in both languages.

Each test plays its own short scene at its own table with its own accounts, so that a test
can fail alone. One page of each scene speaks zh-TW (the default), the other English.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    Server,
    baccarat_cli,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    sit,
)
from playwright.sync_api import Error as PlaywrightError

pytestmark = [pytest.mark.browser, needs_chromium]


def account(server: Server, name: str, coins: int = 1_000_000, level: int = 60) -> str:
    """Create an account for one scene (names are unique to this module)."""
    baccarat_cli(
        "admin",
        "create-user",
        name,
        "--password-stdin",
        "--level",
        str(level),
        "--coins",
        str(coins),
        "--db",
        server.db,
        stdin=PASSWORD + "\n",
    )
    return name


def english(page: Any) -> None:
    """Switch a page to English with the toolbar's toggle."""
    page.click("[data-action='lang']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")


def toast_texts(page: Any) -> list[str]:
    """The toasts on screen now."""
    return [
        str(t)
        for t in page.evaluate(
            "() => [...document.querySelectorAll('.toast')].map((e) => e.textContent)"
        )
    ]


def wait_toast(page: Any, text: str, timeout: int = 10_000) -> None:
    """Wait until a toast containing ``text`` shows."""
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('.toast')].some((e) => e.textContent.includes(text))",
        arg=text,
        timeout=timeout,
    )


def open_every_squeeze(page: Any) -> None:
    """Open each card this page controls until the round's result shows."""
    for _ in range(12):
        page.wait_for_selector(
            ".squeeze.mine:not([hidden]), .table-screen[data-phase='result']", timeout=30_000
        )
        if page.locator(".table-screen[data-phase='result']").count():
            return
        with contextlib.suppress(PlaywrightError):
            page.click(".squeeze.mine .btn-open", timeout=3_000)
        page.wait_for_timeout(150)


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[list[Any]]:
    """Pages opened by one test, closed after it."""
    opened: list[Any] = []
    yield opened
    for page in opened:
        with contextlib.suppress(PlaywrightError):
            page.context.close()


def test_the_dealer_who_stands_up_during_betting_leaves_after_the_settlement(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "standard-3"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor]
    log_in(dealer, account(server, "leaver"))
    log_in(bettor, account(server, "stayer"))
    english(bettor)
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
    assert place_chip(bettor, 5, "player") == "ok"
    dealer.click(".dealer-bar .btn-stand")
    wait_toast(dealer, "您將於本局結算後離開荷官位")
    wait_toast(bettor, "The dealer leaves once this round settles")
    bettor.wait_for_selector(".seat[data-seat='0'] .seat-leaving:text('Leaves after this round')")
    dealer.wait_for_selector(".seat[data-seat='0'] .seat-leaving:text('本局後離座')")
    # The round is not called off: it is dealt, squeezed and settled with the dealer's book.
    assert bettor.locator(".table-screen[data-phase='betting']").count() == 1
    open_every_squeeze(bettor)
    bettor.wait_for_selector(".table-screen[data-phase='result'] .result-banner:not([hidden])")
    bettor.wait_for_selector(".seat[data-seat='0'].free", timeout=10_000)
    dealer.wait_for_selector(".table-screen[data-role='spectator']", timeout=10_000)
    assert not dealer.js_errors and not bettor.js_errors
