"""What players of a player-banked table expect, in the browser, in both languages.

Each test plays its own short scene at its own table with its own accounts, so that a test
can fail alone. One page of each scene speaks zh-TW (the default), the other English.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    hold,
    leave_empty,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    quiet_table,
    save_screenshot,
    sit,
    skip,
)
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from baccarat.protocol import values
from baccarat.roads import parse_marks
from baccarat.roads.patterns import PATTERNS, good_roads, stats

pytestmark = [pytest.mark.browser, needs_chromium]


def english(page: Any) -> None:
    """Switch a page to English with the toolbar's toggle."""
    page.click("[data-action='lang']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")


def wait_toast(page: Any, text: str, timeout: int = 10_000) -> None:
    """Wait until a toast containing ``text`` shows."""
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('.toast')].some((e) => e.textContent.includes(text))",
        arg=text,
        timeout=timeout,
    )


WATCH_RESULT = """() => {
  // The table is held at the result (see open_every_squeeze): the banner shows once the last
  // card has landed, and stays until the test lets the table go on.
  const look = () => {
    if (document.querySelector(".table-screen[data-phase='result'] .result-banner:not([hidden])"))
      window.resultSeen = true;
  };
  if (!window.resultWatch) {
    window.resultWatch = new MutationObserver(look);
    window.resultWatch.observe(document.body, { subtree: true, childList: true, attributes: true });
  }
  window.resultSeen = false;
  look();
}"""


def open_every_squeeze(page: Any, server: Server, table: str, *, release: bool = True) -> None:
    """Open each card this page controls until the round's result has shown.

    The table is held once it comes to the result, so a page slow to draw the banner still
    sees it; with ``release`` the table goes on afterwards (its result seen, at once to the
    next round), otherwise the caller lets it go.
    """
    state = hold(server, table, "result")
    if state["phase"] == "betting":
        # The test has bet: the rest of the betting is waited out by nobody.
        skip(server, table)
    try:
        page.evaluate(WATCH_RESULT)
        for _ in range(12):
            page.wait_for_function(
                "() => window.resultSeen || !!document.querySelector('.squeeze.mine:not([hidden])')",
                timeout=30_000,
            )
            if page.evaluate("() => window.resultSeen"):
                break
            with contextlib.suppress(PlaywrightError):
                page.click(".squeeze.mine .btn-open", timeout=3_000)
            page.wait_for_timeout(150)
        assert page.evaluate("() => window.resultSeen"), "the result never showed"
    finally:
        if release:
            hold(server, table, None)
            skip(server, table)


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
    log_in(dealer, create_account(server, "leaver"))
    log_in(bettor, create_account(server, "stayer"))
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
    open_every_squeeze(bettor, server, table)
    bettor.wait_for_selector(".seat[data-seat='0'].free", timeout=10_000)
    dealer.wait_for_selector(".table-screen[data-role='spectator']", timeout=10_000)
    assert not dealer.js_errors and not bettor.js_errors


def my_slip(page: Any) -> dict[str, int]:
    """The viewer's bets as the client holds them."""
    return dict(page.evaluate("() => window.baccaratApp.table.view.me.bets"))


def click_and_wait_slip(page: Any, action: str, expected: dict[str, int]) -> None:
    """Click a slip button and wait for the slip the server answers with."""
    page.click(f".tray-buttons [data-action='{action}']")
    page.wait_for_function(
        """(want) => {
          const slip = window.baccaratApp.table.view?.me?.bets ?? {};
          const have = Object.fromEntries(Object.entries(slip).filter(([, n]) => n));
          return JSON.stringify(have) === JSON.stringify(want);
        }""",
        arg=expected,
        timeout=5_000,
    )


