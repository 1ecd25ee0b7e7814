"""In Chromium, with the seamless wallet: a player opens the reference platform's lobby,
clicks into the game already signed in, sees the platform's coins there, bets a round, and
back at the platform the balance has moved by exactly the round's result (no coins were
moved in or out: the game asked the platform's wallet for them)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from platform_browser import Dealer, bet_a_round, coins, page_of, shot
from platform_support import Stack, running_stack

from e2e.e2e_support import DESKTOP, PHONE
from serving import wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("seamless-browser")
    with running_stack(tmp, "--test-hooks", wallet="seamless") as running:
        yield running


def test_a_player_bets_the_platforms_own_coins_and_sees_them_move_by_the_result(
    stack: Stack, browser: Any
) -> None:
    dealer = Dealer(stack, fund=False)
    page = page_of(browser, DESKTOP, False, "en")
    page.goto(f"{stack.platform}/?lang=en")
    page.click("#signin-u1001")
    page.wait_for_selector("#coins")
    start = coins(page, "#coins")
    assert page.query_selector("#move-in") is None  # nothing to move: the platform keeps it
    shot(page, "platform-seamless-lobby-desktop-en")

    page.click("#play")
    page.wait_for_selector(".lobby-screen")
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")["user"]
    assert (me["level"], me["coins"]) == (60, start)

    result = bet_a_round(stack, page, dealer, me["id"], "platform-seamless-table-desktop-en")
    wait_until(lambda: stack.platform_coins("u1001") == start + result, "the credit")
    page.goto(f"{stack.platform}/?lang=en")
    page.wait_for_selector("#coins")
    assert coins(page, "#coins") == start + result
    stack.assert_sound()


@pytest.mark.parametrize(
    ("viewport", "phone", "lang"),
    [(DESKTOP, False, "zh-TW"), (PHONE, True, "en"), (PHONE, True, "zh-TW")],
    ids=["desktop-zh", "phone-en", "phone-zh"],
)
def test_the_seamless_lobby_in_each_language(
    stack: Stack, browser: Any, viewport: dict[str, int], phone: bool, lang: str
) -> None:
    page = page_of(browser, viewport, phone, lang)
    page.goto(f"{stack.platform}/?lang={lang}")
    page.click("#signin-u1002")
    page.wait_for_selector("#coins")
    shot(page, f"platform-seamless-lobby-{'phone' if phone else 'desktop'}-{lang}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
