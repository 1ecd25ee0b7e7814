"""The console's shoes and rounds in the browser, in both languages: a table's shoes newest
first with commitment, seed and end reason, a shoe's rounds with their cards by hand, a
round's record by names, rounds found by table and time, ledger memos and log targets in the
page's words; and no console view cuts a column at 1440 px."""

from __future__ import annotations

import contextlib
import time
import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from e2e_support import (
    DESKTOP,
    PASSWORD,
    SMALL_PHONE,
    Server,
    cells_inside,
    needs_chromium,
    no_horizontal_overflow,
    save_screenshot,
    set_role,
)
from playwright.sync_api import Error as PlaywrightError
from test_e2e_console import act, console_log_in, console_page

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.shoe import commitment
from baccarat.store import BetRecord, Store, open_store
from baccarat.store import schema as s

pytestmark = [pytest.mark.browser, needs_chromium]

TABLE = "vip-2"
THIRD_CARDS = ["2H", "KD", "3C", "6S", "7D", "9C"]  # Player 2 3 7, Banker K 6 9: Banker 5-2
NATURAL = ["9H", "2C", "KD", "5S"]  # Player 9 K, Banker 2 5: Player 9-7

CUT_CELLS = """() => {
  // Every cell whose content is wider than its column, every grid scrolled sideways, and
  // every fact wider than its line: what the operator could not read at once.
  const cut = [];
  const wide = (el) => el.scrollWidth > el.clientWidth + 1;
  for (const grid of document.querySelectorAll('.cs-grid')) {
    if (wide(grid)) cut.push(`${grid.dataset.list}: ${grid.scrollWidth} > ${grid.clientWidth}`);
    for (const cell of grid.querySelectorAll('th, td'))
      if (wide(cell)) cut.push(`${grid.dataset.list}: ${cell.innerText.slice(0, 40)}`);
  }
  for (const dd of document.querySelectorAll('.cs-facts dd'))
    if (wide(dd)) cut.push(`fact: ${dd.innerText.slice(0, 40)}`);
  return cut;
}"""


def _round(store: Store, shoe: str, n: int, ids: tuple[int, int], at: float) -> str:
    """Round ``n`` of ``shoe`` at the table, 200 on Player by the bettor, settled."""
    dealer, bettor = ids
    rid = f"{shoe}-r{n}"
    cards = THIRD_CARDS if n % 2 else NATURAL
    epoch = store.epoch_of(TABLE)
    bets = [BetRecord(bettor, "player", 2, 200, at)]
    store.escrow_round(rid, TABLE, shoe, n, dealer, bets, epoch=epoch)
    outcome = deal(iter(parse_cards(cards)).__next__)
    done = settle(outcome, dealer, {bettor: {"player": 200}})
    store.settle_round(
        rid, cards, values.outcome(outcome), done.deltas, done.commission, done.house, epoch=epoch
    )
    with store.engine.begin() as conn:
        conn.execute(sa.update(s.rounds).where(s.rounds.c.id == rid).values(escrowed_at=at))
    return rid


def _shoes(server: Server) -> dict[str, Any]:
    """Two shoes of the table an hour ago: one ended (its seed revealed) of three rounds, and
    one of two rounds still dealt; a dealer 阿德 and a bettor 小美."""
    tag = uuid.uuid4().hex[:6]
    seed = bytes(range(32))
    with contextlib.closing(open_store(server.db)) as store:
        dealer = store.create_user(f"ade{tag}", PASSWORD, display_name=f"阿德{tag}", coins=10**6)
        bettor = store.create_user(f"mei{tag}", PASSWORD, display_name=f"小美{tag}", coins=10**6)
        ids = (dealer.user_id, bettor.user_id)
        ended, running = f"shoe-a{tag}", f"shoe-b{tag}"
        store.record_shoe_start(ended, TABLE, commitment(seed))
        start = time.time() // 60 * 60 - 3600  # on a minute: a datetime-local field's step
        rounds = [_round(store, ended, n, ids, start + n * 60) for n in (1, 2, 3)]
        store.record_shoe_end(ended, seed.hex())
        store.record_shoe_start(running, TABLE, "ab" * 32)
        rounds += [_round(store, running, n, ids, start + 600 + n * 60) for n in (1, 2)]
    return {
        "tag": tag,
        "ended": ended,
        "running": running,
        "rounds": rounds,
        "ids": ids,
        "start": start,
    }