def test_rebet_double_and_undo_from_the_tray(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "standard-4"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor]
    log_in(dealer, create_account(server, "rebetdealer"))
    log_in(bettor, create_account(server, "rebetter"))
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
    labels = bettor.evaluate(
        "() => [...document.querySelectorAll('.tray-buttons .btn')].map((b) => b.textContent)"
    )
    assert labels[:4] == ["重複", "加倍", "撤銷", "清除"]
    # Nothing to repeat yet, nothing to double or undo.
    assert bettor.is_disabled("[data-action='rebet']")
    assert bettor.is_disabled("[data-action='double']")
    assert place_chip(bettor, 10, "player") == "ok"
    assert place_chip(bettor, 10, "player") == "ok"
    assert place_chip(bettor, 5, "player") == "ok"
    click_and_wait_slip(bettor, "double", {"player": 50})
    # Money is shown in coins: 50 chips of 100 coins.
    assert "5,000" in bettor.inner_text(".area[data-area='player'] .my-stack")
    click_and_wait_slip(bettor, "undo", {"player": 25})
    # The dealer's book follows without a snapshot.
    dealer.wait_for_function(
        "() => document.querySelector('.book-table')?.textContent.includes('2,500')"
    )
    open_every_squeeze(bettor, server, table)
    english(bettor)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=30_000)
    assert bettor.inner_text("[data-action='rebet']") == "Rebet"
    assert bettor.get_attribute("[data-action='rebet']", "title") == "Player 2,500"
    click_and_wait_slip(bettor, "rebet", {"player": 25})
    assert bettor.is_disabled("[data-action='rebet']")
    click_and_wait_slip(bettor, "double", {"player": 50})
    # 100 would pass the Player limit: refused whole, the slip stays at 50.
    bettor.click("[data-action='double']")
    wait_toast(bettor, "Player limit is 5,000 coins")
    assert my_slip(bettor) == {"player": 50}
    assert not dealer.js_errors and not bettor.js_errors


