"""The screens as people see them: lobby, bettor and dealer views on a desktop and a phone.

A dealer (carol) and a bettor (dave) sit at a table that bots keep busy; the tests save
the screenshots shown in README.md and check that each screen fits its width, that the
language toggle is remembered, and that a dropped connection comes back by itself.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    drag_chip,
    held_at_next_betting,
    held_in,
    hold,
    hurry_rounds,
    log_in,
    needs_chromium,
    no_horizontal_overflow,
    open_page,
    place_chip,
    played_to,
    save_screenshot,
    sit,
    skip,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from sizes_support import PARTS, WATCH_RESIZE

pytestmark = [pytest.mark.browser, needs_chromium]

TABLE = "standard-2"
ROUNDS_BEFORE_PICTURES = 2
"""Rounds played before the screenshots, so that the roads show a little history."""


@dataclass
class Scene:
    """Two people at a busy table, each on a desktop and a phone, and what they saw."""

    dealer: Any
    bettor: Any
    dealer_phone: Any
    bettor_phone: Any
    lobby_phone: Any
    banker_stack: str
    dealer_book: str
    squeeze_face: str
    overflow: dict[str, bool]
    cards_on_phone: dict[str, Any]
    dragged: tuple[str, str, str]
    asked_while_betting: list[int]


FRESH_BETTING = """() => {
  const screen = document.querySelector('.table-screen');
  const secs = Number(document.querySelector('.main-ring .ring-text')?.textContent || 0);
  return screen?.dataset.phase === 'betting' && secs >= 6;
}"""
"""Betting is open with at least 6 seconds left (room for a few clicks on a slow machine)."""

WATCH_CARDS = """() => {
  // Every 50 ms: each card of either hand that has landed (no deal or flip animation running)
  // must lie inside the window. Offenders are kept with where they were.
  const seen = { checks: 0, most: 0, outside: [] };
  window.cardWatch = seen;
  setInterval(() => {
    const cards = [...document.querySelectorAll('.hand .card:not(.slot)')];
    const landed = cards.filter((c) => c.getAnimations().length === 0);
    seen.checks += 1;
    seen.most = Math.max(seen.most, landed.length);
    for (const c of landed) {
      const r = c.getBoundingClientRect();
      if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) {
        seen.outside.push({ hand: c.closest('.hand').dataset.hand, i: c.dataset.i,
                            left: r.left, right: r.right, cards: cards.length });
      }
    }
  }, 50);
}"""
"""Watch the hands on a page for the rest of the test."""

THREE_CARDS_EACH = """() => {
  // Draw the table once with three cards in each hand (the most a hand holds), measure every
  // card, and draw the real view again; all in one task, so no table event comes between.
  const table = window.baccaratApp.table;
  const three = (codes) => codes.map((card) => ({ card }));
  table.screen.render({ ...table.view, hands: { player: three(['QC', 'TC', '7H']),
                                                banker: three(['4S', '8S', '2D']) } });
  const rects = [...document.querySelectorAll('.hand .card')].map((c) => {
    const r = c.getBoundingClientRect();
    return { hand: c.closest('.hand').dataset.hand, left: r.left, right: r.right };
  });
  table.screen.render(table.view);
  return { width: innerWidth, rects };
}"""
"""Where six cards would lie on this page."""


def cards_outside(page: Any) -> list[dict[str, Any]]:
    """The cards that would leave the window with three in each hand (six are measured)."""
    seen = page.evaluate(THREE_CARDS_EACH)
    assert len(seen["rects"]) == 6
    return [r for r in seen["rects"] if r["left"] < 0 or r["right"] > seen["width"]]


def bet_in_one_window(page: Any, bets: list[Callable[[], str]], tries: int = 3) -> list[str]:
    """Make every bet within one betting window; on a busy machine a window may close before
    the last one, and then all are made again in the next round (a new round's slip is empty).
    Returns what each bet was answered."""
    answers: list[str] = []
    for _ in range(tries):
        page.wait_for_function(FRESH_BETTING, timeout=60_000)
        answers = []
        for bet in bets:
            answers.append(bet())
            if answers[-1] != "ok":
                break
        if answers == ["ok"] * len(bets):
            break
        page.wait_for_selector(".table-screen:not([data-phase='betting'])", timeout=30_000)
    return answers


RESULT_SHOWN = """() => document.querySelector(
  ".table-screen[data-phase='result'] .result-banner:not([hidden])")"""
REVEAL_DONE = "() => !document.querySelector('.sq-reveal')"


def next_betting(server: Server) -> None:
    """The table at the start of its next betting, the phases before it ended at once."""
    held_at_next_betting(server, TABLE)
    hold(server, TABLE, None)


@contextlib.contextmanager
def result_held(server: Server) -> Iterator[None]:
    """The table played to its next result and held there while the block runs."""
    try:
        played_to(server, TABLE, "result")
        yield
    finally:
        hold(server, TABLE, None)


def result_picture(page: Any, name: str) -> None:
    """A picture of the result on the page (held), once its last reveal has landed (played
    three times faster)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 3})
    try:
        page.wait_for_function(RESULT_SHOWN, timeout=60_000)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(REVEAL_DONE, timeout=3_000)
    finally:
        cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
        cdp.detach()
    page.wait_for_timeout(200)  # let the banner and the badges finish popping in
    save_screenshot(page, name)