def views_fit(page: Any, played: dict[str, Any], lang: str) -> None:
    """Every console view at this page's width: no cut column, no sideways page."""
    bettor = played["ids"][1]
    views = {
        "tables": "[data-list='tables'] tbody tr",
        "users": "[data-list='users'] tbody tr",
        f"users/{bettor}": "[data-list='ledger'] tbody tr",
        "grants": "[data-list='grants']",
        "records": "[data-form='round_search']",
        f"records/{played['rounds'][0]}": ".cs-round [data-list='bets'] tbody tr",
        f"shoes/{TABLE}/{played['ended']}": ".cs-shoe [data-list='shoe_rounds'] tbody tr",
        "risk": "[data-list='pairs']",
        "log": "[data-list='log'] tbody tr",
    }
    for view, ready in views.items():
        page.goto(f"{page.url.split('#')[0]}#/{view}")
        page.wait_for_selector(f".cs-main {ready}")
        assert page.evaluate(CUT_CELLS) == [], f"{view} ({lang})"
        assert no_horizontal_overflow(page), f"{view} ({lang})"


def test_an_operator_reads_a_tables_shoes_and_rounds_by_name_and_hand(
    server: Server, browser: Any
) -> None:
    played = _shoes(server)
    tag, bettor = played["tag"], played["ids"][1]
    operator = f"shoeop{tag}"
    with contextlib.closing(open_store(server.db)) as store:
        store.create_user(operator, PASSWORD, coins=0)
    set_role(server, operator, "operator", "archive desk")
    pages: list[Any] = []
    try:
        page = console_page(browser, server, DESKTOP)
        pages.append(page)
        secret = console_log_in(page, operator, None)
        # The tables' rooms by name, in zh-TW.
        page.wait_for_selector("[data-list='tables'] tr[data-table='vip-1'] td:text('貴賓區')")
        # The table's shoes, newest first: the running one, then the ended one with its seed.
        page.click(".cs-tab[data-tab='shoes']")
        page.select_option(".cs-search select[name=table]", TABLE)
        page.wait_for_selector(f"[data-list='shoes'] tr[data-shoe='{played['ended']}']")
        order = page.locator("[data-list='shoes'] tr[data-shoe]").evaluate_all(
            "(rows) => rows.map((r) => r.dataset.shoe)"
        )
        assert order.index(played["running"]) < order.index(played["ended"])
        ended = page.locator(f"[data-list='shoes'] tr[data-shoe='{played['ended']}']")
        assert "發完" in ended.inner_text() and "000102030405" in ended.inner_text()
        running = page.locator(f"[data-list='shoes'] tr[data-shoe='{played['running']}']")
        assert "進行中" in running.inner_text()
        # A shoe's rounds, their cards by hand.
        ended.locator("[data-action='open_shoe']").click()
        first = f".cs-shoe [data-list='shoe_rounds'] tr[data-round='{played['rounds'][0]}']"
        page.wait_for_selector(first)
        assert page.inner_text(f"{first} [data-hand='player']") == "閒 2H 3C 7D"
        assert page.inner_text(f"{first} [data-hand='banker']") == "莊 KD 6S 9C"
        assert page.inner_text(".cs-shoe [data-field='seed']") == bytes(range(32)).hex()
        save_screenshot(page, "console-shoes-desktop")
        # A round opens its record: the table by name, the users by display name.
        page.click(f"{first} a")
        page.wait_for_selector(f".cs-round[data-round='{played['rounds'][0]}']")
        assert page.inner_text(".cs-round h2").startswith("貴賓區 2 · 第 1 局")
        assert page.inner_text("[data-field='cards'] [data-hand='player']") == "閒 2H 3C 7D (2)"
        names = page.locator("[data-list='bets'] tbody tr td:first-child").all_inner_texts()
        assert names == [f"阿德{tag} (荷官)", f"小美{tag}"]
        save_screenshot(page, "console-round-desktop")
        # The bettor's ledger in the page's words, each round's memo linked to its record.
        page.goto(f"{server.url}/admin/#/users/{bettor}")
        memos = page.locator("[data-list='ledger'] [data-memo]")
        memos.first.wait_for()
        assert "貴賓區 2 · 第 2 局" in memos.all_inner_texts()
        # A grant from here: the log names its target by display name.
        assert act(page, "grant", "補償斷線", coins="300") == "ok"
        page.click(".cs-tab[data-tab='log']")
        target = f"main[data-view='log'] [data-list='log'] tr[data-action='grant'] a[href='#/users/{bettor}']"
        assert page.inner_text(target) == f"小美{tag}"
        page.goto(f"{server.url}/admin/#/users/{bettor}")
        memos.first.wait_for()
        # English: the record, then rounds found by table and time.
        page.click("[data-action='lang']")
        page.wait_for_selector("[data-list='ledger'] [data-memo]:text('VIP 2 · Round 2')")
        save_screenshot(page, "console-ledger-desktop-en")
        page.goto(f"{server.url}/admin/#/records/{played['rounds'][0]}")
        page.wait_for_selector(".cs-round h2:text('VIP 2 · Round 1')")
        assert page.inner_text("[data-field='cards'] [data-hand='banker']") == "Banker KD 6S 9C (5)"
        save_screenshot(page, "console-round-desktop-en")
        page.click(".cs-tab[data-tab='records']")
        form = "[data-form='round_search']"
        page.select_option(f"{form} select[name=table]", TABLE)
        page.fill(f"{form} input[name=from]", _local(page, played["start"] + 180))
        page.click(f"{form} button[type=submit]")
        page.wait_for_selector("[data-list='found'] tr[data-round]")
        found = page.locator("[data-list='found'] tr[data-round]").evaluate_all(
            "(rows) => rows.map((r) => r.dataset.round)"
        )
        # From the ended shoe's third round on: it and the running shoe's two, newest first
        # (and whatever the table dealt itself since).
        assert found[-3:] == [played["rounds"][4], played["rounds"][3], played["rounds"][2]]
        row = page.inner_text(f"[data-list='found'] tr[data-round='{played['rounds'][2]}']")
        assert f"阿德{tag}" in row and "Round 3" in row and "Banker KD 6S 9C" in row
        save_screenshot(page, "console-search-desktop-en")
        # Every view at 1440 px in both languages: no column is cut.
        views_fit(page, played, "en")
        page.click("[data-action='lang']")
        page.wait_for_selector(".cs-top h1:text('營運後台')")
        views_fit(page, played, "zh-TW")
        # A phone reads the shoes and a search without sideways scrolling of the page.
        phone = console_page(browser, server, SMALL_PHONE, phone=True)
        pages.append(phone)
        console_log_in(phone, operator, secret)
        phone.goto(f"{server.url}/admin/#/shoes/{TABLE}/{played['ended']}")
        phone.wait_for_selector(".cs-shoe [data-list='shoe_rounds'] tr[data-round]")
        assert no_horizontal_overflow(phone) and cells_inside(phone)
        save_screenshot(phone, "console-shoes-phone")
        phone.click("[data-action='lang']")
        phone.goto(f"{server.url}/admin/#/records/{played['rounds'][1]}")
        phone.wait_for_selector(".cs-round h2:text('VIP 2 · Round 2')")
        assert no_horizontal_overflow(phone)
        save_screenshot(phone, "console-round-phone-en")
        assert not page.js_errors and not phone.js_errors
    finally:
        for p in pages:
            with contextlib.suppress(PlaywrightError):
                p.context.close()


def _local(page: Any, seconds: float) -> str:
    """A time as a datetime-local field takes it, in the browser's own zone."""
    return str(
        page.evaluate(
            """(s) => { const d = new Date(s * 1000);
                 return new Date(d - d.getTimezoneOffset() * 60e3).toISOString().slice(0, 16); }""",
            seconds,
        )
    )
