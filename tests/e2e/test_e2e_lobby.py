"""The browser client follows the lobby only while the lobby shows."""

from __future__ import annotations

import json
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    Server,
    create_account,
    leave_empty,
    log_in,
    open_page,
    quiet_table,
    sit,
)

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


PRESS = """([x, y]) => {
  // Mark the button under the finger; the table of its card.
  const el = document.elementFromPoint(x, y)?.closest('.btn-watch');
  if (el) el.dataset.pressed = 'yes';
  return el?.closest('.table-card')?.dataset.table ?? null;
}"""


def test_a_tap_on_the_lobby_outlasts_a_line_that_changes_under_the_finger(
    browser: Any, server: Server
) -> None:
    """The lobby is drawn again when a table's line changes; between the pointer going down on
    a button and coming up, that would replace the button and lose the tap. The redraw waits
    for the tap."""
    watcher = open_page(browser, server, DESKTOP)
    sitter = open_page(browser, server, DESKTOP)
    log_in(watcher, create_account(server, "tapper"))
    log_in(sitter, create_account(server, "tapsitter"))
    table = quiet_table(watcher)
    button = f".table-card[data-table='{table}'] .btn-watch"
    # Bots play at other tables, so the lobby may be drawn again at any moment until the
    # finger is down: the button is brought into view and pressed by where it is, and
    # marked only once pressed.
    watcher.evaluate("(b) => document.querySelector(b).scrollIntoView({ block: 'center' })", button)
    box = watcher.locator(button).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    watcher.mouse.move(x, y)
    watcher.mouse.down()
    try:
        assert watcher.evaluate(PRESS, [x, y]) == table
        # Someone sits at that table: its line changes in the watcher's lobby meanwhile.
        sit(sitter, table, 0)
        watcher.wait_for_function(
            """(table) => window.baccaratApp.lobby.page.tables
                 .find((tb) => tb.table_id === table)?.seats[0] != null""",
            arg=table,
        )
        # The button under the finger is still the one pressed: the redraw waits.
        assert watcher.locator(".btn-watch[data-pressed='yes']").count() == 1
        watcher.mouse.up()
        watcher.wait_for_selector(".table-screen", timeout=10_000)
        assert watcher.evaluate("window.baccaratApp.table.tableId") == table
        # Once at the table, the lobby it left is not drawn again over it.
        watcher.wait_for_timeout(300)
        assert watcher.evaluate("window.baccaratApp.screen") == "table"
        assert watcher.js_errors == [] and sitter.js_errors == []
    finally:
        leave_empty(sitter)
    for page in (watcher, sitter):
        page.context.close()
