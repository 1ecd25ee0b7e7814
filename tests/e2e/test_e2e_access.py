"""Every screen for a player who does not see it or uses no pointer.

axe-core (through ``axe-playwright-python``, every rule but the experimental ones: WCAG 2.2
AA and its best practices) finds nothing on the login, the lobby (in English, and in Chinese
with a dealer seated), the table for the bettor, the dealer and a watcher in betting, squeeze
and result, My bets, the fairness panel, ``/verify`` and the operator console. The lobby's
seats are named in words in the page's language (the seat to sit in, or whose it is). A
bettor plays a whole round by keyboard alone (log in, sit, pick a chip and an area, peel with
the arrows and open with Enter, stand up) while the dealer urges by keyboard, and the table's
live region says the round in the page's language, each line once: what a screen reader would
read, checked line by line. Reduced motion is asked for with ``page.emulate_media``: no chip
flies and an opened card turns over at once.

One round is played (module fixture), held in each phase with the test hooks while the three
pages are checked; the tests read what it recorded.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyotp
import pytest
from axe_playwright_python.sync_playwright import Axe
from e2e_support import (
    PASSWORD,
    Server,
    create_account,
    held_in,
    hold,
    leave_empty,
    log_in,
    needs_chromium,
    open_page,
    played_to,
    quiet_table,
    save_screenshot,
    set_role,
    sit,
)
from playwright.sync_api import Error as PlaywrightError

from baccarat.cards import parse_cards
from baccarat.rules import next_draw

pytestmark = [pytest.mark.browser, needs_chromium]

LAPTOP = {"width": 1366, "height": 768}
SMALL_PHONE = {"width": 360, "height": 640}
ZOOMED = {"width": 683, "height": 384}
"""The laptop at 200% zoom: half its CSS pixels each way."""
BETTOR, DEALER, WATCHER, OPERATOR = "a11y-bettor", "a11y-dealer", "a11y-watcher", "a11y-op"
CHIP = 2
CONSOLE_TABS = ("users", "grants", "records", "shoes", "risk", "log")

RECORD = """() => {
  // What a screen reader gets from the table's live region: each line as it is added. And
  // whether anything flew or turned: chips in flight, and each reveal's animations' lengths.
  window.heard = [];
  window.flying = 0;
  window.turns = [];
  new MutationObserver((records) => {
    for (const r of records) for (const node of r.addedNodes) {
      if (node.nodeType !== 1) continue;
      if (node.parentElement?.classList.contains('announcer')) window.heard.push(node.textContent);
      if (node.classList.contains('chip-ghost')) window.flying += 1;
      // (the steps that move: a turn, a slide or a flight; the beat it holds still is none)
      const moves = (a) => a.effect.getKeyframes().some((k) => k.transform && k.transform !== 'none');
      if (node.classList.contains('sq-reveal')) requestAnimationFrame(() => window.turns.push(
        node.getAnimations({ subtree: true }).filter(moves).map((a) => a.effect.getTiming().duration)));
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""

FOCUSED = """() => { const el = document.activeElement;
  return el ? { tag: el.localName, cls: el.className?.baseVal ?? el.className,
    area: el.dataset?.area ?? null, role: el.getAttribute('role'),
    value: el.getAttribute('aria-valuenow'),
    outline: getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth } : null; }"""

SQUEEZE = "() => { const sq = window.baccaratApp.table.view?.squeeze; return sq ? `${sq.hand}:${sq.position}` : null; }"

NEXT_OF_MINE = """(was) => { const v = window.baccaratApp.table.view;
  if (document.querySelector(".table-screen[data-phase='result']")) return 'result';
  const sq = v?.squeeze, key = sq ? `${sq.hand}:${sq.position}` : null;
  return key && key !== was && document.querySelector('.squeeze.mine:not([hidden])') ? key : null; }"""

SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUITS_ZH = {"S": "黑桃", "H": "紅心", "D": "方塊", "C": "梅花"}
RANKS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}


def in_words(code: str, zh: bool) -> str:
    """A card as the page should name it, from its code."""
    rank, suit = code[:-1].replace("10", "T"), code[-1]
    if zh:
        return f"{SUITS_ZH[suit]} {'10' if rank == 'T' else rank}"
    return f"{RANKS.get(rank, rank)} of {SUITS[suit]}"


def value(code: str) -> int:
    """A card's baccarat value."""
    rank = code[:-1]
    return 1 if rank == "A" else int(rank) if rank.isdigit() and rank != "10" else 0


@dataclass
class Tour:
    """What the pages showed and said through the round."""

    pages: dict[str, Any]
    found: dict[str, list[str]] = field(default_factory=dict)
    """Each screen's axe violations (id, impact, the first elements)."""
    focus: dict[str, Any] = field(default_factory=dict)
    """Where the keyboard was at each step of the bettor's round."""
    heard: dict[str, list[str]] = field(default_factory=dict)
    outcome: dict[str, Any] = field(default_factory=dict)
    net: int | None = None
    unit: int = 0
    """Coins a chip is worth at the table."""
    round_no: int = 0
    urged: bool = False
    peeled_elsewhere: str = ""
    motion: dict[str, Any] = field(default_factory=dict)
    zoomed: dict[str, Any] = field(default_factory=dict)
    seats: dict[str, dict[str, str]] = field(default_factory=dict)
    """By language: the lobby's seats of the table as a screen reader gets them (the table's
    name, their accessibility tree, and the one the keyboard sits in from)."""


AXE = Axe()


def check(tour: Tour, page: Any, screen: str) -> None:
    """Run axe-core on the page as it is and keep what it found."""
    violations = AXE.run(page).response["violations"]
    tour.found[screen] = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:4]]}" for v in violations
    ]