def test_a_tap_at_the_table_outlasts_the_events_that_come_under_the_finger(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    """Every event draws the table again (another player's chip, a player sitting down);
    between a mouse button going down on a button and coming up, that would replace the
    button and lose the click, so the redraw waits. A finger's tap is not held: the browser
    clicks what is under the finger when it lifts, even a button drawn meanwhile. (No round
    is played: the table is left empty for the tests after.)"""
    tapper = open_page(browser, server, DESKTOP)
    other = open_page(browser, server, PHONE, phone=True)
    pages += [tapper, other]
    log_in(tapper, create_account(server, "chiptapper"))
    log_in(other, create_account(server, "latecomer"))
    table = quiet_table(tapper)
    sit(tapper, table, 1)
    pressed = "(el) => { el.dataset.pressed = 'yes'; }"
    try:
        chip = tapper.locator(".tray-chip[data-chip='5']")
        assert "chosen" not in (chip.get_attribute("class") or "")
        box = chip.bounding_box()
        assert box is not None
        chip.evaluate(pressed)
        tapper.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        tapper.mouse.down()
        sit(other, table, 2)
        tapper.wait_for_function("() => window.baccaratApp.table.view.seats[2] != null")
        # The chip under the pointer is still the one pressed: the redraw waits.
        assert tapper.locator(".tray-chip[data-pressed='yes']").count() == 1
        tapper.mouse.up()
        tapper.wait_for_selector(".tray-chip.chosen[data-chip='5']")
        # Drawn once the click is done: the newcomer's seat shows.
        tapper.wait_for_selector(".seats .seat[data-seat='2'].taken")

        # The phone's finger goes down on a chip; the tapper stands up, and the phone's table
        # is drawn again under the finger (the pressed chip replaced); the finger lifts.
        chip = other.locator(".tray-chip[data-chip='5']")
        assert "chosen" not in (chip.get_attribute("class") or "")
        box = chip.bounding_box()
        assert box is not None
        chip.evaluate(pressed)
        finger = other.context.new_cdp_session(other)
        point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
        finger.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        tapper.click(".tray .btn-stand")
        other.wait_for_function("() => window.baccaratApp.table.view.seats[1] == null")
        # Drawn with the event that brought it (a touch holds nothing): the chip is new.
        assert other.locator(".tray-chip[data-pressed='yes']").count() == 0
        finger.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        finger.detach()
        other.wait_for_selector(".tray-chip.chosen[data-chip='5']")
    finally:
        leave_empty(tapper, other)
    assert not tapper.js_errors and not other.js_errors


def test_my_bets_lists_my_rounds_and_the_table_shows_the_days_total(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "high-1"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor]
    log_in(dealer, create_account(server, "histdealer"))
    log_in(bettor, create_account(server, "histbettor"))
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
    assert place_chip(bettor, 2, "banker") == "ok"
    assert place_chip(bettor, 1, "tie") == "ok"
    open_every_squeeze(bettor, server, table, release=False)
    won = bettor.evaluate("() => window.baccaratApp.table.view.result.settlement.deltas")
    hold(server, table, None)
    net = int(won[str(bettor.evaluate("() => window.baccaratApp.session.user.id"))])
    # The day's and the session's totals on the table screen follow the settlement.
    bettor.wait_for_function(
        "(net) => document.querySelector('.top-info .tot-day')?.dataset.net === String(net)",
        arg=net,
        timeout=20_000,
    )
    assert bettor.inner_text(".top-info .tot-day").startswith("今日")
    assert bettor.get_attribute(".top-info .tot-session", "data-net") == str(net)
    bettor.click(".top-info [data-action='history']")
    bettor.wait_for_selector(".history-screen .hist-round")
    row = bettor.locator(".hist-round").first
    assert row.locator(".hr-net").get_attribute("data-net") == str(net)
    bets = row.locator(".hr-bets .pill").all_inner_texts()
    assert bets == ["和 500", "莊 1,000"]
    # The table's name in the page's language.
    assert row.locator(".hr-table").inner_text() == "高級區 1"
    assert row.locator(".hh-cards .card-svg").count() >= 4
    assert "本靴結束後公開種子" in row.locator(".hr-shoe").inner_text()
    save_screenshot(bettor, "history-desktop")
    english(bettor)
    bettor.wait_for_selector(".history-screen .hist-round .hr-bets .pill:text('Banker 1,000')")
    row = bettor.locator(".hist-round").first
    assert row.locator(".hr-table").inner_text() == "High 1"
    assert "The seed is revealed when the shoe ends" in row.locator(".hr-shoe").inner_text()
    assert bettor.inner_text(".hist-totals .tot-day").startswith("Today")
    # Back to the table the list was opened from, still seated.
    bettor.click("[data-action='back']")
    bettor.wait_for_selector(".table-screen .seat.me[data-seat='1']")
    assert not bettor.js_errors and not dealer.js_errors


def test_a_watcher_queues_for_the_dealer_seat_and_takes_it_when_it_frees(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "high-2"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    watcher = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor, watcher]
    log_in(dealer, create_account(server, "qdealer"))
    log_in(bettor, create_account(server, "qbettor"))
    log_in(watcher, create_account(server, "qwatcher"))
    english(watcher)
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    watcher.click(f".table-card[data-table='{table}'] .btn-watch")
    watcher.wait_for_selector(".table-screen .dealer-queue [data-action='queue-join']")
    assert "Nobody waiting" in watcher.inner_text(".dealer-queue")
    watcher.click("[data-action='queue-join']")
    watcher.wait_for_selector(".dealer-queue .dq-pos:text('You are #1')")
    # Every screen shows the line: the dealer's and the bettor's, in Chinese.
    for page in (dealer, bettor):
        page.wait_for_selector(".dealer-queue .dq-list li:text('1. qwatcher')")
        assert "上莊排隊" in page.inner_text(".dealer-queue")
    assert "連莊 " in dealer.inner_text(".dealer-queue .dq-streak")
    save_screenshot(bettor, "queue-desktop")
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=30_000)
    assert place_chip(bettor, 1, "banker") == "ok"
    dealer.click(".dealer-bar .btn-stand")
    open_every_squeeze(bettor, server, table)
    # After the settlement the first in line takes the dealer seat: the dealer's screen is theirs.
    watcher.wait_for_selector(".table-screen[data-role='dealer']", timeout=30_000)
    bettor.wait_for_selector(".seat[data-seat='0'] .seat-name:text('qwatcher')")
    watcher.wait_for_selector(".dealer-queue .dq-empty:text('Nobody waiting')")
    assert not watcher.js_errors and not bettor.js_errors and not dealer.js_errors


COVERED_BY_CHAT = """() => {
  const panel = document.querySelector('.chat-panel'), p = panel.getBoundingClientRect();
  const controls = document.querySelector('.controls');
  const covered = [...document.querySelectorAll('.seat.me, .controls button, .tray-chip')]
    .filter((e) => e.checkVisibility())
    .filter((e) => { const r = e.getBoundingClientRect();
      return r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top; })
    .map((e) => e.className);
  // What the layout rests on, to read a failure by.
  return { covered, screen: panel.parentElement.className, width: innerWidth,
    wide: matchMedia('(min-width: 1000px)').matches, panel: [p.left, p.top, p.right, p.bottom],
    controls: controls.getBoundingClientRect().right, margin: getComputedStyle(controls).marginRight,
    screens: document.querySelectorAll('.table-screen').length };
}"""


