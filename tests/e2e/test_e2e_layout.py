"""Where things are drawn, from bounding boxes, on a desktop (1440x900) and a phone (390x844).

A dealer and a bettor of this module play among bots at a table nobody else sits at, each on
a desktop and a phone. At a result: no badge covers a seat's name or coins or sits in an
area, badges never meet, the dealer's badge stays inside the table, the result banner covers
no area's name and no card, and a language switch brings the badges back without playing
their sounds again. While betting: the phone bettor's first screen holds the Big Road's strip
and the bet row, and the dealer's chat line shows on the felt, not under the top bar. At any
time: the phone dealer's controls, exposure and 催促 are on the first screen, no control leaves
the screen, a refusal shows one toast that covers no seat, 等待下一局 stays on one line, and
the countdown ring never shows 0 beside 請下注. And Chinese text is drawn with real glyphs, not
the empty boxes of a missing font.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    held_at_next_betting,
    held_in,
    hold,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    played_to,
    quiet_table,
    save_screenshot,
    sit,
)
from playwright.sync_api import Error as PlaywrightError
from sizes_support import (
    BUBBLE_SIZES,
    BUBBLES,
    PARTS,
    SIZES,
    WATCH_RESIZE,
    bubble_problems,
    problems,
)

pytestmark = [pytest.mark.browser, needs_chromium]

DEALER = "lydealer"
BETTOR = "lybettor"
LATE = "lylate"
WATCHER = "lywatch"

COUNT_SOUNDS = """() => {
  // Every oscillator started is a sound played: count them.
  window.sounds = 0;
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.sounds += 1;
    return make.call(this);
  };
}"""

WATCH_RING = """() => {
  // Every 20 ms: what the main ring and the phase text say during betting (until ringStop).
  window.ringSeen = [];
  window.ringStop = setInterval(() => {
    const screen = document.querySelector('.table-screen');
    if (screen?.dataset.phase !== 'betting') return;
    const ring = document.querySelector('.main-ring .ring-text')?.textContent ?? '';
    const label = document.querySelector('.phase-text')?.textContent ?? '';
    const last = window.ringSeen[window.ringSeen.length - 1];
    if (!last || last[0] !== ring || last[1] !== label) window.ringSeen.push([ring, label]);
  }, 20);
}"""

WATCH_RESULT = """(switchLang, boxes) => {
  // When the result's badges first show: read the boxes two frames later; on one page, switch
  // the language then and count the sounds and badges before and after, and switch back.
  // A page so far behind that the result was gone by then says so (resultMissed).
  window.resultSeen = null;
  window.resultMissed = false;
  const frames = (n, fn) => (n ? requestAnimationFrame(() => frames(n - 1, fn)) : fn());
  const counts = () => [window.sounds, document.querySelectorAll('.float-net').length,
                        document.querySelectorAll('.float-net.still').length];
  const showing = () => document.querySelector('.table-screen')?.dataset.phase === 'result' &&
    document.querySelector('.float-net') && document.querySelector('.result-banner:not([hidden])');
  const poll = setInterval(() => {
    if (!showing()) return;
    clearInterval(poll);
    frames(2, () => {
      if (!showing()) { window.resultMissed = true; return; }
      const seen = { boxes: boxes() };
      if (!switchLang) { window.resultSeen = seen; return; }
      const before = counts();
      document.querySelector("[data-action='lang']").click();
      frames(2, () => {
        const after = counts();
        const still = showing();
        document.querySelector("[data-action='lang']").click();
        // Gone by then (a starved page): the next round's sounds may be in the count.
        if (!still) { window.resultMissed = true; return; }
        seen.switch = { before, after };
        window.resultSeen = seen;
      });
    });
  }, 20);
}"""

BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  const all = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility())
    .map((e) => ({ ...box(e), seat: e.closest('[data-seat]')?.dataset.seat ?? null,
                   area: e.dataset.area ?? null, text: e.textContent }));
  const banner = document.querySelector('.result-banner:not([hidden])');
  return {
    phase: document.querySelector('.table-screen')?.dataset.phase,
    badges: all('.float-net'),
    names: all('.seat-name'),
    coins: all('.seat .coins'),
    cards: all('.hands-row .card:not(.slot)'),
    labels: all('.area-name, .area-pay, .dq-streak'),
    seats: all('.seat'),
    areas: all('.area'),
    felt: box(document.querySelector('.felt')),
    banner: banner ? box(banner) : null,
  };
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two boxes share."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def size(a: dict[str, float]) -> float:
    return (a["right"] - a["left"]) * (a["bottom"] - a["top"])


@dataclass
class Layout:
    """What the pages showed."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    switch: dict[str, Any] = field(default_factory=dict)
    first_screen: dict[str, Any] = field(default_factory=dict)
    controls: dict[str, list[Any]] = field(default_factory=dict)
    toasts: dict[str, Any] = field(default_factory=dict)
    wait_line: dict[str, float] = field(default_factory=dict)
    ring: list[list[str]] = field(default_factory=list)
    squeeze: dict[str, Any] = field(default_factory=dict)
    """The phone dealer's squeeze card and bar while a card is peeled."""
    betting_screen: dict[str, Any] = field(default_factory=dict)
    """The bettor's phone while betting is open, by language."""
    bubbles: dict[str, Any] = field(default_factory=dict)
    """The dealer's chat bubble on the bettor's pages, with the top bar and the felt."""
    table: str = ""
    """The table, its seats all taken, where the module's bots still play."""


