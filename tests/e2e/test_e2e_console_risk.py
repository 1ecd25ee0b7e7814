"""The risk view in the browser, in both languages: a hedging pair from one address and a
dealer paying one bettor beyond chance are flagged among honest play, by name, and a pair's
rounds open below the list and link to each round's record."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    PHONE,
    Server,
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
from risk_play import dumping_to, hedging, honest_play, made_up

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
    store.escrow_round(r.round_id, r.table_id, "s-risk", 1, dealer, bets)
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
        # The simulation's eight honest accounts are the last eight; the made-up pairs apart.
        ids = {i + 1: uid[n] for i, n in enumerate(list(NAMES)[4:])}
        ids |= {50: uid["riskdealer"], 101: uid["mei"], 102: uid["kai"]}
        ids |= {201: uid["riskdealer"], 202: uid["leo"]}
        rounds = honest_play(240, seed=5, accounts=8)
        rounds += made_up(30, 1, 50, hedging(101, 102), table_id="t1")
        rounds += made_up(40, 2, 201, dumping_to(202), table_id="t2")
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
        assert no_horizontal_overflow(page)
        save_screenshot(page, "console-risk-desktop")
        first.locator("[data-action='evidence']").click()
        page.wait_for_selector(
            f"[data-evidence='{hedge_pair}'] [data-list='evidence'] tr[data-round]"
        )
        assert page.locator("[data-list='evidence'] tr[data-round]").count() == 30
        save_screenshot(page, "console-risk-evidence-desktop")
        # English; a round of the evidence opens its record.
        page.click("[data-action='lang']")
        page.wait_for_selector("[data-field='flagged']:text('Flagged: 1 hedging pairs')")
        page.locator("[data-list='pairs'] tr[data-flagged='true']").nth(1).locator(
            "[data-action='evidence']"
        ).click()
        page.wait_for_selector("[data-evidence^='dumping'] tr[data-round]")
        save_screenshot(page, "console-risk-desktop-en")
        page.locator("[data-evidence^='dumping'] tr[data-round] a").first.click()
        page.wait_for_selector(".cs-round[data-round]")
        phone = console_page(browser, server, PHONE, phone=True)
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
        assert not page.js_errors and not phone.js_errors
    finally:
        for p in pages:
            with contextlib.suppress(PlaywrightError):
                p.context.close()
