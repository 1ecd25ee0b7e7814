"""The risk view in the browser, in both languages: a hedging pair from one address and a
dealer paying one bettor beyond chance are flagged, by name, and none of the honest bettors
seated beside them; a pair's rounds open below the list by table and round number and link
to each round's record; on a phone every row is whole."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    SMALL_PHONE,
    Server,
    cells_inside,
    create_account,
    needs_chromium,
    no_horizontal_overflow,
    save_screenshot,
    set_role,
)
from playwright.sync_api import Error as PlaywrightError
from test_e2e_console import console_log_in, console_page

from baccarat.risk import RoundFacts
from baccarat.store import BetRecord, Store, open_store
from risk_play import Pattern, dumping_to, hedging, honest_play

pytestmark = [pytest.mark.browser, needs_chromium]

NAMES = {
    "riskdealer": "阿德",
    "mei": "小美",
    "kai": "阿凱",
    "wang": "老王",
    "mia": "Mia",
    "leo": "Leo",
    "ada": "Ada",
    "bo": "Bo",
    "ray": "Ray",
    "sam": "阿山",
    "tom": "Tom",
    "uma": "Uma",
}
"""Usernames and the display names the view shows."""
HONEST = [n for n in NAMES if n not in ("riskdealer", "mei", "kai", "leo")]
PLAYER_WINS = ["4S", "5H", "4H", "KC"]  # Player 8, Banker 5
BANKER_WINS = ["5S", "5H", "KH", "3C"]  # Player 5, Banker 8
TIE = ["4S", "4H", "4D", "4C"]  # 8 and 8


def _store_round(store: Store, r: RoundFacts, ids: dict[int, int], at: float) -> None:
    """One made-up round in the database, on cards that give its winner."""
    from baccarat.cards import parse_cards
    from baccarat.protocol import values
    from baccarat.rules import deal
    from baccarat.settlement import settle

    dealer = ids[r.dealer_id]
    stakes = {
        ids[u]: {"player" if p > 0 else "banker": abs(p)} for u, p in r.positions.items() if p
    }
    bets = [BetRecord(u, a, c // 100, c, at) for u, s in stakes.items() for a, c in s.items()]
    store.escrow_round(r.round_id, r.table_id, "s-risk", r.round_no, dealer, bets)
    cards = {"player": PLAYER_WINS, "banker": BANKER_WINS}.get(r.winner, TIE)
    outcome = deal(iter(parse_cards(cards)).__next__)
    done = settle(outcome, dealer, stakes)  # type: ignore[arg-type]
    store.settle_round(
        r.round_id, cards, values.outcome(outcome), done.deltas, done.commission, done.house
    )


def _play(server: Server) -> dict[str, int]:
    with contextlib.closing(open_store(server.db)) as store:
        uid = {
            n: store.create_user(n, PASSWORD, display_name=d, coins=5_000_000).user_id
            for n, d in NAMES.items()
        }
        # The simulation's eight honest accounts; the made-up pairs apart.
        ids = {i + 1: uid[n] for i, n in enumerate(HONEST)}
        ids |= {50: uid["riskdealer"], 101: uid["mei"], 102: uid["kai"]}
        ids |= {201: uid["riskdealer"], 202: uid["leo"]}
        # Two tables of honest play, and two where honest bettors sit beside a pattern.
        patterns = (Pattern(50, hedging(101, 102)), Pattern(201, dumping_to(202)))
        rounds = honest_play(320, seed=1, accounts=8, patterns=patterns)
        store.record_shoe_start("s-risk", "t1", "00" * 32)
        start = time.time() - 3600
        for n, r in enumerate(rounds):
            _store_round(store, r, ids, start + n)
        store.note_login_address(uid["mei"], "203.0.113.9")
        store.note_login_address(uid["kai"], "203.0.113.9")
    return uid


def test_the_risk_view_flags_a_hedging_pair_and_a_dump_by_name(
    server: Server, browser: Any
) -> None:
    uid = _play(server)
    boss = create_account(server, "riskop")
    set_role(server, boss, "operator", "risk desk")
    hedge_pair = f"hedge:{min(uid['mei'], uid['kai'])}:{max(uid['mei'], uid['kai'])}"
    pages: list[Any] = []
    try:
        page = console_page(browser, server, DESKTOP)
        pages.append(page)
        secret = console_log_in(page, boss, None)
        page.click(".cs-tab[data-tab='risk']")
        page.wait_for_selector("[data-list='pairs'] tr[data-flagged='true']")
        assert page.inner_text("[data-field='flagged']") == "已標記：對打 1 組、籌碼輸送 1 組"
        flagged = page.locator("[data-list='pairs'] tr[data-flagged='true']")
        assert flagged.count() == 2
        first = flagged.nth(0)
        assert first.get_attribute("data-pair") == hedge_pair
        assert "小美" in first.inner_text() and "阿凱" in first.inner_text()
        assert "同一登入位址" in first.inner_text()
        second = flagged.nth(1).inner_text()
        assert "籌碼輸送" in second and "阿德" in second and "Leo" in second
        honest = [NAMES[n] for n in HONEST]
        rows = [flagged.nth(i).inner_text() for i in range(2)]
        assert not any(name in row for name in honest for row in rows)
        assert page.locator("select[name='days'] option").first.inner_text() == "最近 1 天"
        assert no_horizontal_overflow(page)
        save_screenshot(page, "console-risk-desktop")
        first.locator("[data-action='evidence']").click()
        page.wait_for_selector(
            f"[data-evidence='{hedge_pair}'] [data-list='evidence'] tr[data-round]"
        )
        assert page.locator("[data-list='evidence'] tr[data-round]").count() == 30
        # Each round by its table and number, the round's id only in the link's title.
        place = page.locator("[data-list='evidence'] tr[data-round] a").first
        assert "第 " in place.inner_text() and place.get_attribute("title").startswith("p0-")
        save_screenshot(page, "console-risk-evidence-desktop")
        # English; a round of the evidence opens its record.
        page.click("[data-action='lang']")
        page.wait_for_selector(
            "[data-field='flagged']:text('Flagged: 1 hedging pair, 1 chip dumping pair')"
        )
        assert page.locator("select[name='days'] option").first.inner_text() == "Last day"
        page.locator("[data-list='pairs'] tr[data-flagged='true']").nth(1).locator(
            "[data-action='evidence']"
        ).click()
        page.wait_for_selector("[data-evidence^='dumping'] tr[data-round]")
        assert "Round " in page.inner_text("[data-evidence^='dumping'] tr[data-round] a >> nth=0")
        assert "Leo" in page.inner_text("[data-evidence^='dumping'] [data-field='why']")
        save_screenshot(page, "console-risk-desktop-en")
        page.locator("[data-evidence^='dumping'] tr[data-round] a").first.click()
        page.wait_for_selector(".cs-round[data-round]")
        phone = console_page(browser, server, SMALL_PHONE, phone=True)
        pages.append(phone)
        console_log_in(phone, boss, secret)
        phone.goto(f"{server.url}/admin/#/risk")
        phone.wait_for_selector("[data-list='pairs'] tr[data-flagged='true']")
        assert no_horizontal_overflow(phone)
        save_screenshot(phone, "console-risk-phone")
        phone.click("[data-action='lang']")
        phone.wait_for_selector("[data-field='flagged']:text('Flagged')")
        phone.locator(
            "[data-list='pairs'] tr[data-flagged='true'] [data-action='evidence']"
        ).first.click()
        phone.wait_for_selector("[data-evidence] tr[data-round]")
        save_screenshot(phone, "console-risk-phone-en")
        # Every row's button and every evidence cell lies inside the phone's screen.
        assert no_horizontal_overflow(phone)
        assert cells_inside(phone)
        assert not page.js_errors and not phone.js_errors
    finally:
        for p in pages:
            with contextlib.suppress(PlaywrightError):
                p.context.close()