SQUEEZE_AND_BAR = """() => {
  const box = (sel) => {
    const r = document.querySelector(sel)?.getBoundingClientRect();
    return r && r.width ? { left: r.left, top: r.top, right: r.right, bottom: r.bottom } : null;
  };
  return { card: box('.squeeze:not([hidden]) .sq-card'), bar: box('.dealer-bar'),
           hands: box('.hands-row'), height: innerHeight,
           phase: document.querySelector('.table-screen')?.dataset.phase };
}"""


FIRST_SCREEN = """() => {
  const bottom = (sel) => document.querySelector(sel)?.getBoundingClientRect().bottom ?? null;
  return { strip: bottom('.road-strip .big-road'), stake: bottom('.tray-stake'),
           chips: bottom('.tray-chips'), height: innerHeight, scroll: scrollY,
           stakeText: document.querySelector('.tray-stake')?.textContent ?? null };
}"""

DEALER_BUBBLE = """async () => {
  // The dealer's line over their seat, read once its entrance has ended.
  const el = document.querySelector('.chat-bubble[data-seat="0"]');
  await Promise.all(el.getAnimations().map((a) => a.finished));
  const box = (e) => { const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
  return { bubble: box(el), bar: box(document.querySelector('.topbar')),
           felt: box(document.querySelector('.felt')) };
}"""


