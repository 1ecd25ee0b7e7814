"""The squeeze as everyone at the table sees it, in two browsers at once and more.

One bettor controls both hands' face-down cards (the only one who bets) from a desktop and,
with the same account, a phone; the dealer watches on a desktop in English; two spectators
watch on phones, one in each language. The controller peels the Player's card from a corner
and opens it, then the Banker's card from a long side and lets the countdown open it. Each
test checks one thing every screen must show, from what the pages expose: the drawn peel
(``.squeeze[data-peel]``, zone and progress), the face under it, where the card, its caption
and its button lie (bounding boxes), the countdowns shown, and the reveal's caption. The
pictures of the squeeze mid-peel and of the reveal go to ``SCREENSHOTS``. The server passes
on ``RATE`` peel moves a second (not its default), and the controller's page sends no more.
The controller's desktop and the Chinese phone play with motion, as most players see it; the
other pages ask for reduced motion, as a player may (six pages with motion kept both cores
of a small machine busy for twice as long). The reveal is drawn either way.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    free_port,
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
    skip,
)
from playwright.sync_api import Error as PlaywrightError

from serving import start_serve

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.timeout(600)]

DEALER = "sqdealer"
BETTOR = "sqbettor"
WATCHERS = ("sqwatchzh", "sqwatchen")
SIDEWAYS_WATCHER = "sqwatchls"
LANDSCAPE = {"width": 844, "height": 390}
"""A phone held on its side."""
SEAT = 6
"""The controller's seat: on the right, where a panel beside the card would go first."""

PICTURES = {
    "squeeze-corner50-desktop-zh",
    "squeeze-corner90-desktop-zh",
    "squeeze-corner50-phone-en",
    "squeeze-corner90-phone-en",
    "squeeze-corner50-desktop-en",
    "squeeze-corner90-phone-zh",
    "squeeze-side-phone-en",
    "reveal-phone-zh",
    "reveal-desktop-en",
    "table-landscape-zh",
    "squeeze-corner-landscape-zh",
}
"""The pictures README.md shows (of every page at each moment, only these are saved)."""

SLOW = 0.25
"""The pages' animation rate while the timer's reveal is photographed (the beat, four times
longer, waits for the camera; the server's timers are not slowed)."""
RATE = 5
"""Peel moves a second the server passes on (its hello tells the pages)."""
COUNT_SENDS = """() => {
  // When the page sent each squeeze move (the socket's send, looked up at each call).
  window.squeezeSent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && data.includes('"type":"squeeze"')) {
      window.squeezeSent.push(performance.now());
    }
    return send.call(this, data);
  };
}"""

WATCH_REVEALS = """() => {
  // Each step of every reveal on the page (flip, hold or aside, fly): its hand, whether the
  // timer opened the card, and the caption as rendered then.
  window.revealsSeen = [];
  const note = (el) => window.revealsSeen.push({
    hand: el.dataset.hand, forced: el.dataset.forced === 'true', step: el.dataset.step,
    landed: el.dataset.landed ?? '', caption: el.querySelector('.rv-caption')?.innerText ?? '' });
  new MutationObserver((changes) => {
    for (const change of changes) {
      if (change.type === 'attributes' && change.target.classList.contains('sq-reveal')) note(change.target);
      for (const node of change.addedNodes) if (node.classList?.contains('sq-reveal')) note(node);
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true,
                              attributeFilter: ['data-step', 'data-landed'] });
  // Each squeeze that comes on screen, and the step of every reveal still on screen then.
  window.squeezesShown = [];
  const squeeze = document.querySelector('.squeeze');
  let shown = '';
  new MutationObserver(() => {
    const key = squeeze.hidden ? '' : `${squeeze.dataset.hand}:${squeeze.dataset.face}`;
    if (key === shown) return;
    shown = key;
    if (!key) return;
    window.squeezesShown.push({ hand: squeeze.dataset.hand, reveals: [...document.querySelectorAll(
      '.sq-reveal')].map((el) => ({ hand: el.dataset.hand, forced: el.dataset.forced === 'true',
                                    step: el.dataset.step })) });
  }).observe(squeeze, { attributes: true, attributeFilter: ['hidden', 'data-hand', 'data-face'] });
}"""

