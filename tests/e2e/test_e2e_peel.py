"""The controller's peel in Chromium: a drag across the card opens it, a short one springs back.

The big squeeze card is mounted alone on a bare page (no table, no server round), so each
gesture is checked in a few hundred milliseconds: every corner dragged with the mouse and with
a finger to its opposite corner, every long side pulled across, and a flick, open the card;
a drag released short of it falls back flat and opens nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import DESKTOP, PHONE, Server, needs_chromium, open_page

pytestmark = [pytest.mark.browser, needs_chromium]

MOUNT = """async () => {
  const { SqueezeView } = await import('/js/squeeze.js');
  document.body.replaceChildren();
  const host = document.createElement('div');
  host.className = 'table-screen';
  host.innerHTML = '<div class="hands-row" style="position:fixed;top:0;left:0;right:0;' +
    'height:56px"><div class="hand" data-hand="player"></div></div>';
  document.body.append(host);
  window.opened = [];
  window.sent = [];
  const view = new SqueezeView({
    onOpen: (hand) => window.opened.push(hand),
    onProgress: (hand, progress, zone) => window.sent.push([progress, zone]),
    rate: () => 10,
  });
  view.attach(host);
  host.append(view.el);
  window.peelView = view;
  window.nextCard = 0;
}"""

# A new face-down card to squeeze (a new key each time, so nothing of the last one carries).
SHOW = """() => {
  const view = window.peelView;
  view.hide();
  view.show({ hand: 'player', position: window.nextCard++, progress: 0, corner: 'br',
              controller: 1, controllerName: 'me' },
            { mine: true, code: '9H', handLabel: 'P', seat: -1 });
  window.opened = [];
}"""

DRAWN = "() => (window.peelView.el.dataset.peel || '').endsWith(':0.000')"
FLAT_AGAIN = "() => window.peelView.el.dataset.peel.endsWith(':0.000') && !window.peelView.spring"
SHOWN = "() => window.peelView.shown"

# Where a drag from each zone starts and where it is let go, as fractions of the card (4 px in
# from the edge where a fraction is 0 or 1).
ACROSS = {
    "tl": ((0, 0), (1, 1)),
    "tr": ((1, 0), (0, 1)),
    "bl": ((0, 1), (1, 0)),
    "br": ((1, 1), (0, 0)),
    "l": ((0, 0.5), (1, 0.5)),
    "r": ((1, 0.5), (0, 0.5)),
}


@pytest.fixture(scope="module")
def desk(server: Server, browser: Any) -> Any:
    page = open_page(browser, server, DESKTOP)
    page.evaluate(MOUNT)
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def phone(server: Server, browser: Any) -> Any:
    page = open_page(browser, server, PHONE, phone=True)
    page.evaluate(MOUNT)
    yield page
    page.context.close()


def _card(page: Any) -> tuple[float, float, float, float]:
    page.evaluate(SHOW)
    page.wait_for_function(DRAWN, timeout=5_000)
    box = page.locator(".squeeze .sq-card").bounding_box()
    assert box is not None
    return box["x"], box["y"], box["width"], box["height"]


def _point(box: tuple[float, float, float, float], fx: float, fy: float) -> tuple[float, float]:
    x, y, w, h = box
    inset = 4.0
    px = x + inset + (w - 2 * inset) * fx
    py = y + inset + (h - 2 * inset) * fy
    return px, py


def _path(a: tuple[float, float], b: tuple[float, float], steps: int) -> list[tuple[float, float]]:
    return [
        (a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
        for k in range(1, steps + 1)
    ]


def _mouse_drag(page: Any, a: tuple[float, float], b: tuple[float, float], *, pause: int) -> float:
    """Drag from a to b; wait `pause` ms holding still; let go. The peel drawn before letting go."""
    page.mouse.move(*a)
    page.mouse.down()
    for x, y in _path(a, b, 16):
        page.mouse.move(x, y)
    page.wait_for_timeout(pause)
    shown = float(page.evaluate(SHOWN))
    page.mouse.up()
    return shown


def _touch_drag(page: Any, a: tuple[float, float], b: tuple[float, float], *, pause: int) -> float:
    """The same drag with a finger, as a phone sends it (touch events through DevTools)."""
    cdp = page.context.new_cdp_session(page)
    try:
        point = lambda x, y: {"touchPoints": [{"x": x, "y": y}]}  # noqa: E731
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", **point(*a)})
        for x, y in _path(a, b, 16):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", **point(x, y)})
        page.wait_for_timeout(pause)
        shown = float(page.evaluate(SHOWN))
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    return shown


@pytest.mark.parametrize("zone", list(ACROSS))
def test_a_mouse_drag_across_the_card_opens_it(desk: Any, zone: str) -> None:
    box = _card(desk)
    start, end = ACROSS[zone]
    shown = _mouse_drag(desk, _point(box, *start), _point(box, *end), pause=250)
    desk.wait_for_function("() => window.opened.length > 0", timeout=2_000)
    assert desk.evaluate("() => window.opened") == ["player"]
    assert shown >= 0.95, (zone, shown)


@pytest.mark.parametrize("zone", list(ACROSS))
def test_a_finger_dragged_across_the_card_on_a_phone_opens_it(phone: Any, zone: str) -> None:
    box = _card(phone)
    start, end = ACROSS[zone]
    shown = _touch_drag(phone, _point(box, *start), _point(box, *end), pause=250)
    phone.wait_for_function("() => window.opened.length > 0", timeout=2_000)
    assert phone.evaluate("() => window.opened") == ["player"]
    assert shown >= 0.95, (zone, shown)


@pytest.mark.parametrize("touch", [False, True])
def test_a_short_drag_let_go_springs_back_and_opens_nothing(
    desk: Any, phone: Any, touch: bool
) -> None:
    page = phone if touch else desk
    box = _card(page)
    drag = _touch_drag if touch else _mouse_drag
    # A third of the way to the opposite corner, held still before letting go (no flick).
    shown = drag(page, _point(box, 1, 1), _point(box, 0.67, 0.67), pause=250)
    assert 0.1 < shown < 0.95
    page.wait_for_function(FLAT_AGAIN, timeout=2_000)
    page.wait_for_timeout(100)
    assert page.evaluate("() => window.opened") == []
    # The controller's screen told the others it fell back flat.
    page.wait_for_function("() => window.sent.at(-1)?.[0] === 0", timeout=2_000)


def test_a_flick_opens_the_card(desk: Any) -> None:
    box = _card(desk)
    # Half way, let go while still moving fast: thrown open.
    shown = _mouse_drag(desk, _point(box, 1, 1), _point(box, 0.45, 0.45), pause=0)
    assert shown < 0.95
    desk.wait_for_function("() => window.opened.length > 0", timeout=2_000)
    assert desk.evaluate("() => window.opened") == ["player"]