def tab_to(page: Any, selector: str, *, back: bool = False, limit: int = 150) -> None:
    """Press Tab (or Shift+Tab) until the focus is on ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"{selector} is not reached by the keyboard in {limit} presses")


def keyboard_log_in(page: Any, name: str) -> None:
    """Switch to English and log in, by keyboard alone."""
    page.wait_for_selector(".login-form")
    tab_to(page, "[data-action='lang']")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    tab_to(page, "input[name=username]")
    page.keyboard.type(name)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector(".lobby-screen")


HANDS = """() => { const v = window.baccaratApp.table.view, sq = v.squeeze;
  // Each hand's cards as they will be once the squeezed one opens (null: one still face down).
  const cards = (h) => v.hands[h].map((c, i) => h === sq.hand && i === sq.position ? sq.card : c.card ?? null);
  return [cards('player'), cards('banker')]; }"""


def opens_the_last_card(page: Any) -> bool:
    """Whether the card squeezed now is the round's last: no other is face down, and the
    tableau draws no third card once it is open (the round then settles at once)."""
    player, banker = page.evaluate(HANDS)
    if None in player + banker:
        return False
    return next_draw(parse_cards(player), parse_cards(banker)) is None


def squeezes_by_keyboard(server: Server, table: str, tour: Tour) -> None:
    """Held at the first squeeze: peel it with the arrows, then open each card with Enter; the
    table holds at each squeeze, and at the result once the last card is opened."""
    bettor, dealer = tour.pages["bettor"], tour.pages["dealer"]
    tour.focus["squeeze"] = bettor.evaluate(FOCUSED)
    for _ in range(3):
        bettor.keyboard.press("ArrowUp")
    # (the slider's value is drawn with the peel, on the next frame)
    bettor.wait_for_function(
        "() => document.activeElement?.getAttribute('aria-valuenow') === '30'", timeout=5_000
    )
    tour.focus["peeled"] = bettor.evaluate(FOCUSED)
    dealer.wait_for_function(
        "() => document.querySelector('.squeeze:not([hidden])')?.dataset.peel?.endsWith(':0.300')"
    )
    tour.peeled_elsewhere = dealer.get_attribute(".squeeze", "data-peel") or ""
    was = bettor.evaluate(SQUEEZE)
    for _ in range(6):
        if opens_the_last_card(bettor):
            hold(server, table, "result")
        bettor.keyboard.press("Enter")
        got = bettor.wait_for_function(NEXT_OF_MINE, arg=was, timeout=15_000).json_value()
        if got == "result":
            return
        was = got
        tour.focus[f"squeeze {got}"] = bettor.evaluate(FOCUSED)
    raise AssertionError("the round dealt more than six squeezes")


def bet_by_keyboard(tour: Tour) -> None:
    """The dealer urges, the bettor picks a chip and bets it on Player: keys only."""
    bettor, dealer = tour.pages["bettor"], tour.pages["dealer"]
    tab_to(dealer, "[data-action='urge']")
    dealer.keyboard.press("Enter")
    bettor.wait_for_selector(".urge-banner:not([hidden])")
    tour.urged = True
    save_screenshot(dealer, "access-focus-urge-laptop-zh")
    tab_to(bettor, f".tray-chip[data-chip='{CHIP}']")
    bettor.keyboard.press("Enter")
    bettor.wait_for_selector(f".tray-chip[data-chip='{CHIP}'][aria-pressed='true']")
    tour.focus["chip"] = bettor.evaluate(FOCUSED)
    tab_to(bettor, ".area[data-area='player']", back=True)
    bettor.keyboard.press("Enter")
    bettor.wait_for_selector(".area[data-area='player'] .my-stack")
    tour.focus["area"] = bettor.evaluate(FOCUSED)
    save_screenshot(bettor, "access-focus-area-laptop-en")


def play_round(server: Server, table: str, tour: Tour) -> None:
    """Sit by keyboard, bet, squeeze and open, with each phase held while axe looks."""
    bettor, watcher = tour.pages["bettor"], tour.pages["watcher"]
    hold(server, table, "betting")
    tab_to(bettor, f".table-card[data-table='{table}'] .seat-dot[data-seat='1']")
    tour.seats["en"] = lobby_seats(bettor, table, focused=True)
    bettor.keyboard.press("Enter")
    bettor.wait_for_selector(".table-screen .seat.me[data-seat='1']")
    tour.focus["seated"] = bettor.evaluate(FOCUSED)
    held_in(server, table, "betting")
    for name, page in tour.pages.items():
        page.wait_for_selector(".table-screen[data-phase='betting']")
        check(tour, page, f"{name} betting")
    bet_by_keyboard(tour)
    tour.round_no = int(bettor.evaluate("window.baccaratApp.table.view.round_no"))
    played_to(server, table, "squeeze")
    for name, page in tour.pages.items():
        page.wait_for_selector(".squeeze:not([hidden])")
        check(tour, page, f"{name} squeeze")
    save_screenshot(watcher, "access-squeeze-phone-zh")
    squeezes_by_keyboard(server, table, tour)
    held_in(server, table, "result")
    for name, page in tour.pages.items():
        page.wait_for_selector(".result-banner:not([hidden])")
        check(tour, page, f"{name} result")
    view = bettor.evaluate("window.baccaratApp.table.view")
    tour.outcome = view["result"]["outcome"]
    tour.net = view["result"]["settlement"]["deltas"].get(str(view["me"]["user_id"]))
    tour.unit = view["chip_unit"]
    zoomed(tour)
    watcher.click("[data-action='fairness']")
    watcher.wait_for_selector(".fair-panel:not([hidden]) .fp-body *")
    check(tour, watcher, "fairness panel")
    watcher.keyboard.press("Escape")
    for name, page in tour.pages.items():
        tour.heard[name] = page.evaluate("window.heard")
        tour.motion[name] = page.evaluate("({ flying: window.flying, turns: window.turns })")
    hold(server, table, None)


def lobby_seats(page: Any, table: str, *, focused: bool = False) -> dict[str, str]:
    """The table's seats in the lobby as the accessibility tree has them (and the focused
    element, when the keyboard is on one)."""
    card = page.locator(f".table-card[data-table='{table}']")
    seen = {
        "table": card.locator("h3").inner_text(),
        "tree": card.locator(".tc-seats").aria_snapshot(),
    }
    if focused:
        seen["focused"] = page.locator(":focus").aria_snapshot()
    return seen


def zoomed(tour: Tour) -> None:
    """The seated bettor's laptop at 200% zoom (half the CSS pixels each way): every control of
    the round is there, inside the page's width, and the page does not scroll sideways."""
    bettor = tour.pages["bettor"]
    bettor.set_viewport_size(ZOOMED)
    tour.zoomed = bettor.evaluate(
        """() => ({ overflow: document.documentElement.scrollWidth - innerWidth,
          controls: [...document.querySelectorAll(
            '.area, .tray-chip, [data-action=stand], [data-action=history], .btn-lobby')]
            .filter((e) => { const r = e.getBoundingClientRect();
              return r.width >= 1 && r.left >= 0 && r.right <= innerWidth; }).length })"""
    )
    save_screenshot(bettor, "access-zoom-200-en")
    bettor.set_viewport_size(LAPTOP)


