"""In Chromium: a player opens the reference platform's lobby, moves coins into the game,
clicks into it already signed in at the platform's level, bets a round, moves the coins back
out, and the platform's balance has moved by exactly the round's result."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from platform_browser import Dealer, bet_a_round, bet_a_round_in, coins, page_of, shot
from platform_support import Stack, running_stack

from e2e.e2e_support import DESKTOP, PHONE
from serving import wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # The game at localhost, the platform at 127.0.0.1: two sites, as in a casino's lobby.
    with running_stack(
        tmp_path_factory.mktemp("browser"), "--test-hooks", game_host="localhost"
    ) as running:
        yield running


def test_a_player_bets_from_the_platform_and_its_balance_moves_by_the_rounds_result(
    stack: Stack, browser: Any
) -> None:
    dealer = Dealer(stack, fund=True)
    page = page_of(browser, DESKTOP, False, "en")
    page.goto(f"{stack.platform}/?lang=en")
    page.click("#signin-u1001")
    page.wait_for_selector("#coins")
    start = coins(page, "#coins")
    # The game knows a user once they have launched it.
    page.click("#play")
    page.wait_for_selector(".lobby-screen")
    page.goto(f"{stack.platform}/?lang=en")
    page.fill("#amount", "10000")
    page.click("#move-in")
    page.wait_for_function("document.querySelector('#game-coins').textContent === '10,000'")
    assert coins(page, "#coins") == start - 10_000
    shot(page, "platform-lobby-desktop-en")

    page.click("#play")
    page.wait_for_selector(".lobby-screen")
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")["user"]
    assert (me["level"], me["display_name"], me["coins"]) == (60, "美美 Mei", 10_000)
    assert page.evaluate("document.documentElement.lang") == "en"
    shot(page, "platform-game-lobby-desktop-en")

    result = bet_a_round(stack, page, dealer, me["id"], "platform-game-table-desktop-en")
    page.goto(f"{stack.platform}/?lang=en")
    wait_until(lambda: stack.balance("u1001") == 10_000 + result, "the settlement")
    page.fill("#amount", str(10_000 + result))
    page.click("#move-out")
    page.wait_for_function("document.querySelector('#game-coins').textContent === '0'")
    assert coins(page, "#coins") == start + result
    stack.assert_sound()


@pytest.mark.parametrize(
    ("viewport", "phone", "lang"),
    [(DESKTOP, False, "zh-TW"), (PHONE, True, "en"), (PHONE, True, "zh-TW")],
    ids=["desktop-zh", "phone-en", "phone-zh"],
)
def test_the_platforms_lobby_and_the_game_opened_from_it_in_each_language(
    stack: Stack, browser: Any, viewport: dict[str, int], phone: bool, lang: str
) -> None:
    page = page_of(browser, viewport, phone, lang)
    page.goto(f"{stack.platform}/?lang={lang}")
    page.click("#signin-u1001")
    page.wait_for_selector("#coins")
    words = {"en": "Play baccarat", "zh-TW": "進入百家樂"}
    assert page.inner_text("#play") == words[lang]
    size = "phone" if phone else "desktop"
    shot(page, f"platform-lobby-{size}-{lang}")
    page.click("#play")
    # (The player of the round above may still hold their seat: the game shows the table.)
    page.wait_for_selector(".lobby-screen, .table-screen")
    assert page.evaluate("document.documentElement.lang") == ("en" if lang == "en" else "zh-Hant")
    shot(page, f"platform-game-lobby-{size}-{lang}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_the_game_plays_a_round_inside_the_platforms_page_and_tells_it(
    stack: Stack, browser: Any
) -> None:
    """The platform's /frame shows the game (another site) in a frame: the launch's session
    works there, the round is played in it, and the page hears the balance, the table left
    and the close from the game's origin."""
    # A player of its own (the other tests' player may still hold a seat at t1).
    stack.admin("/admin/users", {"id": "u1004", "name": "框框 Fan", "level": 55, "coins": 50_000})
    stack.session("u1004")  # known to the game, so coins can move in
    moved = stack.admin("/admin/transfer", {"user": "u1004", "amount": 5_000})
    assert moved["status"] == "done", moved
    dealer = Dealer(stack, fund=True)
    page = page_of(browser, DESKTOP, False, "en")
    page.goto(f"{stack.platform}/?lang=en")
    page.click("#signin-u1004")
    page.click("#play-here")
    page.wait_for_selector("iframe#game")
    page.frame_locator("iframe#game").locator(".lobby-screen").wait_for()
    frame = page.frame(url=lambda url: url.startswith("http://localhost:"))
    assert frame is not None and frame.url.startswith(stack.game.replace("127.0.0.1", "localhost"))
    me = frame.evaluate("fetch('/api/me').then((r) => r.json())")["user"]
    assert me["display_name"] == "框框 Fan"
    page.wait_for_function("document.querySelector('#frame-coins').textContent !== '…'")
    before = coins(page, "#frame-coins")

    result = bet_a_round_in(
        stack, page, frame, dealer, me["id"], "platform-frame-desktop-en", seat=2
    )
    page.wait_for_function(
        f"window.gameMessages.some((m) => m.type === 'balance' && m.coins === {before + result})"
    )
    frame.click(".btn-lobby")
    page.wait_for_function("window.gameMessages.some((m) => m.type === 'left_table')")
    frame.wait_for_selector(".lobby-screen")
    frame.click(".lobby-screen button:text('Log out')")
    page.wait_for_selector("#game-closed:not([hidden])")
    told = page.evaluate("window.gameMessages")
    assert {"source": "baccarat", "type": "left_table", "table_id": "t1"} in told
    assert told[-1] == {"source": "baccarat", "type": "close"}
    # Told each change once, never a stale balance: the last is the round's.
    balances = [m["coins"] for m in told if m["type"] == "balance"]
    assert balances[-1] == before + result and before in balances
    assert all(a != b for a, b in pairwise(balances))
    assert all(m["source"] == "baccarat" for m in told)
    shot(page, "platform-frame-closed-desktop-en")
    stack.assert_sound()