SIZE_PICTURES = [(1366, 768), (2560, 1440), (360, 640)]
"""The sizes of the bettor's table README.md shows beside its desktop and phone."""


def to_english(page: Any) -> None:
    """Switch the page to English with the toolbar's toggle."""
    page.click("[data-action='lang']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")


def to_chinese(page: Any) -> None:
    """Switch the page back to zh-TW."""
    page.click("[data-action='lang']")
    page.wait_for_function("() => document.documentElement.lang === 'zh-Hant'")


def in_english(page: Any, then: Callable[[], Any]) -> None:
    """Switch the page to English, do ``then`` (a picture), and switch back to zh-TW."""
    to_english(page)
    page.wait_for_timeout(200)
    then()
    to_chinese(page)


def start_bots(server: Server) -> subprocess.Popen[bytes]:
    """Three bots betting at the table (they never deal), in one process of their own."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "baccarat",
            "bots",
            "--url",
            server.url,
            "--count",
            "3",
            "--no-deal",
            "--table",
            TABLE,
            "--strategy",
            "mixed",
            "--seed",
            "7",
            "--processes",
            "1",
            "--prefix",
            "e2ebot",
            "--password",
            "bot-password",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End a subprocess started here."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def scene(server: Server, browser: Any, request: pytest.FixtureRequest) -> Scene:
    """carol deals and dave bets among bots; screenshots of every view are saved."""
    overflow: dict[str, bool] = {}
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    log_in(dealer, "carol")
    log_in(bettor, "dave")
    sit(dealer, TABLE, 0)
    bots = start_bots(server)
    request.addfinalizer(lambda: stop(bots))
    # erin watches the table on her phone while rounds are dealt.
    lobby_phone = open_page(browser, server, PHONE, phone=True)
    log_in(lobby_phone, "erin")
    lobby_phone.click(f".table-card[data-table='{TABLE}'] .btn-watch")
    lobby_phone.wait_for_selector(".table-screen")
    lobby_phone.evaluate(WATCH_CARDS)
    # A few rounds fill the roads before the pictures are taken. dave sits down only then:
    # a bettor who lets five rounds pass without a bet loses the seat.
    hurry_rounds(server, TABLE, dealer, ROUNDS_BEFORE_PICTURES)
    free = bettor.evaluate(
        """(table) => [...document.querySelectorAll(`.table-card[data-table='${table}']
             .tc-bettors .seat-dot.free`)].map((e) => Number(e.dataset.seat))""",
        TABLE,
    )
    assert free, "the bots left no bettor seat free"
    sit(bettor, TABLE, max(free))
    # How many snapshots chip_placed events asked for (none, when applied in place).
    resyncs = "window.baccaratApp.table.resyncCauses.chip_placed ?? 0"
    asked_before: list[int] = []

    def count_from_here() -> str:
        asked_before[:] = [bettor.evaluate(resyncs), dealer.evaluate(resyncs)]
        return "ok"

    # The first chip is dragged onto 莊 with the mouse, the others tapped.
    answers = bet_in_one_window(
        bettor,
        [
            count_from_here,
            lambda: drag_chip(bettor, 10, "banker"),
            lambda: place_chip(bettor, 10, "banker"),
            lambda: place_chip(bettor, 5, "banker"),
            lambda: place_chip(bettor, 1, "banker_pair"),
        ],
    )
    dragged = answers[1] if len(answers) > 1 else "not tried"
    assert answers[2:] == ["ok"] * 3
    # dave squeezes this round's cards: the table holds in each squeeze while he peels (the
    # bots open theirs), so a slow page still shows his card before its time runs out.
    hold(server, TABLE, "squeeze")
    # (on the chip itself: betting may have closed already, and the squeeze covers the tray)
    bettor.dispatch_event(".tray-chip[data-chip='5']", "click")
    banker_stack = bettor.inner_text(".area[data-area='banker'] .my-stack")
    dealer.wait_for_function(
        "() => document.querySelector('.book-table')?.textContent.includes('2,500')",
        timeout=10_000,
    )
    dealer_book = dealer.inner_text(".book-table")
    asked_while_betting = [
        bettor.evaluate(resyncs) - asked_before[0],
        dealer.evaluate(resyncs) - asked_before[1],
    ]
    for name, page in (("bettor-desktop", bettor), ("dealer-desktop", dealer)):
        save_screenshot(page, name)
        overflow[name] = no_horizontal_overflow(page)
    # The bettor's table at a laptop's, a large desktop's and a small phone's size, in both
    # languages: the one page resized, each picture taken once it has laid out (PARTS).
    bettor.evaluate(WATCH_RESIZE)
    for w, h in SIZE_PICTURES:
        bettor.set_viewport_size({"width": w, "height": h})
        bettor.evaluate(PARTS, "betting")
        save_screenshot(bettor, f"bettor-{w}x{h}")
        in_english(bettor, lambda w=w, h=h: save_screenshot(bettor, f"bettor-{w}x{h}-en"))
    bettor.set_viewport_size(DESKTOP)
    # dave has the largest stake, so he squeezes at least one hand's face-down card (the
    # rest of the betting is not waited out).
    skip(server, TABLE)
    try:
        bettor.wait_for_selector(".squeeze.mine:not([hidden])", timeout=60_000)
        held_in(server, TABLE, "squeeze")
        box = bettor.locator(".squeeze .sq-card").bounding_box()
        assert box is not None
        bettor.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] - 4)
        bettor.mouse.down()
        bettor.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.55, steps=6)
        squeeze_face = bettor.get_attribute(".squeeze .sq-face svg", "data-card") or ""
        save_screenshot(bettor, "squeeze-desktop")
        bettor.mouse.up()
    finally:
        # Let go of the squeeze and hold the result instead, for its picture.
        hold(server, TABLE, None)
    with result_held(server):
        result_picture(bettor, "result-desktop")
        overflow["result-desktop"] = no_horizontal_overflow(bettor)
        lobby_phone.wait_for_selector(".table-screen[data-phase='result']", timeout=30_000)
    cards_on_phone = dict(lobby_phone.evaluate("window.cardWatch"))
    cards_on_phone["three_each_zh"] = cards_outside(lobby_phone)
    lobby_phone.click(".table-screen [data-action='lang']")
    lobby_phone.wait_for_selector(".area[data-area='banker'] .area-name:text('Banker')")
    cards_on_phone["three_each_en"] = cards_outside(lobby_phone)
    lobby_phone.click(".table-screen [data-action='lang']")
    lobby_phone.wait_for_selector(".area[data-area='banker'] .area-name:text('莊')")
    # The lobbies, with the tables' bead plates filled by now.
    lobby_phone.click(".btn-lobby")
    lobby_desktop = open_page(browser, server, DESKTOP)
    log_in(lobby_desktop, "erin")
    for name, page in (("lobby-phone", lobby_phone), ("lobby-desktop", lobby_desktop)):
        page.wait_for_selector(f".table-card[data-table='{TABLE}'] .mini-beads")
        save_screenshot(page, name)
        overflow[name] = no_horizontal_overflow(page)
        in_english(page, lambda page=page, name=name: save_screenshot(page, f"{name}-en"))
    # Pages read for the last time are closed: they would draw every round still to come.
    lobby_desktop.context.close()
    dealer_phone = open_page(browser, server, PHONE, phone=True)
    bettor_phone = open_page(browser, server, PHONE, phone=True)
    log_in(dealer_phone, "carol")
    log_in(bettor_phone, "dave")
    for page in (dealer_phone, bettor_phone):
        page.wait_for_selector(".table-screen .seat.me")
    bettor.context.close()  # (dave is at the table on his phone now)
    # Next round, on the phone, a finger drags a chip onto 莊 (once the last round's card,
    # opened a moment ago by the fast-forward, has flown to its hand).
    next_betting(server)
    for page in (dealer_phone, bettor_phone):
        page.wait_for_function("() => !document.querySelector('.sq-reveal')", timeout=10_000)
    (touch_dragged,) = bet_in_one_window(
        bettor_phone, [lambda: drag_chip(bettor_phone, 2, "banker", touch=True)]
    )
    touch_stack = bettor_phone.inner_text(".area[data-area='banker'] .my-stack")
    for name, page in (("dealer-phone", dealer_phone), ("bettor-phone", bettor_phone)):
        save_screenshot(page, name)
        overflow[name] = no_horizontal_overflow(page)
    to_english(dealer_phone)
    dealer_phone.wait_for_timeout(200)
    save_screenshot(dealer_phone, "dealer-phone-en")
    to_english(dealer)
    # That round's result on dave's phone, and on carol's phone and desktop in English (or the
    # next round's, when a loaded machine lets a result end before its picture).
    with result_held(server):
        result_picture(bettor_phone, "result-phone")
        result_picture(dealer_phone, "result-phone-en")
        result_picture(dealer, "result-desktop-en")
    to_chinese(dealer_phone)
    to_chinese(dealer)
    # The fairness panel (公平性).
    for name, page in (("fairness-desktop", dealer), ("fairness-phone-en", bettor_phone)):

        def picture(page: Any = page, name: str = name) -> None:
            page.click("[data-action='fairness']")
            page.wait_for_selector(".fair-panel:not([hidden])")
            save_screenshot(page, name)
            page.keyboard.press("Escape")

        if name.endswith("-en"):
            in_english(page, picture)
        else:
            picture()
    return Scene(
        dealer,
        bettor,
        dealer_phone,
        bettor_phone,
        lobby_phone,
        banker_stack,
        dealer_book,
        squeeze_face,
        overflow,
        cards_on_phone,
        (dragged, touch_dragged, touch_stack),
        asked_while_betting,
    )


def test_every_view_fits_its_width(scene: Scene) -> None:
    assert scene.overflow == {
        name: True
        for name in (
            "lobby-desktop",
            "lobby-phone",
            "bettor-desktop",
            "dealer-desktop",
            "result-desktop",
            "dealer-phone",
            "bettor-phone",
        )
    }


def test_every_card_of_both_hands_stays_on_a_phone_screen(scene: Scene) -> None:
    seen = scene.cards_on_phone
    # The round was watched dealt: at least both hands' first two cards were checked.
    assert seen["most"] >= 4
    assert seen["outside"] == []
    # Three cards in each hand, the third lying sideways, fit in either language.
    assert seen["three_each_zh"] == [] and seen["three_each_en"] == []


def test_a_chip_dragged_onto_banker_is_bet_by_mouse_and_by_finger(scene: Scene) -> None:
    by_mouse, by_finger, finger_stack = scene.dragged
    assert by_mouse == "ok"
    assert by_finger == "ok"
    assert finger_stack.strip() == "200"


def test_bettor_sees_own_chips_and_the_dealer_books_them(scene: Scene) -> None:
    assert scene.banker_stack.strip() == "2,500"
    # The dealer's book lists dave's Banker stake in coins (25 chips x 100).
    assert "2,500" in scene.dealer_book


def test_chips_placed_are_drawn_from_their_events_without_a_snapshot(scene: Scene) -> None:
    # The bettor's stack and the dealer's book above came from chip_placed events alone.
    assert scene.asked_while_betting == [0, 0]


def test_the_controller_peels_the_real_card(scene: Scene) -> None:
    # Under the peel the controller's big card shows the real face (a card like "5S").
    assert len(scene.squeeze_face) == 2 and scene.squeeze_face != "card"


def test_language_toggle_switches_terms_and_is_remembered(scene: Scene) -> None:
    page = scene.bettor_phone
    page.click(".table-screen [data-action='lang']")
    page.wait_for_selector(".area[data-area='banker'] .area-name:text('Banker')")
    assert page.evaluate("localStorage.getItem('baccarat.lang')") == "en"
    page.reload()
    page.wait_for_selector(".area[data-area='banker'] .area-name:text('Banker')")
    page.click(".table-screen [data-action='lang']")
    page.wait_for_selector(".area[data-area='banker'] .area-name:text('莊')")


def test_dropped_connection_shows_offline_and_comes_back(scene: Scene) -> None:
    page = scene.dealer_phone
    # The socket closes as a lost one does; the first try to reconnect comes after 1.5 to
    # 2.5 s (the third step of the backoff), so a loaded machine still sees the notice.
    # (Closing it while the page is offline left the close unanswered on a loaded machine.)
    page.evaluate(
        "window.baccaratApp.session.conn.retry = 2; window.baccaratApp.session.conn.ws.close()"
    )
    page.wait_for_selector("#offline:not([hidden])")
    page.wait_for_selector("#offline", state="hidden", timeout=20_000)
    # Back at the same seat, from a fresh snapshot.
    page.wait_for_selector(".table-screen .seat.me[data-seat='0']")
    assert page.evaluate("window.baccaratApp.session.conn.online")