def after_the_round(server: Server, table: str, tour: Tour) -> None:
    """Stand up and open My bets by keyboard; the watcher's phone in English; /verify."""
    bettor, watcher = tour.pages["bettor"], tour.pages["watcher"]
    tab_to(bettor, "[data-action='stand']")
    bettor.keyboard.press("Enter")
    bettor.wait_for_selector(".table-screen:not(:has(.seat.me))", timeout=20_000)
    watcher.click("[data-action='lang']")
    watcher.wait_for_function("() => document.documentElement.lang === 'en'")
    tab_to(watcher, ".btn-sit")
    check(tour, watcher, "watcher in English")
    save_screenshot(watcher, "access-focus-phone-en")
    tab_to(bettor, "[data-action='history']")
    bettor.keyboard.press("Enter")
    bettor.wait_for_selector(".history-screen .hist-round")
    tour.focus["history"] = bettor.evaluate(FOCUSED)
    check(tour, bettor, "history")
    watcher.goto(server.url + "/verify")
    watcher.wait_for_selector("main")
    check(tour, watcher, "verify")


def console_tour(server: Server, browser: Any, tour: Tour) -> None:
    """The operator console: its login, the enrolment of an authenticator and every tab."""
    create_account(server, OPERATOR)
    set_role(server, OPERATOR, "operator", "accessibility check")
    op = tour.pages["operator"] = open_page(browser, server, LAPTOP)
    op.goto(server.url + "/admin/")
    op.wait_for_selector(".cs-login")
    check(tour, op, "console login")
    op.fill(".cs-login input[name=username]", OPERATOR)
    op.fill(".cs-login input[name=password]", PASSWORD)
    op.click(".cs-login button[type=submit]")
    op.wait_for_selector(".cs-enrol img.cs-qr")
    check(tour, op, "console enrolment")
    op.fill(".cs-login input[name=code]", pyotp.TOTP(op.inner_text(".cs-secret").strip()).now())
    op.click(".cs-login button[type=submit]")
    op.wait_for_selector(".cs-main[data-view='tables'] [data-list='tables'] tbody tr")
    check(tour, op, "console tables")
    for tab in CONSOLE_TABS:
        op.click(f"[data-tab='{tab}']")
        op.wait_for_selector(f".cs-main[data-view='{tab}'] > div > *")
        with contextlib.suppress(PlaywrightError):
            op.wait_for_load_state("networkidle", timeout=3_000)
        check(tour, op, f"console {tab}")