LAYOUT = """(seat) => {
  // Where the squeeze lies on this page, and what shows on top at the squeezed hand.
  const box = (el) => {
    if (!el || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return null;
    const r = el.getBoundingClientRect();
    return r.width && r.height ? { left: r.left, top: r.top, right: r.right, bottom: r.bottom } : null;
  };
  const squeeze = document.querySelector('.squeeze:not([hidden])');
  if (!squeeze) return null;
  const hand = document.querySelector(`.hand[data-hand="${squeeze.dataset.hand}"]`);
  // Each card of the hand, and its points, is what the page shows at its own centre.
  const marks = [...hand.querySelectorAll('.card, .hand-points')];
  const onTop = marks.every((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hand.contains(hit);
  });
  // Countdowns showing, a deadline in them (its number may have run out on a slow machine
  // while the table is held: the ring still shows, without a "0").
  const counting = [...document.querySelectorAll('.ring')].filter(
    (r) => r.checkVisibility({ visibilityProperty: true, opacityProperty: true }) &&
      !r.classList.contains('idle')).length;
  return {
    mine: squeeze.classList.contains('mine'),
    width: innerWidth,
    height: innerHeight,
    card: box(squeeze.querySelector('.sq-card')),
    label: box(squeeze.querySelector('.sq-label')),
    button: box(squeeze.querySelector('.btn-open')),
    hand: box(hand),
    seat: box(document.querySelector(`.seat[data-seat="${seat}"]`)),
    handOnTop: onTop,
    counting,
  };
}"""

FIRST_SCREEN = """() => {
  // The felt's parts as the page first shows them, and the roads a scroll away.
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const roads = document.querySelector('.roads-panel');
  return {
    width: innerWidth,
    height: innerHeight,
    parts: [...document.querySelectorAll('.hand, .area, .seat-dealer, .tray, .spectator-bar')]
      .map((el) => ({ name: el.className, ...box(el) })),
    roads: roads && roads.checkVisibility() ? { ...box(roads), scroll: document.documentElement.scrollHeight } : null,
  };
}"""

SAME_PEEL = """([hand, want]) =>
  document.querySelector(`.squeeze[data-hand="${hand}"]:not([hidden])`)?.dataset.peel === want"""

PEELED_FROM = """([hand, zone]) => (document.querySelector(
  `.squeeze.mine[data-hand="${hand}"]:not([hidden])`)?.dataset.peel ?? '').startsWith(zone + ':')"""

AFTER_TWO_FRAMES = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"""

SEEN = """(hand) => {
  // The squeeze of that hand (a card that just opened may still show beside it).
  const sq = document.querySelector(`.squeeze[data-hand="${hand}"]:not([hidden])`);
  return sq ? { hand: sq.dataset.hand, peel: sq.dataset.peel, face: sq.dataset.face,
                drawn: sq.querySelector('.sq-face svg')?.getAttribute('data-card') ?? '' } : null;
}"""

REVEAL_GONE = """() => window.revealsSeen.some((r) => r.hand === 'banker' && r.forced) &&
  !document.querySelector('.sq-reveal[data-forced="true"]')"""
"""The timer's reveal came and went: flown to its hand, or put there by the result (which a
reveal slowed this much does not outlast when no third card follows)."""

BANKER_AT_REST = """() => window.revealsSeen.some((r) =>
  r.hand === 'banker' && r.forced && ['hold', 'aside'].includes(r.step))"""

REVEAL_AT_REST = """() => {
  // The timer's reveal holding still with its caption fully shown.
  const el = document.querySelector('.sq-reveal[data-forced="true"]');
  if (!el || !['hold', 'aside'].includes(el.dataset.step)) return false;
  const caption = el.querySelector('.rv-caption');
  return Number(getComputedStyle(caption).opacity) > 0.99 &&
    el.querySelector('.rv-card').getAnimations().every((a) => a.playState === 'finished');
}"""

REVEAL_AT_REST_OR_GONE = f"() => ({REVEAL_AT_REST})() || ({REVEAL_GONE})()"


@dataclass
class Seen:
    """What the pages showed during one round's squeezes."""

    pages: dict[str, Any]
    layouts: dict[str, Any] = field(default_factory=dict)
    first_screens: dict[str, Any] = field(default_factory=dict)
    peels: dict[str, dict[str, Any]] = field(default_factory=dict)
    reveals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    corner: dict[int, float] = field(default_factory=dict)
    """The peel the controller's page drew when dragged toward 50% and 90%."""
    squeezes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Each squeeze as it came on screen, with the reveals still showing then."""
    squeeze_sent: list[float] = field(default_factory=list)
    """When (ms) the controller's desktop page sent each peel move."""


