"""The client as an app on a phone: installable, and the screen kept on while seated.

Chromium itself says whether the page can be installed (``Page.getInstallabilityErrors``,
the checks behind its install prompt) and what it read from the manifest. The screen wake
lock is asked for while the player holds a seat and let go when the player stands.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import PHONE, Server, create_account, log_in, needs_chromium, open_page, sit
from relay import Relay

pytestmark = [pytest.mark.browser, needs_chromium]

AWAKE = "async () => (await import('/js/device.js')).awake()"


def test_chromium_finds_the_client_installable_as_a_standalone_app(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, PHONE, phone=True)
    try:
        page.wait_for_load_state("load")
        cdp = page.context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [], manifest["errors"]
        assert manifest["url"].endswith("/manifest.json")
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        # (a test's browser context is incognito, where nothing installs: that is the browser)
        assert [e for e in errors if e["errorId"] != "in-incognito"] == [], errors
        parsed = page.evaluate(
            """async () => {
              const m = await (await fetch('/manifest.json')).json();
              const sizes = [];
              for (const icon of m.icons) {
                const r = await fetch(new URL(icon.src, location.href));
                sizes.push([icon.sizes, r.status, r.headers.get('content-type')]);
              }
              return { display: m.display, short: m.short_name, sizes };
            }"""
        )
        assert parsed["display"] == "standalone"
        assert parsed["short"] == "百家樂"
        assert all(
            status == 200 and kind.startswith("image/") for _, status, kind in parsed["sizes"]
        )
        assert {"192x192", "512x512"} <= {s for s, _, _ in parsed["sizes"]}
    finally:
        page.context.close()


COUNT_LOCKS = """() => {
  // Every wake lock the page asks for, and how many it holds now.
  const locks = window.wakeLocks = { requested: 0, held: 0 };
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  navigator.wakeLock.request = async (kind) => {
    locks.requested += 1;
    const sentinel = await request(kind);
    locks.held += 1;
    sentinel.addEventListener('release', () => { locks.held -= 1; });
    return sentinel;
  };
}"""
HIDE = """(hidden) => {
  Object.defineProperty(document, 'visibilityState', { configurable: true,
    get: () => (hidden ? 'hidden' : 'visible') });
  document.dispatchEvent(new Event('visibilitychange'));
}"""
LOCKS = "() => window.wakeLocks"
FREE_SEAT = """() => window.baccaratApp.lobby.page.tables
  .filter((tb) => tb.seats.slice(1).some((s) => !s))
  .map((tb) => [tb.table_id, tb.seats.findIndex((s, i) => i > 0 && !s)])[0]"""


def test_one_wake_lock_while_seated_at_the_table_and_none_after(
    server: Server, browser: Any
) -> None:
    # Held while seated with the table on show; let go on standing, on going to the lobby
    # (the seat kept) and while the page is hidden; never two.
    name = create_account(server, "wakeful")
    page = open_page(browser, server, PHONE, phone=True)
    try:
        cdp = page.context.new_cdp_session(page)
        cdp.send(
            "Browser.setPermission",
            {"permission": {"name": "screen-wake-lock"}, "setting": "granted"},
        )
        page.evaluate(COUNT_LOCKS)
        log_in(page, name)
        assert page.evaluate(AWAKE) is False
        page.wait_for_selector(".table-card")
        table, seat = page.evaluate(FREE_SEAT)
        sit(page, table, seat)
        page.wait_for_function(AWAKE, timeout=5_000)
        # (the seat is noted on every draw of the table: still the one request)
        assert page.evaluate(LOCKS) == {"requested": 1, "held": 1}
        page.evaluate(HIDE, True)
        page.wait_for_function("() => window.wakeLocks.held === 0", timeout=5_000)
        page.evaluate(HIDE, False)
        page.wait_for_function("() => window.wakeLocks.held === 1", timeout=5_000)
        page.click("[data-action='lobby'], .btn-lobby")
        page.wait_for_selector(".lobby-screen")
        page.wait_for_function("() => window.wakeLocks.held === 0", timeout=5_000)
        page.click(f".table-card[data-table='{table}'] .btn-watch")
        page.wait_for_selector(".table-screen .seat.me")
        page.wait_for_function("() => window.wakeLocks.held === 1", timeout=5_000)
        page.click("[data-action='stand'], .btn-stand")
        page.wait_for_function("() => window.wakeLocks.held === 0", timeout=5_000)
        assert page.evaluate(AWAKE) is False
        assert page.evaluate(LOCKS)["requested"] == 3
    finally:
        page.context.close()


WORKER_READY = """async () => {
  const reg = await navigator.serviceWorker.ready;
  return Boolean(reg.active) && navigator.serviceWorker.controller !== null;
}"""


def test_a_second_visit_fetches_under_20_kb_besides_the_page(server: Server, browser: Any) -> None:
    # What crossed the wire, counted by a relay between Chromium and the server: the page's
    # files, the service worker's look at the list, the browser's look at the worker.
    name = create_account(server, "returning")
    relay = Relay(server.url)
    page = open_page(browser, server, PHONE, phone=True, worker=True, url=relay.url)
    try:
        log_in(page, name)
        page.wait_for_function(WORKER_READY)
        assert relay.received > 50_000  # the first visit fetched the app
        relay.reset()
        page.reload()
        page.wait_for_selector(".lobby-screen")
        page.wait_for_function("() => document.readyState === 'complete'")
        answers = dict(relay.requests)
        besides = relay.received - answers["GET /"]
        assert besides < 20_000, relay.requests
    finally:
        page.context.close()
        relay.close()


def test_the_installed_app_opens_offline_to_its_connecting_screen(
    server: Server, browser: Any
) -> None:
    relay = Relay(server.url)
    page = open_page(browser, server, PHONE, phone=True, worker=True, url=relay.url)
    try:
        page.wait_for_selector(".login-form")
        page.wait_for_function(WORKER_READY)
        relay.close()  # the server is out of reach, and the browser knows it is offline
        page.context.set_offline(True)
        page.reload()
        page.wait_for_selector(".boot-screen .boot-text")
        assert page.text_content(".boot-text") == "連線中…"
        assert page.evaluate("() => getComputedStyle(document.body).backgroundImage") != "none"
        assert page.js_errors == []
    finally:
        page.context.close()