@pytest.fixture(scope="module")
def tour(server: Server, browser: Any) -> Iterator[Tour]:
    """The round, played and looked at (see the module's docstring)."""
    for name in (BETTOR, DEALER, WATCHER):
        create_account(server, name)
    bettor = open_page(browser, server, LAPTOP)
    bettor.emulate_media(reduced_motion="reduce")
    dealer = open_page(browser, server, LAPTOP)
    watcher = open_page(browser, server, SMALL_PHONE, phone=True)
    tour = Tour({"bettor": bettor, "dealer": dealer, "watcher": watcher})
    table = ""
    try:
        check(tour, bettor, "login")
        keyboard_log_in(bettor, BETTOR)
        check(tour, bettor, "lobby")
        table = quiet_table(bettor)
        for page in tour.pages.values():
            page.evaluate(RECORD)
        log_in(dealer, DEALER)
        sit(dealer, table, 0)
        log_in(watcher, WATCHER)
        # The lobby in Chinese, the dealer seated: each seat named in words, and axe.
        watcher.wait_for_selector(f".table-card[data-table='{table}'] .seat-dot.dealer.taken")
        tour.seats["zh"] = lobby_seats(watcher, table)
        check(tour, watcher, "lobby in Chinese")
        watcher.click(f".table-card[data-table='{table}'] .btn-watch")
        watcher.wait_for_selector(".table-screen")
        play_round(server, table, tour)
        after_the_round(server, table, tour)
        console_tour(server, browser, tour)
        yield tour
    finally:
        if table:
            hold(server, table, None)
            leave_empty(bettor, dealer, table=(server, table))
        for page in tour.pages.values():
            page.context.close()