def start_bots(server: Server, table: str) -> subprocess.Popen[bytes]:
    """Five bots betting at the table (they never deal), in one process of their own."""
    return subprocess.Popen(
        [sys.executable, "-m", "baccarat", "bots", "--url", server.url, "--count", "5",
         "--no-deal", "--table", table, "--strategy", "mixed", "--seed", "11",
         "--processes", "1", "--prefix", "lybot", "--password", "bot-password"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


BETTING_HALF_GONE = """() => document.querySelector('.table-screen')?.dataset.phase === 'betting' &&
  Number(document.querySelector('.main-ring .ring-text')?.textContent || 0) <= 3"""
"""A betting window (7.5 s at the test server's speed) with 3 s or less to go."""


CONTROLS_OFF_SCREEN = """() => [...document.querySelectorAll(
    'button, .tray-chip, .area, input, .seat')].filter((e) => e.checkVisibility())
  .map((e) => [e.className || e.tagName, e.getBoundingClientRect()])
  .filter(([, r]) => r.width > 0 && (r.left < -1 || r.right > innerWidth + 1))
  .map(([name, r]) => [name, Math.round(r.left), Math.round(r.right)])"""


LATE_SIT = """(table) => {
  const seat = document.querySelector('.seats .seat.free')?.dataset.seat;
  if (seat === undefined) return Promise.resolve('no free seat');
  return window.baccaratApp.session.send('sit', { table_id: table, seat: Number(seat) }).then(
    () => { window.baccaratApp.session.seat = { table_id: table, seat: Number(seat) }; return 'ok'; },
    (err) => err.code || String(err));
}"""


WAIT_LINE = """() => {
  // The waiting line, measured the moment it shows; {missed} when the seat came in betting.
  const me = document.querySelector('.seat.me');
  if (!me) return null;
  const el = me.querySelector('.seat-wait');
  if (!el) {
    const phase = document.querySelector('.table-screen')?.dataset.phase;
    return phase === 'betting' ? { missed: true } : null;
  }
  return { height: el.getBoundingClientRect().height,
           line: parseFloat(getComputedStyle(el).lineHeight) ||
                 1.5 * parseFloat(getComputedStyle(el).fontSize),
           text: el.textContent };
}"""


@pytest.fixture(scope="module")
def layout(server: Server, browser: Any) -> Iterator[Layout]:
    for name in (DEALER, BETTOR, LATE):
        create_account(server, name)
    seen = Layout()
    # With motion: the badges and the squeeze card are read as they settle, at the pace
    # their entrances give them.
    dealer = open_page(browser, server, DESKTOP, motion=True)
    log_in(dealer, DEALER)
    table = quiet_table(dealer)
    sit(dealer, table, 0)
    bots = start_bots(server, table)
    try:
        dealer.wait_for_function(
            "() => document.querySelectorAll('.seats .seat.taken').length >= 5", timeout=60_000
        )
        bettor = open_page(browser, server, DESKTOP, motion=True)
        log_in(bettor, BETTOR)
        bettor.wait_for_selector(f".table-card[data-table='{table}'] .seat-dot.free")
        free = bettor.evaluate(
            """(table) => [...document.querySelectorAll(`.table-card[data-table='${table}']
                 .tc-bettors .seat-dot.free`)].map((e) => Number(e.dataset.seat))""",
            table,
        )
        sit(bettor, table, free[0])
        pages = {"dealer desktop": dealer, "bettor desktop": bettor}
        for who in ("dealer", "bettor"):
            phone = open_page(browser, server, PHONE, phone=True, motion=True)
            phone.add_init_script(f"({COUNT_SOUNDS})()")
            log_in(phone, DEALER if who == "dealer" else BETTOR)
            phone.wait_for_selector(".table-screen .seat.me")
            pages[f"{who} phone"] = phone
        bettor.add_init_script(f"({COUNT_SOUNDS})()")
        bettor.reload()
        bettor.wait_for_selector(".table-screen .seat.me")
        pages["bettor desktop"] = bettor
        # A bet on three areas: whatever comes out, the bettor's coins change.
        # A real click first: a page makes sound only once someone has touched it.
        bettor.click(".tray-chip[data-chip='5']")
        missed: list[str] = []
        for _ in range(3):
            # The start of a betting, held there: room for the clicks on any machine, and no
            # wait for a window to come round.
            held_at_next_betting(server, table)
            bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
            chips = ((5, "banker"), (1, "tie"), (1, "player_pair"))
            assert [place_chip(bettor, c, a) for c, a in chips] == ["ok"] * 3
            # Each page reads itself the moment its result shows; the bettor's desktop
            # switches language there. A page too starved to read it two frames after it
            # showed (its badges last 4.2 s) watches the next round's, bet again.
            waiting = {n: p for n, p in pages.items() if n not in seen.results}
            for name, page in waiting.items():
                page.evaluate(
                    f"(switchLang) => ({WATCH_RESULT})(switchLang, {BOXES})",
                    name == "bettor desktop",
                )
            try:
                # The rest of the round is played out at once, and the table holds at its
                # result until every page has read it.
                played_to(server, table, "result")
                for name, page in waiting.items():
                    page.wait_for_function(
                        "() => window.resultSeen || window.resultMissed", timeout=60_000
                    )
                    got = page.evaluate("window.resultSeen")
                    if got is None:
                        missed.append(name)
                        continue
                    seen.results[name] = got["boxes"]
                    # (held at the result: a picture of what was measured, to look at)
                    save_screenshot(page, "layout-result-" + name.replace(" ", "-"))
                    if "switch" in got:
                        seen.switch = got["switch"]
            finally:
                hold(server, table, None)
            if len(seen.results) == len(pages):
                break
        assert len(seen.results) == len(pages), f"results missed: {missed}"
        # Betting held open: the bettor's phone's first screen in both languages, and a line
        # the dealer says, on the bettor's pages.
        held_at_next_betting(server, table)
        try:
            bp = pages["bettor phone"]
            bp.wait_for_selector(".table-screen[data-phase='betting'] .tray")
            for lang in ("zh-TW", "en"):
                seen.betting_screen[lang] = bp.evaluate(FIRST_SCREEN)
                bp.click("[data-action='lang']")
            save_screenshot(bp, "layout-betting-bettor-phone")
            dealer.evaluate("() => window.baccaratApp.session.send('say', { text: '開牌囉' })")
            for name in ("bettor desktop", "bettor phone"):
                pages[name].wait_for_selector(".chat-bubble[data-seat='0']")
                seen.bubbles[name] = pages[name].evaluate(DEALER_BUBBLE)
                save_screenshot(pages[name], "layout-bubble-" + name.replace(" ", "-"))
        finally:
            hold(server, table, None)
        # The phone dealer's first screen.
        dp = pages["dealer phone"]
        seen.first_screen = dp.evaluate(
            """() => Object.fromEntries(['.btn-urge', '.db-exposure', '.dealer-bar .btn-stand',
                 '.seat.me'].map((sel) => [sel, document.querySelector(sel)?.getBoundingClientRect()
                 .bottom ?? null]).concat([['scroll', scrollY], ['height', innerHeight]]))"""
        )
        for name, page in pages.items():
            seen.controls[name] = page.evaluate(CONTROLS_OFF_SCREEN)
        # Two refusals in a row (a dealer cannot bet): one toast, over the top bar.
        for name in ("dealer phone", "dealer desktop"):
            page = pages[name]
            page.click(".area[data-area='tie']")
            page.click(".area[data-area='banker']")
            page.wait_for_selector(".toast-error")
            seen.toasts[name] = page.evaluate(
                """() => { const toasts = [...document.querySelectorAll('.toast')];
                  const t = toasts[0].getBoundingClientRect();
                  const covered = [...document.querySelectorAll('.seat')].filter((s) => {
                    const r = s.getBoundingClientRect();
                    return r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom;
                  }).map((s) => s.dataset.seat);
                  const bar = document.querySelector('.topbar').getBoundingClientRect();
                  return { count: toasts.length, covered, top: t.top, barBottom: bar.bottom }; }"""
            )
        # The desktops have shown all they are read for: closed, they draw none of the rounds
        # to come (the dealer and the bettor stay at the table on their phones).
        for name in ("dealer desktop", "bettor desktop"):
            pages.pop(name).context.close()
        # The dealer's phone in a squeeze: the table and its bots stand still while the page
        # places the card. This round's betting runs its clock out, and the bettor's phone
        # watches its ring (the rounds around it end their betting at once).
        dp = pages["dealer phone"]
        pages["bettor phone"].evaluate(WATCH_RING)
        for _ in range(3):
            hold(server, table, "squeeze")
            try:
                # The bots bet early in the window (its first 30%): once it is more than half
                # gone they stand still, so none opens a card before the page is read.
                dp.wait_for_function(BETTING_HALF_GONE, timeout=60_000)
                bots.send_signal(signal.SIGSTOP)
                held_in(server, table, "squeeze", limit=30.0)
                now = hold(server, table, "squeeze")
                if not (now["held"] and now["phase"] == "squeeze"):
                    continue
                dp.wait_for_selector(".squeeze:not([hidden])", state="attached", timeout=60_000)
                with contextlib.suppress(PlaywrightError):
                    dp.wait_for_function(
                        """() => (document.querySelector('.squeeze:not([hidden]) .sq-card')
                             ?.getBoundingClientRect().width ?? 0) > 0""",
                        timeout=20_000,
                    )
                # The page scrolls for the squeeze and places the card again after the
                # scroll: read it once it has stood still for a few frames.
                dp.evaluate(CARD_AT_REST)
                seen.squeeze = dp.evaluate(SQUEEZE_AND_BAR)
                # An open still landed (or a stopped bot's socket was dropped, which opens its
                # card): the next squeeze.
                if seen.squeeze["card"] is None or seen.squeeze["phase"] != "squeeze":
                    continue
                save_screenshot(dp, "layout-squeeze-dealer-phone")
                break
            finally:
                bots.send_signal(signal.SIGCONT)
                hold(server, table, None)
            dp.wait_for_selector(".table-screen:not([data-phase='squeeze'])", timeout=60_000)
        seen.ring = pages["bettor phone"].evaluate(
            "() => { clearInterval(window.ringStop); return window.ringSeen; }"
        )
        # A user who sits while a round is still on the table waits for the next: 等待下一局
        # on one line. The table is held at its result, which only its clock ends (a command
        # in flight cannot move it on), and the bots stand still (none takes the free seat).
        late = open_page(browser, server, PHONE, phone=True)  # (it reads a line of text)
        log_in(late, LATE)
        late.click(f".table-card[data-table='{table}'] .btn-watch")
        refused = []
        for _ in range(3):
            try:
                played_to(server, table, "result")
                bots.send_signal(signal.SIGSTOP)
                late.wait_for_selector(".table-screen[data-phase='result']", timeout=60_000)
                # Through the app's socket (the result banner covers the seats' buttons).
                answer = late.evaluate(LATE_SIT, table)
                if answer == "ok":
                    got = late.wait_for_function(WAIT_LINE, timeout=60_000).json_value()
                    if not got.get("missed"):
                        seen.wait_line = got
                        break
                    answer = "sat after the round"
                    late.evaluate("() => window.baccaratApp.session.send('stand', {})")
                    late.wait_for_selector(".seat.me", state="detached")
                refused.append(answer)
            finally:
                bots.send_signal(signal.SIGCONT)
                hold(server, table, None)
            late.wait_for_selector(".table-screen:not([data-phase='result'])", timeout=60_000)
        assert seen.wait_line, f"the late user never sat during a round: {refused}"
        # Done with: closed, they draw nothing while the sizes are read.
        for page in [*pages.values(), late]:
            page.context.close()
        seen.table = table
        yield seen
    finally:
        bots.terminate()
        try:
            bots.wait(timeout=10)
        except subprocess.TimeoutExpired:
            bots.kill()
            bots.wait()


@pytest.mark.parametrize(
    "page", ["dealer desktop", "bettor desktop", "dealer phone", "bettor phone"]
)
def test_result_badges_cover_no_name_and_never_meet(layout: Layout, page: str) -> None:
    seen = layout.results[page]
    badges = seen["badges"]
    # The bettor's coins changed (three areas were bet), so at least their badge shows.
    assert badges
    # A push shows nothing: no badge reads 0.
    assert all(b["text"].strip() not in ("0", "+0", "−0") for b in badges)
    assert [(b["seat"], n["seat"]) for b in badges for n in seen["names"] if overlap(b, n)] == []
    assert [(a["seat"], b["seat"]) for a, b in _pairs(badges) if overlap(a, b)] == []
    # Nor an area's name or odds, nor the dealer's rounds in a row.
    assert [(b["seat"], n["text"]) for b in badges for n in seen["labels"] if overlap(b, n)] == []
    felt = seen["felt"]
    # Inside the table (the dealer's badge is not cut by the table's edge).
    assert all(
        b["left"] >= felt["left"] and b["right"] <= felt["right"] and b["top"] >= felt["top"]
        for b in badges
    )


CARD_AT_REST = """() => new Promise((done) => {
  let last = "", still = 0, frames = 0;
  const look = () => {
    const r = document.querySelector('.squeeze:not([hidden]) .sq-card')?.getBoundingClientRect();
    const now = r ? `${r.left},${r.top},${r.width},${r.height},${scrollY}` : "";
    still = now && now === last ? still + 1 : 0;
    last = now;
    if (still >= 10 || ++frames > 600) done(); else requestAnimationFrame(look);
  };
  look();
})"""


def _pairs(items: list[Any]) -> list[tuple[Any, Any]]:
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


@pytest.mark.parametrize(
    "page", ["dealer desktop", "bettor desktop", "dealer phone", "bettor phone"]
)
def test_result_badges_cover_no_coins_and_sit_in_no_area(layout: Layout, page: str) -> None:
    seen = layout.results[page]
    badges = seen["badges"]
    assert badges and seen["coins"]
    # A seat's coins stay readable, and a badge in an area would read as that area's result.
    assert [(b["seat"], c["seat"]) for b in badges for c in seen["coins"] if overlap(b, c)] == []
    assert [(b["seat"], a["area"]) for b in badges for a in seen["areas"] if overlap(b, a)] == []


@pytest.mark.parametrize(
    "page", ["dealer desktop", "bettor desktop", "dealer phone", "bettor phone"]
)
def test_the_result_banner_covers_no_area_name_and_no_card(layout: Layout, page: str) -> None:
    seen = layout.results[page]
    banner = seen["banner"]
    assert banner is not None and seen["cards"]
    assert [n["text"] for n in seen["labels"] if overlap(banner, n)] == []
    assert [c for c in seen["cards"] if overlap(banner, c)] == []


def test_the_dealers_chat_bubble_shows_below_the_top_bar(layout: Layout) -> None:
    assert len(layout.bubbles) == 2
    for name, seen in layout.bubbles.items():
        bubble = seen["bubble"]
        # On the felt, in view: not under the top bar, not cut by the felt's edge.
        assert bubble["top"] >= seen["bar"]["bottom"], name
        assert bubble["top"] >= seen["felt"]["top"], name


def test_the_phone_bettor_keeps_the_big_road_and_the_bet_row_on_the_first_screen(
    layout: Layout,
) -> None:
    assert set(layout.betting_screen) == {"zh-TW", "en"}
    for lang, seen in layout.betting_screen.items():
        assert seen["scroll"] == 0, lang
        for part in ("strip", "chips", "stake"):
            assert seen[part] is not None and seen[part] <= seen["height"], (lang, part, seen)


def test_the_phone_result_banner_leaves_areas_in_view(layout: Layout) -> None:
    for page in ("dealer phone", "bettor phone"):
        seen = layout.results[page]
        banner = seen["banner"]
        assert banner is not None
        covered = [a["area"] for a in seen["areas"] if overlap(a, banner) > size(a) / 2]
        assert len(seen["areas"]) == 5
        assert "player_pair" not in covered and "banker_pair" not in covered


def test_a_language_switch_during_a_result_replays_no_badge_and_no_sound(layout: Layout) -> None:
    sounds_before, badges_before, _ = layout.switch["before"]
    sounds_after, badges_after, still = layout.switch["after"]
    assert badges_before > 0
    # The result's sound was heard once (so sounds are counted), and not again.
    assert sounds_before > 0
    assert sounds_after == sounds_before
    # The same badges, drawn again without their entrance.
    assert badges_after == badges_before == still


def test_the_phone_dealers_controls_and_exposure_fit_the_first_screen(layout: Layout) -> None:
    seen = layout.first_screen
    assert seen["scroll"] == 0
    for sel in (".btn-urge", ".db-exposure", ".dealer-bar .btn-stand", ".seat.me"):
        assert seen[sel] is not None and seen[sel] <= seen["height"], sel


def test_the_phone_dealer_sees_the_hands_exposure_and_urge_while_a_card_is_peeled(
    layout: Layout,
) -> None:
    seen = layout.squeeze
    assert seen["phase"] == "squeeze", seen
    card, bar, hands = seen["card"], seen["bar"], seen["hands"]
    assert card is not None and bar is not None and hands is not None, seen
    for part in (bar, hands):
        assert part["top"] >= 0 and part["bottom"] <= seen["height"], seen
        assert overlap(card, part) == 0, seen
    # And the card is still large enough to peel with a thumb.
    assert card["bottom"] - card["top"] >= 150, seen


def test_no_control_leaves_the_screen(layout: Layout) -> None:
    assert layout.controls == {name: [] for name in layout.controls}
    assert len(layout.controls) == 4


def test_a_refusal_shows_one_toast_over_the_top_bar_covering_no_seat(layout: Layout) -> None:
    for name, toast in layout.toasts.items():
        assert toast["count"] == 1, name
        assert toast["covered"] == [], name
        assert toast["top"] < toast["barBottom"], name


def test_waiting_for_the_next_round_stays_on_one_line(layout: Layout) -> None:
    line = layout.wait_line
    assert line["text"] == "等待下一局"
    assert line["height"] < 1.5 * line["line"]


def test_the_ring_never_shows_0_and_betting_ends_as_closed(layout: Layout) -> None:
    ring = layout.ring
    assert ring, "no betting window was watched"
    assert all(text != "0" for text, _ in ring)
    # The countdown ended before the server closed betting: the label said so.
    assert ["", "停止下注"] in ring
    assert all(label != "請下注" for text, label in ring if text == "")


TOFU = """() => {
  // Draw characters with the page's own font stack and compare their pixels: a missing glyph
  // falls back to the same empty box for every character, as a private-use one does here.
  const family = getComputedStyle(document.body).fontFamily;
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  const draw = (ch) => {
    g.clearRect(0, 0, 64, 64);
    g.font = `48px ${family}`;
    g.fillStyle = '#000';
    g.fillText(ch, 4, 52);
    return Array.from(g.getImageData(0, 0, 64, 64).data.filter((_, i) => i % 4 === 3)).join(',');
  };
  const box = draw('\\u{F0001}');
  const chars = [...'莊閒和瞇牌籌碼星幣荷官'];
  const drawn = chars.map(draw);
  return {
    family,
    same_as_box: chars.filter((c, i) => drawn[i] === box),
    distinct: new Set(drawn).size,
    count: chars.length,
    box_has_ink: box.split(',').some((v) => v !== '0'),
  };
}"""


def test_chinese_is_drawn_with_real_glyphs_not_empty_boxes(server: Server, browser: Any) -> None:
    page = open_page(browser, server, PHONE, phone=True)
    page.wait_for_selector(".login-form")
    seen = page.evaluate(TOFU)
    # The page states its font stack, a CJK font for Traditional Chinese first.
    assert seen["family"].startswith('"Noto Sans CJK TC"')
    assert seen["box_has_ink"]  # the fallback box is drawn, so the comparison means something
    assert seen["same_as_box"] == []
    assert seen["distinct"] == seen["count"]


BETS_DOWN = """() => [...document.querySelectorAll('.seats .seat')]
  .filter((e) => e.querySelector('.seat-bets .pill')).length >= 5"""
"""Five bettors' bets on the felt: the bettor's and four bots' (the late user does not bet)."""


@pytest.fixture(scope="module")
def sizes(server: Server, browser: Any, layout: Layout) -> Iterator[dict[str, Any]]:
    """Every size x language x role, in each phase: by phase, how many pages were read in it
    and the problems they showed.

    One page a role (the dealer, the bettor, a watcher) at the layout's table, every seat taken,
    resized through every size in both languages while the table is held in betting (bets on
    every area), in the bettor's squeeze and at a result. Without motion: only the boxes are
    read, and they are where the animations end."""
    table = layout.table
    create_account(server, WATCHER)
    pages: dict[str, Any] = {}
    for role, name in (("dealer", DEALER), ("bettor", BETTOR), ("watcher", WATCHER)):
        w, h = SIZES[0]
        pages[role] = page = open_page(browser, server, {"width": w, "height": h})
        log_in(page, name)
        page.evaluate(WATCH_RESIZE)
    pages["watcher"].click(f".table-card[data-table='{table}'] .btn-watch")
    found: dict[str, Any] = {}
    try:
        held_at_next_betting(server, table)
        bettor = pages["bettor"]
        bettor.wait_for_selector(".table-screen[data-phase='betting'] .tray")
        # The most on the Player's area: the bettor squeezes its card (the bots bet less).
        chips = [(10, "player")] * 5 + [(1, "tie"), (1, "player_pair"), (1, "banker_pair")]
        assert [place_chip(bettor, c, a) for c, a in chips] == ["ok"] * len(chips)
        with contextlib.suppress(PlaywrightError):
            pages["dealer"].wait_for_function(BETS_DOWN, timeout=10_000)
        langs = ["zh-TW", "en"]
        for phase in ("betting", "squeeze", "result"):
            if phase != "betting":
                played_to(server, table, phase)
            for page in pages.values():
                page.wait_for_selector(f".table-screen[data-phase='{phase}']", timeout=60_000)
            found[phase] = _every_size(pages, langs, phase)
            langs.reverse()  # (one language switch a page between two phases)
    finally:
        hold(server, table, None)
        for page in pages.values():
            page.context.close()
    yield found


LINES = {
    "zh-TW": "莊家連開了五把，這把我還是跟莊，大家一起來吧，衝衝衝！",
    "en": "Banker has won five in a row, I follow the banker again!",
}
"""A line long enough to be cut (40 characters): what every seat says at once."""


def _every_size(pages: dict[str, Any], langs: list[str], phase: str) -> tuple[int, list[str]]:
    """Each page through every size in ``langs``: how many were read in ``phase``, and what is
    wrong, named by page, language, size and phase. At ``BUBBLE_SIZES``, while betting and at
    the result, every seated player says a line at once: no bubble covers a seat's words or a
    tab."""
    read = 0
    found = []
    for lang in langs:
        for page in pages.values():
            if page.evaluate("document.documentElement.lang") != lang:
                page.click("[data-action='lang']")
        for w, h in SIZES:
            # Every page takes the size first, so that they lay out side by side.
            for page in pages.values():
                page.set_viewport_size({"width": w, "height": h})
            for role, page in pages.items():
                parts = page.evaluate(PARTS, phase)
                where = f"{role} {lang} {w}x{h} {phase}"
                if parts["phase"] != phase:
                    found.append(f"{where}: the page shows {parts['phase']}")
                read += 1
                found += [f"{where}: {problem}" for problem in problems(parts)]
                if (w, h) in BUBBLE_SIZES and phase != "squeeze":
                    said = page.evaluate(BUBBLES, LINES[lang])
                    found += [f"{where}: {problem}" for problem in bubble_problems(said)]
    return read, found


@pytest.mark.parametrize("phase", ["betting", "squeeze", "result"])
def test_every_size_shows_the_whole_table_and_nothing_covers_it(
    sizes: dict[str, Any], phase: str
) -> None:
    read, found = sizes[phase]
    # Every size x language x role was read (a page never read would list nothing wrong).
    assert read == len(SIZES) * 2 * 3
    assert found == [], f"{len(found)} problems:\n" + "\n".join(found[:60])