def overlap(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    """Whether two boxes share any area."""
    if a is None or b is None:
        return False
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


def picture(page: Any, name: str) -> None:
    """Save the page's picture if README.md shows it."""
    if name in PICTURES:
        save_screenshot(page, name)


def slow(page: Any, rate: float) -> Any:
    """Play the page's animations at ``rate`` (DevTools' animation speed, while the returned
    session stays open)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": rate})
    return cdp


def drag_and_hold(page: Any, hand: str, zone: str) -> None:
    """Press a corner ("br") or the left long side ("l") of the hand's big card and pull it
    in; wait (a little) until the page has drawn that peel."""
    box = page.locator(f".squeeze.mine[data-hand='{hand}']:not([hidden]) .sq-card").bounding_box()
    assert box is not None
    x, y, w, h = box["x"], box["y"], box["width"], box["height"]
    if zone == "br":
        start, end = (x + w - 5, y + h - 5), (x + w * 0.62, y + h * 0.7)
    else:
        start, end = (x + 5, y + h * 0.5), (x + w * 0.55, y + h * 0.5)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=10)
    with contextlib.suppress(PlaywrightError):
        page.wait_for_function(PEELED_FROM, arg=[hand, zone], timeout=3_000, polling=50)


def peel_corner_to(page: Any, hand: str, target: float, *, start: bool) -> float:
    """Drag the hand's big card from its bottom-right corner toward the top-left one (pressing
    it first when ``start``) until the page has drawn at least ``target`` of the peel; the
    finger stays down. Returns the peel drawn."""
    box = page.locator(f".squeeze.mine[data-hand='{hand}']:not([hidden]) .sq-card").bounding_box()
    assert box is not None
    x, y, w, h = box["x"], box["y"], box["width"], box["height"]
    if start:
        page.mouse.move(x + w - 5, y + h - 5)
        page.mouse.down()
    drawn = 0.0
    for k in range(1, 61):
        # Along the diagonal, a little further each time, until the page shows enough. Each
        # move is read once the page has drawn it, so a busy page never lets the finger run
        # past the target (and past the point where letting go opens the card).
        f = 1 - k / 60 * 1.05
        page.mouse.move(x + w * f, y + h * f)
        page.evaluate(AFTER_TWO_FRAMES)
        peel = (page.evaluate(SEEN, hand) or {}).get("peel") or ""
        if ":" in peel:
            drawn = float(peel.split(":")[1])
            if drawn >= target:
                break
    return drawn


def peel_seen(seen: Seen, controller: Any, watchers: dict[str, Any], label: str, hand: str) -> None:
    """Record the controller's drawn peel and each watcher's once it shows the same one."""
    mine = controller.evaluate(SEEN, hand)
    seen.peels[f"{label}:controller"] = mine
    if mine is None:
        return
    for name, page in watchers.items():
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(SAME_PEEL, arg=[hand, mine["peel"]], timeout=5_000)
        seen.peels[f"{label}:{name}"] = page.evaluate(SEEN, hand)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's own server, at the rooms' own pace: a 10-second squeeze leaves the
    controller time to peel while five pages are read and photographed."""
    work = tmp_path_factory.mktemp("squeeze")
    db = f"sqlite:///{work / 'e2e.db'}"
    rooms = work / "rooms.toml"
    shipped = resources.files("baccarat").joinpath("rooms.toml").read_text(encoding="utf-8")
    paced = shipped.replace("\nsqueeze_rate = 10 ", f"\nsqueeze_rate = {RATE} ")
    assert paced != shipped
    rooms.write_text(paced, encoding="utf-8")
    served = start_serve(
        "--db", db, "--speed", "1", "--rooms", str(rooms), "--test-hooks",
        port=free_port(), log=tmp_path_factory.mktemp("log") / "serve.log",
    )  # fmt: skip
    try:
        yield Server(served.url, db, served.proc)
    finally:
        served.stop()


