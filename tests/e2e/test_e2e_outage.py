"""A page the server cannot answer keeps its login: when ``/api/me`` answers 503 (the
database down) or the network fails, the page shows it is offline and asks again, and is
back in the lobby once the server answers; only a 401 sends it to the login form. A seated
page whose reload meets a proxy's own 503 page (no node up behind it) is answered by the
installed app's shell, which says the seat is kept and takes the player back to it."""

from __future__ import annotations

import time
from typing import Any

from e2e_support import (
    DESKTOP,
    Server,
    create_account,
    leave_empty,
    log_in,
    needs_chromium,
    open_page,
    quiet_table,
    save_screenshot,
    sit,
)
from relay import Relay

pytestmark = needs_chromium


def test_a_page_keeps_its_login_through_an_outage_and_loses_it_to_a_401(
    browser: Any, server: Server
) -> None:
    name = create_account(server, "olive")
    page = open_page(browser, server, DESKTOP)
    log_in(page, name)
    page.wait_for_selector(".lobby-screen")
    calls: list[float] = []

    def down(route: Any) -> None:
        calls.append(time.monotonic())
        route.fulfill(
            status=503,
            content_type="application/json",
            headers={"Retry-After": "1"},
            body='{"error": {"code": "service_unavailable", "message": "down"}}',
        )

    page.route("**/api/me", down)
    page.reload()
    page.wait_for_selector("#offline:not([hidden])", timeout=10_000)
    # It asks again once the Retry-After has passed, and still does not ask for a login.
    for _ in range(100):
        if len(calls) >= 2:
            break
        page.wait_for_timeout(100)  # (the page's own timers run meanwhile)
    assert len(calls) >= 2
    assert calls[1] - calls[0] >= 1.0
    assert page.query_selector(".login-form") is None
    page.unroute("**/api/me")
    page.wait_for_selector(".lobby-screen", timeout=20_000)
    assert len(calls) >= 1
    assert page.query_selector(".login-form") is None

    def gone(route: Any) -> None:
        route.fulfill(
            status=401,
            content_type="application/json",
            body='{"error": {"code": "not_authenticated", "message": "Log in first."}}',
        )

    page.route("**/api/me", gone)
    page.reload()
    page.wait_for_selector(".login-form", timeout=10_000)
    page.context.close()


WORKER_READY = "async () => Boolean((await navigator.serviceWorker.ready).active)"
SHOWN = "#offline:not([hidden]) .offline-card[data-away='kept']"


def test_a_reload_that_meets_a_proxys_503_page_comes_back_to_the_seat(
    browser: Any, server: Server
) -> None:
    name = create_account(server, "otto")
    relay = Relay(server.url)
    page = open_page(browser, server, {"width": 1366, "height": 768}, worker=True, url=relay.url)
    try:
        log_in(page, name)
        page.wait_for_function(WORKER_READY)
        table = quiet_table(page)
        sit(page, table, 2)
        # The proxy has no node up: it cuts every socket and answers everything with its page.
        relay.fail(True)
        page.wait_for_selector(SHOWN, timeout=10_000)
        save_screenshot(page, "reconnecting-table-zh-1366x768")
        page.reload()
        # The app shell answered the reload: it says it reconnects and that the seat waits.
        page.wait_for_selector(SHOWN, timeout=10_000)
        assert relay.refused > 0
        assert "No server is available" not in page.content()
        assert page.evaluate("() => window.baccaratApp.screen") == "boot"
        for lang in ("zh", "en"):
            if lang == "en":
                page.click("#offline [data-action='lang']")
                page.wait_for_selector("#offline h2:text('Reconnecting…')")
            for width, height in ((1366, 768), (360, 640)):
                page.set_viewport_size({"width": width, "height": height})
                save_screenshot(page, f"reconnecting-{lang}-{width}x{height}")
        relay.fail(False)
        page.wait_for_selector(".table-screen .seat.me[data-seat='2']", timeout=20_000)
        page.wait_for_selector("#offline", state="hidden")
        assert page.js_errors == []
    finally:
        leave_empty(page)
        page.context.close()
        relay.close()
