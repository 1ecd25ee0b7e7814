"""The login screen: registering with a display name, refusals in both languages, names as text."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from e2e_support import DESKTOP, PASSWORD, Server, log_in, needs_chromium, open_page

pytestmark = needs_chromium


def _register(page: Any, name: str, display: str) -> str:
    """Fill the register form, submit, and return the form's message (or 'ok' on success)."""
    page.wait_for_selector(".login-form")
    if page.locator("input[name=display_name]").is_hidden():
        page.click(".login-form .switch .btn-link")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=display_name]", display)
    page.click(".login-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('.form-msg')?.textContent || "
        "document.querySelector('.lobby-screen')"
    )
    if page.query_selector(".lobby-screen"):
        return "ok"
    return str(page.text_content(".form-msg"))


def test_the_register_form_explains_refused_display_names_in_both_languages(
    browser: Any, server: Server
) -> None:
    page = open_page(browser, server, DESKTOP)
    # The display name is asked for only when registering.
    page.wait_for_selector(".login-form")
    assert page.locator("input[name=display_name]").is_hidden()
    assert _register(page, "frank", "ALICE") == "此暱稱已被使用，請換一個"
    assert "控制字元" in _register(page, "frank", "Fr\u202eank")
    page.click("[data-action=lang]")
    assert _register(page, "frank", "Alice") == "That display name is taken; pick another"
    assert _register(page, "frank", "<b>Frank</b>").startswith("A display name is 1-32")
    assert _register(page, "frank", "Frank  the  Bold") == "ok"
    assert page.text_content(".me-name") == "Frank the Bold"
    assert page.js_errors == []
    page.context.close()


def test_a_name_with_markup_from_an_older_database_shows_as_text(
    browser: Any, server: Server
) -> None:
    # A row written past today's rules (as an older version could have): the client must
    # still show it as text and never run it.
    path = server.db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        pw_hash = db.execute("SELECT password_hash FROM users WHERE username = 'alice'").fetchone()
        db.execute(
            "INSERT INTO users (username, username_key, password_hash, display_name, display_key,"
            " level, coins, created_at) VALUES ('legacy', 'legacy', ?, ?, 'legacy-key', 60, 0, ?)",
            (pw_hash[0], '<img src=x id=pwned onerror="window.pwned=1">', time.time()),
        )
    page = open_page(browser, server, DESKTOP)
    log_in(page, "legacy")
    assert page.text_content(".me-name") == '<img src=x id=pwned onerror="window.pwned=1">'
    assert page.query_selector("#pwned") is None
    assert page.evaluate("window.pwned === undefined")
    page.context.close()