@pytest.fixture(scope="module")
def seen(server: Server, browser: Any) -> Seen:
    """One round: a corner peel and 開牌 on the Player's card, a side peel and the timer on
    the Banker's; the layouts, peels, captions and pictures of every page along the way."""
    for name in (DEALER, BETTOR, *WATCHERS, SIDEWAYS_WATCHER):
        create_account(server, name)
    dealer = open_page(browser, server, DESKTOP)
    log_in(dealer, DEALER)
    table = quiet_table(dealer)
    sit(dealer, table, 0)
    controller = open_page(browser, server, DESKTOP, motion=True)
    log_in(controller, BETTOR)
    sit(controller, table, SEAT)
    controller.evaluate(COUNT_SENDS)
    # The same account on a phone: the table comes back at its seat.
    controller_phone = open_page(browser, server, PHONE, phone=True)
    log_in(controller_phone, BETTOR)
    controller_phone.wait_for_selector(f".table-screen .seat.me[data-seat='{SEAT}']")
    watchers = {}
    for name, lang in zip(WATCHERS, ("zh", "en"), strict=True):
        page = open_page(browser, server, PHONE, phone=True, motion=lang == "zh")
        log_in(page, name)
        page.click(f".table-card[data-table='{table}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        watchers[f"phone-{lang}"] = page
    # And a spectator on a phone held sideways.
    sideways = open_page(browser, server, LANDSCAPE, phone=True)
    log_in(sideways, SIDEWAYS_WATCHER)
    sideways.click(f".table-card[data-table='{table}'] .btn-watch")
    sideways.wait_for_selector(".table-screen")
    pages = {
        "desktop-zh": controller,
        "phone-en-controller": controller_phone,
        "desktop-en": dealer,
        **watchers,
        "landscape-zh": sideways,
    }
    for page in (dealer, controller_phone, watchers["phone-en"]):
        page.click(".table-screen [data-action='lang']")
        page.wait_for_function("() => document.documentElement.lang === 'en'")
    for page in pages.values():
        page.evaluate(WATCH_REVEALS)
    result = Seen(pages)
    onlookers = {"desktop-en": dealer, **watchers}
    shots = {"desktop-zh": controller, **onlookers}

    # Only the controller bets: it controls both hands' face-down cards. The table holds in
    # each squeeze while five pages are read and photographed (a slow machine reads them
    # slowly), until the Banker's card is left to its countdown.
    controller.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=60_000)
    hold(server, table, "squeeze")
    assert place_chip(controller, 10, "banker") == "ok"
    # The sideways phone's first screen, as the round goes on (the bet is in first).
    result.first_screens["landscape-zh"] = sideways.evaluate(FIRST_SCREEN)
    picture(sideways, "table-landscape-zh")
    # Nobody else bets: the betting's 15 s need not be waited out.
    skip(server, table)
    controller.wait_for_selector(".squeeze.mine[data-hand='player']:not([hidden])", timeout=30_000)
    held_in(server, table, "squeeze")
    for name, page in pages.items():
        # (a squeeze with no room for its card has no size: it is only waited for in the page)
        state = "attached" if name.startswith("landscape") else "visible"
        with contextlib.suppress(PlaywrightError):
            page.wait_for_selector(
                ".squeeze[data-hand='player']:not([hidden])", state=state, timeout=5_000
            )
        # Read once the squeeze's styles are drawn (reduced motion still takes a frame to end
        # the main countdown's change).
        page.evaluate(AFTER_TWO_FRAMES)
        result.layouts[name] = page.evaluate(LAYOUT, SEAT)
    # A corner peeled half-way, then to 90%: the pictures of both.
    for percent in (50, 90):
        result.corner[percent] = peel_corner_to(
            controller, "player", percent / 100, start=percent == 50
        )
        peel_seen(result, controller, onlookers, f"corner{percent}", "player")
        for name, page in shots.items():
            picture(page, f"squeeze-corner{percent}-{name}")
    picture(sideways, "squeeze-corner-landscape-zh")
    controller.mouse.up()
    with contextlib.suppress(PlaywrightError):
        controller.click(".squeeze.mine[data-hand='player'] .btn-open", timeout=3_000)

    # The Banker's card: once the Player's reveal has gone everywhere, peel a long side.
    controller.wait_for_selector(".squeeze.mine[data-hand='banker']:not([hidden])", timeout=30_000)
    # (a few seconds at most: the Banker's countdown runs meanwhile)
    with contextlib.suppress(PlaywrightError):
        controller.wait_for_function(
            "() => !document.querySelector('.sq-reveal')", timeout=5_000, polling=100
        )
    for page in onlookers.values():
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(
                "() => !document.querySelector('.sq-reveal')", timeout=500, polling=100
            )
    drag_and_hold(controller, "banker", "l")
    peel_seen(result, controller, onlookers, "side", "banker")
    for name, page in shots.items():
        picture(page, f"squeeze-side-{name}")
    # Still held, the card is opened by the timer: the beat of the reveal is slowed to be seen
    # (a phone's is the shortest when a third card follows: it goes first).
    sessions = [slow(page, SLOW) for page in pages.values()]
    # Its clock jumps to the end: the server opens the card as when the countdown runs out.
    hold(server, table, None)
    skip(server, table)
    # The pictures README.md shows, each taken while its reveal rests, a phone's (the shorter
    # beat) first; a reveal gone on before it was looked at has no picture this time.
    for name in ("phone-zh", "phone-en", "desktop-zh", "desktop-en"):
        if f"reveal-{name}" not in PICTURES:
            continue
        page = shots[name]
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(REVEAL_AT_REST_OR_GONE, timeout=20_000)
            if page.evaluate(REVEAL_AT_REST):
                picture(page, f"reveal-{name}")
    controller.mouse.up()
    for cdp in sessions:
        cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
        cdp.detach()
    # Once every page has shown the timer's card at rest, the rest of the round (a third
    # card's squeeze and its countdown) is not read: it is played out at once.
    for page in pages.values():
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function(BANKER_AT_REST, timeout=20_000, polling=100)
    played_to(server, table, "result")
    for page in pages.values():
        page.wait_for_selector(".table-screen[data-phase='result']", timeout=60_000)
    result.squeeze_sent = controller.evaluate("() => window.squeezeSent")
    for name, page in pages.items():
        result.reveals[name] = page.evaluate("() => window.revealsSeen")
        result.squeezes[name] = page.evaluate("() => window.squeezesShown")
        assert not page.js_errors, (name, page.js_errors)
    return result