SCREENS = [
    "login", "lobby", "lobby in Chinese",
    *(f"{who} {phase}" for who in ("bettor", "dealer", "watcher")
      for phase in ("betting", "squeeze", "result")),
    "fairness panel", "watcher in English", "history", "verify", "console login", "console enrolment",
    "console tables", *(f"console {tab}" for tab in CONSOLE_TABS),
]  # fmt: skip


def test_axe_finds_nothing_on_any_screen(tour: Tour) -> None:
    assert sorted(tour.found) == sorted(SCREENS)
    found = [f"{screen}: {line}" for screen, lines in tour.found.items() for line in lines]
    assert found == [], "\n".join(found)


def test_the_lobbys_seats_are_named_in_words_in_the_pages_language(tour: Tour) -> None:
    assert set(tour.seats) == {"en", "zh"}
    words = {
        "en": ("Seats at {}", "Dealer seat, taken by {}", "Sit in seat {}"),
        "zh": ("{} 的座位", "荷官位，{} 已入座", "坐 {} 號座位"),
    }
    for lang, (group, taken, free) in words.items():
        seen = tour.seats[lang]
        # The seats a group named by the table; the dealer's seat says whose it is (and is not
        # to be taken); every other seat, free, says which it is to sit in.
        want = [f'- group "{group.format(seen["table"])}":',
                f'  - button "{taken.format(DEALER)}" [disabled]',
                *(f'  - button "{free.format(n)}"' for n in range(1, 8))]  # fmt: skip
        assert [named(line) for line in seen["tree"].splitlines()] == want, (lang, seen["tree"])
    # The keyboard sat down from a seat that said so.
    assert named(tour.seats["en"]["focused"]) == '- button "Sit in seat 1"'


def named(line: str) -> str:
    """A line of an accessibility tree without the text a button shows (a seat's number, and
    a name when taken): its role, its name and whether it is disabled."""
    return re.sub(r'^(\s*- button "[^"]*"( \[disabled\])?).*$', r"\1", line)


def expected_lines(tour: Tour, zh: bool) -> list[str]:
    """The cards' and the squeezes' lines in the order of play, from the round's outcome."""
    hands = {hand: tour.outcome[hand]["cards"] for hand in ("player", "banker")}
    label = {"player": "閒" if zh else "Player", "banker": "莊" if zh else "Banker"}
    lines = []
    for position in range(3):
        for hand in ("player", "banker"):
            if position >= len(hands[hand]):
                continue
            code = hands[hand][position]
            nth = f"第 {position + 1} 張" if zh else f" card {position + 1}"
            where = f"{label[hand]}{nth}"
            if position > 0:  # every card after each hand's first is dealt face down
                lines.append(
                    f"{BETTOR} 瞇牌中：{where}"
                    if zh
                    else f"Your squeeze: {where}. Arrow keys peel, Enter opens"
                )
            points = sum(value(c) for c in hands[hand][: position + 1]) % 10
            lines.append(
                f"{where}：{in_words(code, True)}，{label[hand]} {points} 點"
                if zh
                else f"{where}: {in_words(code, False)}. {label[hand]} {points}"
            )
    return lines


