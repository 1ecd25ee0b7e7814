"""Helpers of the browser tests: accounts, pages, logging in, sitting, screenshots."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from baccarat.store import Store, open_store
from serving import free_port as free_port  # the e2e modules take it from here
from serving import wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SPEED = 2.0
"""Every timer divided by this: betting 7.5 s, squeeze 5 s, result 2.5 s."""
BOTS_BETTING = 3.0
"""Seconds into a betting by which the bots have bet: each bets within the first 30% of the
window it is told of (2.25 s at ``SPEED``), and its chips land a moment later."""
PASSWORD = "e2e-password"
START_COINS = 1_000_000
USERS = ("alice", "bob", "carol", "dave", "erin")
SCREENSHOTS = Path(
    os.environ.get("BACCARAT_SCREENSHOTS") or Path(tempfile.gettempdir()) / "baccarat-screenshots"
)
"""Where the browser tests save their pictures: a temporary folder, so that ``pytest`` leaves
the tree clean; ``BACCARAT_SCREENSHOTS=docs/screenshots`` refreshes the README's pictures."""
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
"""The smallest phone the console is laid out for."""

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed at /usr/bin/chromium"
)


_STORES: dict[str, Store] = {}
"""The servers' databases, opened once by this process (``create_account``)."""


def _store(server: Server) -> Store:
    store = _STORES.get(server.db)
    if store is None:
        store = _STORES[server.db] = open_store(server.db)
    return store


def create_account(server: Server, name: str, coins: int = 1_000_000, level: int = 60) -> str:
    """An account made in the server's database, as ``baccarat admin create-user`` makes it
    but without starting a process per account (names are unique to the test module)."""
    _store(server).create_user(name, PASSWORD, level=level, coins=coins)
    return name


def set_role(server: Server, name: str, role: str, reason: str) -> None:
    """Give an account a role, as ``baccarat admin set-role`` does (logged as the CLI's)."""
    store = _store(server)
    store.set_role(store.get_user_by_name(name).user_id, role, reason)


def close_stores() -> None:
    """Close the databases ``create_account`` opened (at the end of the session)."""
    for store in _STORES.values():
        store.close()
    _STORES.clear()


def quiet_table(page: Any) -> str:
    """A table of the lobby where nobody sits (earlier tests may have left people seated)."""
    page.wait_for_selector(".table-card")
    table_id = page.evaluate(
        """() => (window.baccaratApp.lobby.page?.tables ?? [])
             .filter((tb) => tb.seats.every((s) => !s))
             .map((tb) => tb.table_id).reverse()[0] ?? null"""
    )
    assert table_id, "every table has someone seated"
    return str(table_id)


def leave_empty(*pages: Any, table: tuple[Server, str] | None = None) -> None:
    """Stand up whoever of ``pages`` is seated, so a test that took a ``quiet_table`` leaves it
    empty for the tests after, even when it failed half-way (nothing is raised here). With
    ``table`` (its server and id) the table's phases are ended at once: a dealer, or a bettor
    with chips down, leaves only after the round's settlement."""
    from playwright.sync_api import Error as PlaywrightError

    for page in pages:
        with contextlib.suppress(PlaywrightError, AssertionError, OSError):
            if page.locator(".table-screen .seat.me").count():
                page.keyboard.press("Escape")  # a panel left open (公平性) covers the button
                page.click(".table-screen .btn-stand", timeout=5_000)
                if table is not None:
                    wait_until(lambda page=page: _stood_up(page, table), "the stand", limit=15)
                page.wait_for_selector(".table-screen:not(:has(.seat.me))", timeout=5_000)


def _stood_up(page: Any, table: tuple[Server, str]) -> bool:
    if not page.locator(".table-screen .seat.me").count():
        return True
    skip(*table)
    return False


@dataclass
class Server:
    """A running server and how to reach it."""

    url: str
    db: str
    process: subprocess.Popen[str]