def test_a_corner_drag_peels_the_card_as_far_as_it_goes(seen: Seen) -> None:
    # Toward the opposite corner the peel grows with the drag, held short of opening.
    assert 0.5 <= seen.corner[50] < 0.75, seen.corner
    assert 0.9 <= seen.corner[90] < 0.95, seen.corner


def test_onlookers_see_the_controllers_face_at_the_same_peel(seen: Seen) -> None:
    for label, zone in (("corner50", "br"), ("corner90", "br"), ("side", "l")):
        mine = seen.peels[f"{label}:controller"]
        assert mine is not None
        peel_zone, progress = mine["peel"].split(":")
        # The drag peeled the card from where it was pressed, part of the way.
        assert peel_zone == zone
        assert 0 < float(progress) < 1
        # A real card's face is drawn under the peel (like "7D").
        assert len(mine["face"]) == 2 and mine["drawn"] == mine["face"]
        for name in ("desktop-en", "phone-zh", "phone-en"):
            theirs = seen.peels[f"{label}:{name}"]
            assert theirs == mine, (label, name)


def test_the_squeezed_hand_and_the_controllers_seat_stay_in_sight(seen: Seen) -> None:
    assert set(seen.layouts) == set(seen.pages)
    for name, layout in seen.layouts.items():
        assert layout is not None, name
        # The hand being squeezed is on top at each of its cards and its points.
        assert layout["handOnTop"], name
        assert layout["hand"] is not None
        assert not overlap(layout["hand"], layout["card"]), name
        assert layout["hand"]["top"] >= 0 and layout["hand"]["bottom"] <= layout["height"], name
        # Caption and button keep off the seat of whoever squeezes.
        assert layout["label"] is not None, name
        assert not overlap(layout["label"], layout["seat"]), name
        assert not overlap(layout["button"], layout["seat"]), name
    for name in ("desktop-zh", "phone-en-controller"):
        assert seen.layouts[name]["mine"] and seen.layouts[name]["button"] is not None


