"""The browser client follows the lobby only while the lobby shows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from e2e_support import DESKTOP, Server, log_in, open_page

pytestmark = pytest.mark.browser


def _sent_types(frames: list[str]) -> list[str]:
    return [json.loads(f).get("type", "") for f in frames]


def test_the_browser_leaves_the_lobby_at_a_table_and_comes_back(
    browser: Any, server: Server
) -> None:
    page = open_page(browser, server, DESKTOP)
    sent: list[str] = []
    received: list[str] = []

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(payload))
        ws.on("framereceived", lambda payload: received.append(payload))

    page.on("websocket", on_socket)
    log_in(page, "dave")
    page.wait_for_selector(".table-card")
    assert "lobby.subscribe" in _sent_types(sent)
    page.click(".table-card .btn-watch")
    page.wait_for_selector(".table-screen")
    page.wait_for_function("() => window.baccaratApp.lobby.on === false")
    types = _sent_types(sent)
    assert types.index("lobby.unsubscribe") > types.index("lobby.subscribe")
    # At the table: no lobby message arrives over two of the lobby's ticks.
    page.wait_for_function("() => window.baccaratApp.screen === 'table'")
    seen = len(received)
    page.wait_for_timeout(2500)
    later = [json.loads(f).get("type", "") for f in received[seen:]]
    assert not [t for t in later if t.startswith("lobby")], later
    page.click(".btn-lobby")
    page.wait_for_selector(".lobby-screen .table-card")
    assert _sent_types(sent)[-2:].count("lobby.subscribe") >= 1
    assert page.evaluate("window.baccaratApp.lobby.on") is True
    assert page.js_errors == []
    page.context.close()
