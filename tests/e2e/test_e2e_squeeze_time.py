"""The squeeze's countdown on the page follows a deadline a peel extended (docs/rules.md,
"Squeeze"): the page's store takes the table's view and the peel move as the server sends
them, and its countdown then reads the new time, as the Python reducer's view does."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_support import DESKTOP, Server, needs_chromium, open_page

from baccarat.protocol.events import event_wire
from baccarat.table import SqueezeProgress
from baccarat.table.reducer import apply
from table.tablekit import Game

pytestmark = [pytest.mark.browser, needs_chromium]

COUNTDOWN = """async ([before, kind, data]) => {
  const { TableStore } = await import('/js/store.js');
  const { deadline, secondsLeft } = await import('/js/selectors.js');
  const store = new TableStore();
  store.take({ seq: 1, view: before });
  const was = secondsLeft(deadline(store.view, store.at));
  store.apply({ seq: 2, event: kind, data });
  return { was, left: secondsLeft(deadline(store.view, store.at)), view: store.view };
}"""


def test_the_page_counts_down_to_the_deadline_a_peel_extended(server: Server, browser: Any) -> None:
    g = Game(["2S", "3H", "4D", "4C"])
    g.sit(1, 0)
    g.sit(2, 1)
    g.bet(2, "player", 1)
    g.to_deadline()
    g.tick(9)  # one second of the squeeze's ten left
    before = g.view(2)
    [moved] = g.do(SqueezeProgress(2, "player", 0.4, "br"))
    kind, data = event_wire(moved, g.now)
    assert data["remaining_ms"] == 3000
    page = open_page(browser, server, DESKTOP)
    got = page.evaluate(COUNTDOWN, [before, kind, data])
    assert got["was"] <= 1.0
    assert 2.5 < got["left"] <= 3.0
    assert got["view"] == apply(before, kind, data) == g.view(2)