def test_the_card_is_large(seen: Seen) -> None:
    small = {}
    for name, layout in seen.layouts.items():
        card = layout["card"]
        width = card["right"] - card["left"]
        height = card["bottom"] - card["top"]
        if name.startswith("landscape"):
            # Most of a sideways phone's height, all of it on the screen.
            large = height >= 250 and card["top"] >= 0 and card["bottom"] <= layout["height"]
        elif name.startswith("phone"):
            # Most of a phone's width: two thirds at least (the room below the hands, less the
            # panel under the card, decides how tall and so how wide it can be).
            large = width >= 0.65 * layout["width"]
        else:
            # Below the hands, or between them: 45% of a desktop's height at least (405 px of
            # a 900 px window), less a pixel's rounding (sizes_support.card_room).
            large = height >= 0.45 * layout["height"] - 1
        if not large:
            small[name] = card
    assert small == {}


def test_a_sideways_phone_shows_the_whole_felt_on_its_first_screen(seen: Seen) -> None:
    assert set(seen.first_screens) == {"landscape-zh"}
    for name, screen in seen.first_screens.items():
        kinds = [part["name"].split()[0] for part in screen["parts"]]
        # Both hands, the five areas, the dealer's seat and the tray or the spectator's bar.
        assert kinds.count("hand") == 2 and kinds.count("area") == 5, (name, kinds)
        assert kinds.count("seat") == 1, (name, kinds)
        assert kinds.count("spectator-bar") == 1, (name, kinds)
        for part in screen["parts"]:
            assert part["bottom"] - part["top"] >= 20, (name, part)
            assert part["left"] >= 0 and part["right"] <= screen["width"], (name, part)
            assert part["top"] >= 0 and part["bottom"] <= screen["height"], (name, part)
        # The roads are below, a scroll away.
        roads = screen["roads"]
        assert roads is not None and roads["bottom"] - roads["top"] >= 100, name
        assert roads["top"] >= screen["height"] - 10 and roads["bottom"] <= roads["scroll"] + 1, (
            name
        )


def test_one_countdown_shows(seen: Seen) -> None:
    assert {name: layout["counting"] for name, layout in seen.layouts.items()} == {
        name: 1 for name in seen.pages
    }


def test_the_timer_opens_the_card_with_its_caption_on_every_screen(seen: Seen) -> None:
    zh = ("desktop-zh", "phone-zh", "landscape-zh")
    assert set(seen.reveals) == set(seen.pages)
    for name, reveals in seen.reveals.items():
        words = "時間到，自動開牌" if name in zh else "Time's up — opened automatically"
        # The Banker's card, held until its countdown ran out, turned face up and stayed a
        # beat with the timer's words (after its flip, before it flew to its hand).
        shown = [r for r in reveals if r["step"] in ("hold", "aside")]
        # Unless the page read the result too late for any beat (a starved page, as a busy
        # machine makes one): then the card went straight to its hand, and said so.
        late = any(r["hand"] == "banker" and r["landed"] == "late" for r in reveals)
        assert late or any(
            r["hand"] == "banker" and r["forced"] and words in r["caption"] for r in shown
        ), (
            name,
            reveals,
        )
        # A card its controller opened says nothing of the timer.
        assert all(words in r["caption"] for r in shown if r["forced"]), name
        assert not any(words in r["caption"] for r in shown if not r["forced"]), name


def test_an_opened_card_gives_way_to_the_next_squeeze(seen: Seen) -> None:
    for name, shown in seen.squeezes.items():
        # The Banker's squeeze came while the Player's opened card had its beat.
        banker = [s for s in shown if s["hand"] == "banker"]
        assert banker, (name, shown)
        player = [r for r in banker[0]["reveals"] if r["hand"] == "player"]
        assert [r["forced"] for r in player] == [False], (name, shown)
        if name.startswith("phone"):
            # No room beside the card on a phone: it is on its way to its hand at once,
            # instead of lying over the card now squeezed while its countdown runs.
            assert player[0]["step"] == "fly", (name, shown)
        elif name.startswith("desktop"):
            # Room beside it: it finishes its beat there.
            assert player[0]["step"] != "fly", (name, shown)


def test_the_controller_sends_no_more_peel_moves_than_the_server_passes_on(seen: Seen) -> None:
    # Two drags of many pointer moves each: the first move of a drag goes at once, the rest
    # wait for the gap the hello's rate asks (1000 / RATE ms).
    sent = seen.squeeze_sent
    assert len(sent) >= 3, sent
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert min(gaps) >= 1000 / RATE - 5, gaps