LABELS_CROSSED = """() => [...document.querySelectorAll('.area')].filter((a) => {
  const name = a.querySelector('.area-name').getBoundingClientRect();
  return [...a.querySelectorAll('.area-left, .area-total')].some((e) => {
    const r = e.getBoundingClientRect();
    return e.checkVisibility() && r.width > 0 && r.left < name.right && r.right > name.left
      && r.top < name.bottom && r.bottom > name.top; });
}).map((a) => a.dataset.area)"""


def test_table_chat_and_emotes_with_a_watcher_who_reads_and_mutes(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "vip-1"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    watcher = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor, watcher]
    log_in(dealer, create_account(server, "chatdealer"))
    log_in(bettor, create_account(server, "chatter"))
    log_in(watcher, create_account(server, "reader"))
    english(bettor)
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    watcher.click(f".table-card[data-table='{table}'] .btn-watch")
    watcher.wait_for_selector(".table-screen")
    phone = open_page(browser, server, PHONE, phone=True)
    pages.append(phone)
    log_in(phone, create_account(server, "pocketreader"))
    phone.click(f".table-card[data-table='{table}'] .btn-watch")
    phone.wait_for_selector(".table-screen")
    # With the panel closed, every area has room for its limit line beside its name.
    bettor.wait_for_selector(".area[data-area='tie'] .area-left")
    assert bettor.evaluate(LABELS_CROSSED) == []
    assert bettor.locator(".area .area-left:visible").count() == 5
    bettor.click("[data-action='chat']")
    # The open panel stands beside the table: it covers no seat of the bettor's and no control.
    bettor.wait_for_selector(".chat-panel:not([hidden])")
    try:
        bettor.wait_for_function(f"() => ({COVERED_BY_CHAT})().covered.length === 0", timeout=3_000)
    except PlaywrightTimeout:
        raise AssertionError(bettor.evaluate(COVERED_BY_CHAT)) from None
    # The narrower areas beside it keep their names clear: a limit line that has no room
    # gives way (the tray says what is left), where there is room it stays.
    assert bettor.evaluate(LABELS_CROSSED) == []
    assert bettor.is_visible(".area[data-area='player'] .area-left")
    assert not bettor.is_visible(".area[data-area='tie'] .area-left")
    bettor.fill(".chat-input", "  Banker   streak!  ")
    bettor.click("[data-action='chat-send']")
    bettor.wait_for_selector(".chat-list .chat-msg.mine .chat-text:text('Banker streak!')")
    assert bettor.input_value(".chat-input") == ""
    # The others see it: a bubble over the seat and an unread count on the chat button.
    dealer.wait_for_selector(".chat-bubble[data-seat='1']:text('Banker streak!')")
    # On a phone too, whole: seat 1 is by the screen's edge there.
    phone.wait_for_selector(".chat-bubble[data-seat='1']:text('Banker streak!')")
    inside = phone.evaluate(
        """() => { const r = document.querySelector('.chat-bubble').getBoundingClientRect();
                   return r.left >= 0 && r.right <= innerWidth; }"""
    )
    assert inside
    dealer.wait_for_selector(".btn-chat .chat-badge:not([hidden]):text('1')")
    bettor.click(".chat-emotes [data-emote='clap']")
    watcher.wait_for_selector(".chat-bubble[data-seat='1'] svg[data-emote='clap']")
    watcher.click("[data-action='chat']")
    watcher.wait_for_selector(".chat-list .chat-msg .chat-text:text('Banker streak!')")
    assert watcher.locator(".chat-list .chat-msg svg[data-emote='clap']").count() == 1
    # A watcher reads but does not write.
    assert watcher.is_disabled(".chat-input")
    assert "入座後可以聊天" in watcher.inner_text(".chat-hint")
    # Too long is refused by the server with the reason, in the bettor's language.
    bettor.evaluate("() => { document.querySelector('.chat-input').maxLength = 500; }")
    bettor.fill(".chat-input", "x" * 130)
    bettor.click("[data-action='chat-send']")
    wait_toast(bettor, "A message is at most 120 characters")
    # The watcher mutes the bettor: their messages disappear here, and come back on unmute.
    watcher.click(".chat-list .chat-msg .chat-name:text('chatter')")
    wait_toast(watcher, "已將 chatter 靜音")
    assert watcher.locator(".chat-list .chat-msg").count() == 0
    watcher.click(".chat-muted .chat-unmute")
    watcher.wait_for_selector(".chat-list .chat-msg .chat-text:text('Banker streak!')")
    # A page opened later gets the last messages with its snapshot.
    assert watcher.url.endswith(f"#/table/{table}")
    watcher.reload()
    watcher.wait_for_selector(".table-screen")
    watcher.click("[data-action='chat']")
    watcher.wait_for_selector(".chat-list .chat-msg .chat-text:text('Banker streak!')")
    dealer.click("[data-action='chat']")
    dealer.wait_for_selector(".chat-list .chat-msg svg[data-emote='clap']")
    save_screenshot(dealer, "chat-desktop")
    assert not watcher.js_errors and not bettor.js_errors and not dealer.js_errors


