"""A page the server cannot answer keeps its login: when ``/api/me`` answers 503 (the
database down) or the network fails, the page shows it is offline and asks again, and is
back in the lobby once the server answers; only a 401 sends it to the login form."""

from __future__ import annotations

from typing import Any

from e2e_support import DESKTOP, Server, create_account, log_in, needs_chromium, open_page

pytestmark = needs_chromium


def test_a_page_keeps_its_login_through_an_outage_and_loses_it_to_a_401(
    browser: Any, server: Server
) -> None:
    name = create_account(server, "olive")
    page = open_page(browser, server, DESKTOP)
    log_in(page, name)
    page.wait_for_selector(".lobby-screen")
    calls: list[int] = []

    def down(route: Any) -> None:
        calls.append(503)
        route.fulfill(
            status=503,
            content_type="application/json",
            headers={"Retry-After": "5"},
            body='{"error": {"code": "service_unavailable", "message": "down"}}',
        )

    page.route("**/api/me", down)
    page.reload()
    page.wait_for_selector("#offline:not([hidden])", timeout=10_000)
    # It asks again (the first pause is half a second) and still does not ask for a login.
    for _ in range(100):
        if len(calls) >= 2:
            break
        page.wait_for_timeout(100)  # (the page's own timers run meanwhile)
    assert len(calls) >= 2
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
