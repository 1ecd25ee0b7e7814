"""Four eyes on money in the browser, in both languages: an operator's large grant waits, a
second operator approves it in the Approvals tab (the one who asked cannot), the coins move
once; an operator sees no action on an admin's page, and a grant to oneself waits too."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    needs_chromium,
    no_horizontal_overflow,
    save_screenshot,
    set_role,
)
from playwright.sync_api import Error as PlaywrightError
from test_e2e_console import act, console_log_in, console_page

from baccarat.store import open_store

pytestmark = [pytest.mark.browser, needs_chromium]


def test_a_large_grant_waits_for_a_second_operator_who_approves_it(
    server: Server, browser: Any
) -> None:
    first = create_account(server, "grantop")
    second = create_account(server, "checkop")
    boss = create_account(server, "grantboss")
    player = create_account(server, "winner", coins=5_000)
    set_role(server, first, "operator", "floor")
    set_role(server, second, "operator", "floor")
    set_role(server, boss, "admin", "owner")
    with contextlib.closing(open_store(server.db)) as store:
        player_id = store.get_user_by_name(player).user_id
        boss_id = store.get_user_by_name(boss).user_id
        first_id = store.get_user_by_name(first).user_id
    pages: list[Any] = []
    try:
        op = console_page(browser, server, DESKTOP)
        pages.append(op)
        console_log_in(op, first, None)
        op.goto(f"{server.url}/admin/#/users/{player_id}")
        op.wait_for_selector(f".cs-user[data-user='{player}']")
        assert act(op, "grant", "大獎補發", coins="150000") == "waiting"
        assert op.inner_text(".cs-action[data-action='grant'] .cs-msg") == (
            "已送出：等待另一位營運人員核准"
        )
        op.wait_for_selector("[data-field='coins']:text('5,000')")
        # A grant to oneself waits too; an admin's page offers an operator nothing.
        op.goto(f"{server.url}/admin/#/users/{first_id}")
        op.wait_for_selector(f".cs-user[data-user='{first}'] [data-field='barred']")
        assert act(op, "grant", "加班費", coins="500") == "waiting"
        assert op.locator(".cs-action[data-action='level']").count() == 0
        op.goto(f"{server.url}/admin/#/users/{boss_id}")
        op.wait_for_selector(f".cs-user[data-user='{boss}'] [data-field='barred']")
        assert op.inner_text("[data-field='barred']") == "營運人員只能處理玩家帳號"
        assert op.locator(".cs-action").count() == 0
        save_screenshot(op, "console-admin-barred-desktop")
        # The one who asked sees their request without an approve button.
        op.click(".cs-tab[data-tab='grants']")
        mine = ".cs-request[data-status='pending'] [data-code='own_request']"
        op.wait_for_selector(mine)
        # The second operator approves the large one and refuses the self-grant.
        checker = console_page(browser, server, DESKTOP)
        pages.append(checker)
        console_log_in(checker, second, None)
        checker.click(".cs-tab[data-tab='grants']")
        checker.wait_for_selector("[data-list='grants'] .cs-request[data-status='pending']")
        assert no_horizontal_overflow(checker)
        save_screenshot(checker, "console-grants-desktop")
        big = checker.locator(".cs-request", has_text=player).first
        big_id = big.get_attribute("data-request")
        form = f".cs-request[data-request='{big_id}']"
        checker.fill(f"{form} .cs-action[data-action='approve'] [name=reason]", "核對過牌局")
        checker.click(f"{form} .cs-action[data-action='approve'] button[type=submit]")
        checker.wait_for_selector(f"{form}", state="detached")
        self_grant = checker.locator(".cs-request", has_text=first).first
        self_id = self_grant.get_attribute("data-request")
        form = f".cs-request[data-request='{self_id}']"
        checker.fill(f"{form} .cs-action[data-action='refuse'] [name=reason]", "薪資不走這裡")
        checker.click(f"{form} .cs-action[data-action='refuse'] button[type=submit]")
        checker.wait_for_selector(f"{form}", state="detached")
        # English, every request: who asked, who decided and why.
        checker.click("[data-action='lang']")
        checker.select_option(".cs-search select[name=status]", "all")
        checker.wait_for_selector(f".cs-request[data-request='{big_id}'][data-status='approved']")
        text = checker.inner_text(f".cs-request[data-request='{big_id}']")
        assert "Approved" in text and second in text and "核對過牌局" in text
        save_screenshot(checker, "console-grants-desktop-en")
        phone = console_page(browser, server, PHONE, phone=True)
        pages.append(phone)
        console_log_in(phone, boss, None)
        phone.click("[data-action='lang']")
        phone.goto(f"{server.url}/admin/#/grants")
        phone.select_option(".cs-search select[name=status]", "all")
        phone.wait_for_selector(f".cs-request[data-request='{self_id}'][data-status='refused']")
        assert no_horizontal_overflow(phone)
        save_screenshot(phone, "console-grants-phone-en")
        assert not op.js_errors and not checker.js_errors and not phone.js_errors
    finally:
        for page in pages:
            with contextlib.suppress(PlaywrightError):
                page.context.close()
    with contextlib.closing(open_store(server.db)) as store:
        assert store.balance(player_id) == 155_000
        assert store.balance(first_id) == 1_000_000  # the grant to oneself was refused
        logged = [e.action for e in store.operator_log(target=f"user:{player_id}")]
        assert logged[:3] == ["grant_approved", "grant", "grant_requested"]