JS_PATTERNS = """async (shoes) => {
  const { goodRoads, shoeStats } = await import('/js/patterns.js');
  return shoes.map((marks) => ({ good: goodRoads(marks), stats: shoeStats(marks) }));
}"""


def streaky_shoes() -> list[list[dict[str, Any]]]:
    """Random shoes, half of them built from runs so that every pattern turns up."""
    rng = random.Random(20261201)
    shoes: list[list[dict[str, Any]]] = [[]]
    for i in range(120):
        results: list[str] = []
        while len(results) < rng.randint(1, 78):
            if i % 2:
                side = rng.choice(("banker", "player"))
                results += [side] * rng.choice((1, 1, 2, 2, 3, 5))
            else:
                results.append(rng.choices(("banker", "player", "tie"), weights=(46, 45, 9))[0])
            if rng.random() < 0.08:
                results.append("tie")
        shoes.append(
            [
                {
                    "winner": w,
                    "points": rng.randint(0, 9),
                    "player_pair": rng.random() < 0.08,
                    "banker_pair": rng.random() < 0.08,
                    "natural": rng.random() < 0.3,
                }
                for w in results
            ]
        )
    return shoes


def test_browser_good_roads_and_statistics_match_the_engine(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    page = open_page(browser, server, DESKTOP)
    pages.append(page)
    shoes = streaky_shoes()
    got = page.evaluate(JS_PATTERNS, shoes)
    seen: set[str] = set()
    for marks, browser_said in zip(shoes, got, strict=True):
        parsed = parse_marks(marks)
        want = [values.good_road(g) for g in good_roads(parsed)]
        assert browser_said["good"] == want, marks
        assert browser_said["stats"] == stats(parsed).to_dict()
        seen |= {g["pattern"] for g in want}
    assert seen == set(PATTERNS), "the shoes should show every pattern at least once"


def test_good_roads_stats_and_the_last_shoe_on_the_table_and_the_lobby_filter(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor]
    log_in(dealer, create_account(server, "roaddealer"))
    log_in(bettor, create_account(server, "roadbettor"))
    # A table nobody sits at whose shoe has dealt nothing yet (its roads start from this
    # round): the first such in the lobby (earlier tests take their quiet tables from its end).
    bettor.wait_for_selector(".table-card")
    table = bettor.evaluate(
        """() => (window.baccaratApp.lobby.page?.tables ?? [])
             .filter((tb) => tb.seats.every((s) => !s) && !(tb.beads ?? []).length)
             .map((tb) => tb.table_id)[0] ?? null"""
    )
    assert table, "no empty table with a fresh shoe is left for the roads' test"
    # The lobby's filter: "any good road" keeps only tables that show one.
    bettor.click(".road-filter [data-filter='any']")
    bettor.wait_for_selector(".road-filter [data-filter='any'].on")
    # The server filtered the page (it answered with the filter it applied).
    bettor.wait_for_selector(".lobby-screen[data-road='any']")
    cards = bettor.locator(".table-card")
    assert cards.count() == bettor.locator(".table-card .tc-good").count()
    bettor.click(".road-filter [data-filter='all']")
    bettor.wait_for_selector(".lobby-screen[data-road='all']")
    bettor.wait_for_selector(f".table-card[data-table='{table}']")
    assert bettor.locator(".road-filter .rf").first.inner_text() == "全部"
    sit(dealer, table, 0)
    sit(bettor, table, 1)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
    assert place_chip(bettor, 1, "banker") == "ok"
    # The dealer leaves after this round: the table then waits, and nothing redraws the roads.
    # (the table has it before the round goes on: a loaded machine must not deal a second)
    dealer.click(".dealer-bar .btn-stand")
    bettor.wait_for_selector(".seat[data-seat='0'] .seat-leaving")
    open_every_squeeze(bettor, server, table)
    bettor.wait_for_selector(".table-screen[data-phase='waiting']", timeout=30_000)
    bettor.wait_for_selector(".roads-panel .cnt-all[data-rounds='1']")
    # Statistics one tap away, from the shoe's history.
    bettor.click(".roads-panel [data-action='stats']")
    bettor.wait_for_selector(".roads-panel .stats-box .stat-natural")
    winner = bettor.evaluate("() => window.baccaratApp.table.view.history[0].winner")
    assert "1 · 100%" in bettor.inner_text(f".roads-panel .stat-{winner}")
    # The previous shoe's roads: none yet; then as the table sends them when a shoe ends.
    assert bettor.is_disabled(".roads-panel [data-action='last-shoe']")
    long_banker = [
        {
            "winner": "banker",
            "points": 7,
            "player_pair": False,
            "banker_pair": False,
            "natural": False,
        }
    ] * 5
    inject = """(history) => {
      const panel = window.baccaratApp.table.screen.roads;
      panel.update(panel.history, panel.shoe, { shoe_id: 'x', commitment: null, seed: null, history });
    }"""
    bettor.evaluate(inject, long_banker)
    bettor.click(".roads-panel [data-action='last-shoe']")
    bettor.wait_for_selector(
        ".roads-panel[data-shoe='last'] .good-roads .gr[data-pattern='long_banker']"
    )
    assert bettor.inner_text(".roads-panel .gr[data-pattern='long_banker']") == "長莊 5"
    assert bettor.locator(".roads-panel[data-shoe='last'] .asks").count() == 0
    english(bettor)  # the screen is drawn again, from the table's own state
    bettor.evaluate(inject, long_banker)
    bettor.click(".roads-panel [data-action='last-shoe']:text('Last shoe')")
    bettor.wait_for_selector(".roads-panel [data-action='this-shoe']:text('This shoe')")
    assert bettor.inner_text(".roads-panel .gr[data-pattern='long_banker']") == "Long Banker 5"
    bettor.click(".roads-panel [data-action='this-shoe']")
    bettor.wait_for_selector(".roads-panel[data-shoe='current'] .asks")
    assert not bettor.js_errors and not dealer.js_errors


WATCH_MY_SQUEEZE = """() => {
  // Whether this page ever showed its own squeeze (the controller's big card).
  window.mySqueezeShown = false;
  const look = () => {
    const el = document.querySelector('.squeeze.mine');
    if (el && !el.hidden) window.mySqueezeShown = true;
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
}"""


def test_auto_open_opens_my_cards_at_once_and_is_remembered(
    server: Server, browser: Any, pages: list[Any]
) -> None:
    table = "standard-3"
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    pages += [dealer, bettor]
    log_in(dealer, create_account(server, "autodealer"))
    log_in(bettor, create_account(server, "autoopener"))
    # The first scene used this table: seat 3 was never taken there.
    sit(dealer, table, 0)
    sit(bettor, table, 3)
    bettor.wait_for_selector(".tray [data-action='auto-open']")
    assert bettor.inner_text(".tray .auto-open") == "自動開牌"
    assert not bettor.is_checked("[data-action='auto-open']")
    bettor.click("[data-action='auto-open']")
    bettor.wait_for_selector(".tray .auto-open.on")
    bettor.evaluate(WATCH_MY_SQUEEZE)
    bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=30_000)
    assert place_chip(bettor, 1, "player") == "ok"
    skip(server, table)  # (nobody else bets: the rest of the betting is not waited out)
    # The only one who bets controls both hands; with 自動開牌 nothing waits for a squeeze.
    bettor.wait_for_selector(
        ".table-screen[data-phase='result'] .result-banner:not([hidden])", timeout=30_000
    )
    assert bettor.evaluate("() => window.mySqueezeShown") is False
    # Remembered for the account: a fresh page shows it on, in English too.
    bettor.reload()
    bettor.wait_for_selector(".tray [data-action='auto-open']")
    english(bettor)
    bettor.wait_for_selector(".tray .auto-open.on:text('Auto open')")
    assert bettor.is_checked("[data-action='auto-open']")
    bettor.click("[data-action='auto-open']")
    bettor.wait_for_selector(".tray .auto-open:not(.on)")
    assert not bettor.js_errors and not dealer.js_errors
