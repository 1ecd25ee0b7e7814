"""The result reaches the player on every round, however slow the device.

A page at 4x CPU throttling (Chromium's ``Emulation.setCPUThrottlingRate``, with motion, so
every opened card turns over and flies into its hand) watches bots play several rounds at
the test server's speed, where a result lasts 2.5 s: the banner must show in each of them.
A starved page reads the table's messages late; its countdowns still end with the server's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from e2e_support import (
    PHONE,
    BetsIn,
    Server,
    create_account,
    hold,
    leave_empty,
    log_in,
    needs_chromium,
    open_page,
    played_to,
    quiet_table,
    sit,
    skip,
    table_state,
)
from test_e2e_layout import start_bots

from serving import wait_until

pytestmark = [pytest.mark.browser, needs_chromium]

ROUNDS = 4

RECORD = """() => {
  // Each round whose result the page entered, and each round whose banner it showed then.
  const seen = window.resultsSeen = { rounds: [], banners: [] };
  const look = () => {
    const screen = document.querySelector('.table-screen');
    if (screen?.dataset.phase !== 'result') return;
    const round = window.baccaratApp.table.view?.result?.round_id;
    if (round && !seen.rounds.includes(round)) seen.rounds.push(round);
    const banner = document.querySelector('.result-banner:not([hidden])');
    const shown = banner?.dataset.round;
    if (shown && !seen.banners.includes(shown)) seen.banners.push(shown);
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true,
    attributes: true, attributeFilter: ['hidden', 'data-phase', 'data-round'] });
}"""

PLAYED = f"""() => window.resultsSeen.rounds.length >= {ROUNDS} &&
  document.querySelector('.table-screen')?.dataset.phase !== 'result'"""


BUSY = """(ms) => { setTimeout(() => { const end = performance.now() + ms;
  while (performance.now() < end); }, 0); }"""
"""Keep the page's one thread busy for ``ms``, starting just after this call returns."""

PAGE_LEFT = """() => { const { view, at } = window.baccaratApp.table.store;
  return view?.phase === 'betting' ? at + view.remaining_ms - performance.now() : null; }"""
"""The betting's time left as the page counts it down (ms), or null outside a betting."""


@pytest.fixture(scope="module")
def dealing(server: Server, browser: Any) -> Iterator[tuple[Any, str]]:
    """A phone page (with motion) dealing to bots at a table of its own, and that table."""
    name = create_account(server, "slowphone")
    page = open_page(browser, server, PHONE, phone=True, motion=True)
    bots = None
    table = None
    try:
        log_in(page, name)
        table = quiet_table(page)
        sit(page, table, 0)
        bots = start_bots(server, table)
        page.wait_for_function(
            "() => document.querySelectorAll('.seats .seat.taken').length >= 4", timeout=60_000
        )
        yield page, table
    finally:
        if bots is not None:
            bots.terminate()
            bots.wait()
        leave_empty(page, table=(server, table) if table else None)
        page.context.close()


def test_the_banner_shows_on_every_round_at_4x_cpu_throttling(
    server: Server, dealing: tuple[Any, str]
) -> None:
    page, table = dealing
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    try:
        page.evaluate(RECORD)
        bets_in = BetsIn(page)

        def played() -> bool:
            if page.evaluate(PLAYED):
                return True
            # A betting whose bets are in and a squeeze are ended early (the squeeze's card
            # opens as at its timeout): results run their time.
            state = table_state(server, table)
            if state["phase"] == "squeeze" or bets_in(state):
                skip(server, table)
            return False

        wait_until(played, "rounds played", limit=180.0, every=0.25)
        seen = page.evaluate("window.resultsSeen")
        rounds = seen["rounds"][:ROUNDS]
        assert [r for r in rounds if r not in seen["banners"]] == [], seen
        assert page.js_errors == []
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})


def test_a_page_that_reads_the_betting_late_counts_down_the_servers_time(
    server: Server, dealing: tuple[Any, str]
) -> None:
    page, table = dealing
    bets_in = BetsIn(page)
    wait_until(lambda: bets_in(table_state(server, table)), "the bots' bets", limit=60.0)
    played_to(server, table, "result")
    try:
        # The betting opens while the page is busy for 3 s: it reads its opening that late.
        page.evaluate(BUSY, 3000)
    finally:
        hold(server, table, None)
    skip(server, table)
    page.wait_for_function(f"() => ({PAGE_LEFT})() !== null", timeout=30_000)
    shown = page.evaluate(PAGE_LEFT)
    left = table_state(server, table)["remaining_ms"]
    # Read a few ms apart; without the server's clock the page would count 3 s too many.
    assert left < 7_500 - 2_000, left
    assert abs(shown - left) < 1_000, (shown, left)
    assert page.js_errors == []