def open_page(
    browser: Any,
    server: Server,
    viewport: dict[str, int],
    *,
    phone: bool = False,
    motion: bool = False,
    worker: bool = False,
    url: str | None = None,
) -> Any:
    """A fresh browser context (its own cookies) and page at the client.

    The page asks for reduced motion (the client's CSS then ends its animations at once, as
    for a player who asked for it) unless ``motion``: a page at a table otherwise repaints its
    countdown ring and glows every frame, and three such pages took more than a core of this
    machine's two. The squeeze's own reveal is drawn either way.

    The service worker is blocked unless ``worker``: filling its cache is a second look at
    every file of the app in each fresh context, which only the tests of the installed app
    read (``test_e2e_app.py``). ``url`` is another address of the server (a counting relay)."""
    ctx = browser.new_context(
        viewport=viewport,
        device_scale_factor=1,
        is_mobile=phone,
        has_touch=phone,
        locale="zh-TW",
        reduced_motion=None if motion else "reduce",
        service_workers="allow" if worker else "block",
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    # What the console shows as errors, a failed request included (say a 401 answer).
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.console_errors = console
    page.goto((url or server.url) + "/")
    return page


def log_in(page: Any, name: str) -> None:
    """Log in through the form and wait for the lobby (or the table a seat is held at)."""
    page.wait_for_selector(".login-form")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click(".login-form button[type=submit]")
    page.wait_for_selector(".lobby-screen, .table-screen")


def sit(page: Any, table_id: str, seat: int) -> None:
    """Take a seat from the lobby's table card and wait for the table screen."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.click(f'.table-card[data-table="{table_id}"] .seat-dot[data-seat="{seat}"]')
    try:
        page.wait_for_selector(f".table-screen .seat.me[data-seat='{seat}']")
    except PlaywrightTimeout as timeout:
        # What the page shows instead says why: a refusal, another screen, a lost socket.
        raise AssertionError(
            f"not seated at {table_id} seat {seat}: {page.evaluate(SEEN)}"
        ) from timeout


SEEN = """() => { const app = window.baccaratApp, v = app.table.view;
  return { screen: app.screen, hash: location.hash, table: app.table.tableId ?? null,
    seat: app.session.seat ?? null, online: app.session.conn?.online ?? null, toasts: [...document.querySelectorAll('.toast')].map((t) => t.textContent),
    phase: v?.phase ?? null, me: v?.me?.seat ?? null,
    seats: (v?.seats ?? []).map((o) => o && o.name) }; }"""


def no_horizontal_overflow(page: Any) -> bool:
    """Whether the page fits its viewport's width."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def cells_inside(page: Any) -> bool:
    """Whether every cell and button of the console's tables lies within the screen's width
    (none cut off behind a table's own sideways scrolling)."""
    return bool(
        page.evaluate(
            """() => [...document.querySelectorAll('.cs-grid td, .cs-grid button')]
                 .every((el) => el.getBoundingClientRect().right <= innerWidth + 1)"""
        )
    )


def save_screenshot(page: Any, name: str) -> Path:
    """Save a PNG in ``SCREENSHOTS``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


PLACE_CHIP = """async ([chip, area]) => {
  const stack = () => document.querySelector(`.area[data-area='${area}'] .my-stack`)?.textContent ?? '';
  const before = stack();
  const errors = document.querySelectorAll('.toast-error').length;
  document.querySelector(`.tray-chip[data-chip='${chip}']`).click();
  document.querySelector(`.area[data-area='${area}']`).click();
  return await window.answerTo(area, before, errors);
}"""

ANSWER_TO = """() => {
  // Resolves 'ok' once the area's own stack changes from `before`, or with the text of a new
  // refusal toast; 'no answer' after 5 s.
  window.answerTo = async (area, before, errors) => {
    const stack = () => document.querySelector(`.area[data-area='${area}'] .my-stack`)?.textContent ?? '';
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (stack() !== before) return 'ok';
      const toasts = document.querySelectorAll('.toast-error');
      if (toasts.length > errors) return toasts[toasts.length - 1].textContent;
    }
    return 'no answer';
  };
}"""

BEFORE_DRAG = """([chip, area]) => {
  const centre = (sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  };
  return [
    document.querySelector(`.area[data-area='${area}'] .my-stack`)?.textContent ?? '',
    document.querySelectorAll('.toast-error').length,
    ...centre(`.tray-chip[data-chip='${chip}'] svg`),
    ...centre(`.area[data-area='${area}']`),
  ];
}"""


def place_chip(page: Any, chip: int, area: str) -> str:
    """Pick a chip and tap an area; 'ok' once the area shows it, else the refusal shown."""
    page.evaluate(ANSWER_TO)
    return str(page.evaluate(PLACE_CHIP, [chip, area]))


def bet_in_a_betting(page: Any, chip: int, area: str, tries: int = 3) -> str:
    """Place a chip in the first betting that takes it; what the last try answered.

    For servers without test hooks, whose betting runs on its own clock: a page that comes
    to the table late in a betting may see it close before its chip lands."""
    answer = "no betting"
    for _ in range(tries):
        page.wait_for_selector(".table-screen[data-phase='betting'] .tray", timeout=60_000)
        answer = place_chip(page, chip, area)
        if answer == "ok":
            break
        page.wait_for_selector(".table-screen:not([data-phase='betting'])", timeout=60_000)
    return answer


def drag_chip(page: Any, chip: int, area: str, *, touch: bool = False) -> str:
    """Drag a chip from the tray onto an area with the mouse or a finger; answer as place_chip."""
    page.evaluate(ANSWER_TO)
    # One read, so a redraw of the tray or the areas cannot come between the two.
    before, errors, x0, y0, x1, y1 = page.evaluate(BEFORE_DRAG, [chip, area])
    path = [(x0 + (x1 - x0) * k / 10, y0 + (y1 - y0) * k / 10) for k in range(1, 11)]
    if touch:
        # A real touch sequence through the DevTools protocol, as a phone's finger sends it.
        cdp = page.context.new_cdp_session(page)
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
        )
        for x, y in path:
            cdp.send(
                "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
            )
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        cdp.detach()
    else:
        page.mouse.move(x0, y0)
        page.mouse.down()
        for x, y in path:
            page.mouse.move(x, y)
        page.mouse.up()
    return str(page.evaluate("([a, b, e]) => window.answerTo(a, b, e)", [area, before, errors]))


def _table_hook(server: Server, table_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/test/tables/{id}`` (``--test-hooks``): the table's state after it."""
    req = urllib.request.Request(
        f"{server.url}/api/test/tables/{table_id}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        state: dict[str, Any] = json.load(resp)
    return state


def table_state(server: Server, table_id: str) -> dict[str, Any]:
    """``GET /api/test/tables/{id}`` (``--test-hooks``): the table's phase, whether it is
    held, and the phase's time left (``remaining_ms``)."""
    with urllib.request.urlopen(f"{server.url}/api/test/tables/{table_id}", timeout=10) as r:
        state: dict[str, Any] = json.load(r)
    return state


def hold(server: Server, table_id: str, phase: str | None) -> dict[str, Any]:
    """Hold the table once it is in ``phase`` (its time stands still there: the test reads and
    photographs the pages at leisure), or with None let it go on. Needs ``--test-hooks``."""
    return _table_hook(server, table_id, {"hold": phase})


def skip(server: Server, table_id: str) -> dict[str, Any]:
    """End the table's phase now (its time jumps to the deadline): no test waits out a
    betting or a result it does not need. Needs ``--test-hooks``."""
    return _table_hook(server, table_id, {"skip": True})


EVERY_BETTOR_BET = """() => { const v = window.baccaratApp.table.view;
  const bettors = (v?.seats ?? []).slice(1).filter((o) => o && !o.waiting_next_round);
  return bettors.length > 0 && bettors.every((o) => Object.values(o.bets ?? {}).some((n) => n > 0)); }"""


@dataclass
class BetsIn:
    """Whether the betting a table is in has all its bets: every bettor's, or, once the bots'
    part of the window is over (``BOTS_BETTING``), all there will be. A bot may place nothing
    in a round (one that took back its only chip), and its betting need not be waited out."""

    page: Any
    """A page at the table, whose view says who has bet."""
    seen: dict[int, float] = field(default_factory=dict)
    """When this betting (by its round's number) was first seen open."""

    def __call__(self, state: dict[str, Any]) -> bool:
        """Whether the betting of ``state`` (``table_state``) has its bets in."""
        if state["phase"] != "betting":
            self.seen.clear()
            return False
        first = self.seen.setdefault(state["round_no"], time.monotonic())
        if time.monotonic() - first >= BOTS_BETTING:
            return True
        return bool(self.page.evaluate(EVERY_BETTOR_BET))


def hurry_rounds(server: Server, table_id: str, page: Any, beads: int) -> None:
    """Let the bots play until ``page``'s bead plate holds ``beads`` rounds, without waiting
    out the clocks: a betting ends once its bets are in (``BetsIn``), a squeeze and a result
    at once (nobody reads them: the rounds only fill the roads)."""
    bets_in = BetsIn(page)

    def played() -> bool:
        shown = page.evaluate("() => document.querySelectorAll('.bead-plate .bead').length")
        if shown >= beads:
            return True
        state = table_state(server, table_id)
        if state["phase"] in ("squeeze", "result") or bets_in(state):
            skip(server, table_id)
        return False

    wait_until(played, f"{beads} rounds at {table_id}", limit=150.0, every=0.3)


def played_to(server: Server, table_id: str, phase: str, limit: float = 120.0) -> dict[str, Any]:
    """Hold the table at its next ``phase`` and end every phase before it at once: the test
    waits for no clock (so it places its bets before calling this)."""
    hold(server, table_id, phase)

    def state() -> dict[str, Any] | None:
        got = table_state(server, table_id)
        if got["phase"] == phase:
            return got if got["held"] else None
        skip(server, table_id)
        return None

    return wait_until(state, f"{table_id} played to {phase}", limit)


def held_at_next_betting(server: Server, table_id: str) -> dict[str, Any]:
    """Hold the table at the start of its next betting (a betting in play is ended first):
    a whole window, standing still until the test lets it go."""
    if table_state(server, table_id)["phase"] == "betting":
        skip(server, table_id)
    return played_to(server, table_id, "betting")


def held_in(server: Server, table_id: str, phase: str, limit: float = 120.0) -> dict[str, Any]:
    """Wait until the table is held in ``phase`` (after ``hold``)."""

    def state() -> dict[str, Any] | None:
        got = table_state(server, table_id)
        return got if got["held"] and got["phase"] == phase else None

    return wait_until(state, f"{table_id} held in {phase}", limit)
