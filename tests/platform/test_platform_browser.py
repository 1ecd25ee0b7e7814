"""In Chromium: a player opens the reference platform's lobby, moves coins into the game,
clicks into it already signed in at the platform's level, bets a round, moves the coins back
out, and the platform's balance has moved by exactly the round's result."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from platform_support import Stack, http, running_stack

from baccarat.client import Client
from baccarat.store import open_store
from e2e.e2e_support import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, SCREENSHOTS, place_chip, sit
from serving import wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    with running_stack(tmp_path_factory.mktemp("browser"), "--test-hooks") as running:
        yield running


@pytest.fixture(scope="module")
def browser(stack: Stack) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser: Any, viewport: dict[str, int], phone: bool, lang: str) -> Any:
    ctx = browser.new_context(
        viewport=viewport, is_mobile=phone, has_touch=phone, locale=lang,
        reduced_motion="reduce", service_workers="block",
    )  # fmt: skip
    return ctx.new_page()


def _shot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def _hook(stack: Stack, body: dict[str, object] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    return http("POST" if data else "GET", f"{stack.game}/api/test/tables/t1", data).body


def _coins(page: Any, selector: str) -> int:
    return int(page.inner_text(selector).replace(",", ""))


class Dealer:
    """A dealer seated at t1 through the protocol's client, in a thread of its own (the
    browser's sync API holds this thread's event loop)."""

    def __init__(self, stack: Stack) -> None:
        session = stack.session("u1002")
        moved = stack.admin("/admin/transfer", {"user": "u1002", "amount": 100_000})
        assert moved["status"] == "done", moved
        self._seated, self._leave = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._run(stack, session),))
        self._thread.start()
        assert self._seated.wait(30), "the dealer did not sit"

    async def _run(self, stack: Stack, session: str) -> None:
        dealer = await Client.connect(stack.game, session)
        try:
            await dealer.sit("t1", 0)
            self._seated.set()
            await asyncio.to_thread(self._leave.wait, 300)
            await dealer.stand()
        finally:
            await dealer.close()

    def leave(self) -> None:
        self._leave.set()
        self._thread.join(30)


def _round_result(stack: Stack, user_id: int) -> int:
    with open_store(stack.db) as store, store.engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT delta FROM round_results WHERE user_id = :u"), {"u": user_id}
        ).all()
    assert len(rows) == 1, rows
    return int(rows[0][0])


def test_a_player_bets_from_the_platform_and_its_balance_moves_by_the_rounds_result(
    stack: Stack, browser: Any
) -> None:
    dealer = Dealer(stack)
    page = _page(browser, DESKTOP, False, "en")
    page.goto(f"{stack.platform}/?lang=en")
    page.click("#signin-u1001")
    page.wait_for_selector("#coins")
    start = _coins(page, "#coins")
    # The game knows a user once they have launched it.
    page.click("#play")
    page.wait_for_selector(".lobby-screen")
    page.goto(f"{stack.platform}/?lang=en")
    page.fill("#amount", "10000")
    page.click("#move-in")
    page.wait_for_function("document.querySelector('#game-coins').textContent === '10,000'")
    assert _coins(page, "#coins") == start - 10_000
    _shot(page, "platform-lobby-desktop-en")

    page.click("#play")
    page.wait_for_selector(".lobby-screen")
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")["user"]
    assert (me["level"], me["display_name"], me["coins"]) == (60, "美美 Mei", 10_000)
    assert page.evaluate("document.documentElement.lang") == "en"
    _shot(page, "platform-game-lobby-desktop-en")

    _hook(stack, {"hold": "betting"})
    sit(page, "t1", 1)
    wait_until(lambda: _hook(stack)["phase"] == "betting", "betting")
    assert place_chip(page, 10, "player") == "ok"
    _shot(page, "platform-game-table-desktop-en")
    _hook(stack, {"hold": "result"})
    wait_until(lambda: _hook(stack)["phase"] == "result", "the result", limit=120)
    _hook(stack, {"hold": None})
    dealer.leave()

    result = _round_result(stack, me["id"])
    page.goto(f"{stack.platform}/?lang=en")
    wait_until(lambda: stack.balance("u1001") == 10_000 + result, "the settlement")
    page.fill("#amount", str(10_000 + result))
    page.click("#move-out")
    page.wait_for_function("document.querySelector('#game-coins').textContent === '0'")
    assert _coins(page, "#coins") == start + result
    stack.assert_sound()


@pytest.mark.parametrize(
    ("viewport", "phone", "lang"),
    [(DESKTOP, False, "zh-TW"), (PHONE, True, "en"), (PHONE, True, "zh-TW")],
    ids=["desktop-zh", "phone-en", "phone-zh"],
)
def test_the_platforms_lobby_and_the_game_opened_from_it_in_each_language(
    stack: Stack, browser: Any, viewport: dict[str, int], phone: bool, lang: str
) -> None:
    page = _page(browser, viewport, phone, lang)
    page.goto(f"{stack.platform}/?lang={lang}")
    page.click("#signin-u1001")
    page.wait_for_selector("#coins")
    words = {"en": "Play baccarat", "zh-TW": "進入百家樂"}
    assert page.inner_text("#play") == words[lang]
    size = "phone" if phone else "desktop"
    _shot(page, f"platform-lobby-{size}-{lang}")
    page.click("#play")
    # (The player of the round above may still hold their seat: the game shows the table.)
    page.wait_for_selector(".lobby-screen, .table-screen")
    assert page.evaluate("document.documentElement.lang") == ("en" if lang == "en" else "zh-Hant")
    _shot(page, f"platform-game-lobby-{size}-{lang}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