def test_the_live_region_says_the_round_once_in_order_in_english(tour: Tour) -> None:
    heard = tour.heard["bettor"]
    assert len(heard) == len(set(heard)), heard
    start = heard.index(f"Round {tour.round_no}: place your bets, 8 seconds")
    o = tour.outcome
    winner = "Tie" if o["winner"] == "tie" else f"{o['winner'].title()} wins"
    result = f"{winner}. Player {o['player']['points']}, Banker {o['banker']['points']}"
    pairs = [name for hand, name in (("player", "P Pair"), ("banker", "B Pair")) if o[hand]["pair"]]
    net = tour.net or 0
    sign = "+" if net > 0 else "\u2212" if net < 0 else ""
    mine = f"Your net {sign}{abs(net):,}"
    fee = CHIP * tour.unit // 100 if net > 0 else 0
    if fee:
        mine += f", commission {fee}"
    want = [
        f"Round {tour.round_no}: place your bets, 8 seconds",
        f"Your bet on Player: {CHIP * tour.unit:,}",
        "Dealing",
        *expected_lines(tour, zh=False),
        ". ".join([result, *pairs, mine]),
    ]
    assert heard[start:] == want


def test_a_watcher_hears_the_round_in_chinese_without_a_net(tour: Tour) -> None:
    heard = tour.heard["watcher"]
    assert len(heard) == len(set(heard)), heard
    cards = expected_lines(tour, zh=True)
    at = heard.index("發牌")
    assert heard[at + 1 : at + 1 + len(cards)] == cards
    o = tour.outcome
    winner = "和局" if o["winner"] == "tie" else f"{'莊' if o['winner'] == 'banker' else '閒'} 贏"
    assert heard[at + 1 + len(cards)].startswith(
        f"{winner}，閒 {o['player']['points']} 點，莊 {o['banker']['points']} 點"
    )
    assert not any("淨額" in line for line in heard)


def test_a_whole_round_is_played_by_keyboard_with_the_focus_in_sight(tour: Tour) -> None:
    focus = tour.focus
    # Seated, the keyboard starts at the table's heading; a chip and an area keep the focus
    # through the redraws their bets bring, with a ring drawn round them.
    assert focus["seated"]["tag"] == "h1"
    assert focus["chip"]["cls"].startswith("tray-chip") and "solid 3px" in focus["chip"]["outline"]
    assert focus["area"]["area"] == "player" and "solid 3px" in focus["area"]["outline"]
    assert tour.urged
    # Each squeeze puts the keyboard on its card, a slider the arrows peel (the other screens
    # follow) and Enter opens.
    squeezes = [v for k, v in focus.items() if k.startswith("squeeze")]
    assert squeezes and all(f["role"] == "slider" for f in squeezes), squeezes
    assert focus["peeled"]["value"] == "30"
    assert tour.peeled_elsewhere.endswith(":0.300")
    # My bets (opened by keyboard after standing up by keyboard) starts at its heading.
    assert focus["history"]["tag"] == "h1"


def test_with_reduced_motion_no_chip_flies_and_no_card_turns(tour: Tour) -> None:
    motion = tour.motion["bettor"]
    assert motion["flying"] == 0
    # Every reveal of the round: its steps take no time (the beat it holds still is no motion).
    # (a reveal the result put in its hand at once has no step left to read)
    turns = motion["turns"]
    assert any(turns) and all(d == 0 for durations in turns for d in durations), motion


def test_at_200_percent_zoom_the_table_still_fits_its_width(tour: Tour) -> None:
    # Five areas, five chips, 離座, 投注紀錄 and 大廳, whole within the width.
    assert tour.zoomed == {"overflow": 0, "controls": 13}
