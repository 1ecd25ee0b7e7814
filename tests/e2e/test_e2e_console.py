"""The operator console in the browser, in both languages: an operator enrols an
authenticator and logs in with its code, finds a player, grants coins, mutes and bans them
(their open game page is closed and their next login says why), lifts the ban, runs the
audit and reads the operator log; the ledger, the log and the audit agree after each step."""

from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

import pyotp
import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    PHONE,
    SMALL_PHONE,
    Server,
    cells_inside,
    create_account,
    log_in,
    needs_chromium,
    no_horizontal_overflow,
    open_page,
    quiet_table,
    save_screenshot,
    set_role,
)
from playwright.sync_api import Error as PlaywrightError

from baccarat.cards import parse_cards
from baccarat.protocol import values
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.store import BetRecord, open_store
from baccarat.store.audit import IN_PLAY_SECONDS

pytestmark = [pytest.mark.browser, needs_chromium]


def console_page(
    browser: Any, server: Server, viewport: dict[str, int], phone: bool = False
) -> Any:
    """A fresh context at the console's address."""
    page = open_page(browser, server, viewport, phone=phone)
    page.goto(server.url + "/admin")
    page.wait_for_selector(".cs-login")
    return page


def console_log_in(page: Any, name: str, secret: str | None) -> str:
    """Log in with the password, enrol on the first login, then give the code; the secret."""
    page.fill(".cs-login input[name=username]", name)
    page.fill(".cs-login input[name=password]", PASSWORD)
    # A code is good once: a second login within the same 30 s gives the next step's code
    # (a clock one step ahead is accepted).
    code = pyotp.TOTP(secret).at(time.time() + 30) if secret is not None else None
    if secret is None:
        page.click(".cs-login button[type=submit]")
        page.wait_for_selector(".cs-enrol img.cs-qr")
        secret = page.inner_text(".cs-secret").strip()
        code = pyotp.TOTP(secret).now()
    page.fill(".cs-login input[name=code]", code)
    page.click(".cs-login button[type=submit]")
    page.wait_for_selector(".cs-main[data-view='tables'] [data-list='tables'] tbody tr")
    return secret


def act(page: Any, name: str, reason: str, **fields: str) -> str:
    """Fill one action form and apply it; the code of its answer (``ok`` when done)."""
    form = f".cs-action[data-action='{name}']"
    for field, value in fields.items():
        page.fill(f"{form} [name={field}]", value)
    page.fill(f"{form} [name=reason]", reason)
    # A done action redraws its screen (the form with it); a refused one says why in the
    # form. The form is marked first, so that the answer read is this one's.
    page.evaluate(
        """(form) => { const f = document.querySelector(form);
             f.dataset.pending = '1'; delete f.querySelector('.cs-msg').dataset.code; }""",
        form,
    )
    page.click(f"{form} button[type=submit]")
    return str(
        page.wait_for_function(
            """(form) => { const f = document.querySelector(form + '[data-pending]');
                 if (!f) return 'ok';
                 return f.querySelector('.cs-msg').dataset.code || null; }""",
            arg=form,
        ).json_value()
    )


def a_settled_round(server: Server, dealer: str, bettor: str) -> str:
    """A round dealt and settled through the ledger of the server's database (a table of
    its own, so that no live table's epoch fences it); its id."""
    cards = ["9H", "2C", "KD", "5S"]  # Player 9 against Banker 7: Player wins, no third card
    with contextlib.closing(open_store(server.db)) as store:
        d, b = store.get_user_by_name(dealer), store.get_user_by_name(bettor)
        shoe = f"shoe-{uuid.uuid4().hex[:12]}"
        rid = f"round-{uuid.uuid4().hex[:12]}"
        store.record_shoe_start(shoe, "console-archive", "0" * 64)
        bets = [BetRecord(b.user_id, "player", 2, 200, time.time())]
        store.escrow_round(rid, "console-archive", shoe, 1, d.user_id, bets)
        it = iter(parse_cards(cards))
        outcome = deal(lambda: next(it))
        result = settle(outcome, d.user_id, {b.user_id: {"player": 200}})
        store.settle_round(
            rid, cards, values.outcome(outcome), result.deltas, result.commission, result.house
        )
    return rid


def audit_clean(server: Server) -> list[str]:
    """The problems ``baccarat audit --live`` finds in the running server's database."""
    with contextlib.closing(open_store(server.db)) as store:
        return store.audit(in_play_seconds=IN_PLAY_SECONDS).problems


def test_an_operator_enrols_grants_mutes_bans_and_reads_the_log(
    server: Server, browser: Any
) -> None:
    operator = create_account(server, "consoleop")
    player = create_account(server, "unruly", coins=5_000)
    set_role(server, operator, "operator", "night shift")
    pages: list[Any] = []
    try:
        op = console_page(browser, server, DESKTOP)
        pages.append(op)
        secret = console_log_in(op, operator, None)
        assert op.inner_text(".cs-top h1") == "營運後台"
        save_screenshot(op, "console-tables-desktop")
        # The player has the game open in another browser.
        game = open_page(browser, server, DESKTOP)
        pages.append(game)
        log_in(game, player)
        # Find them and grant coins with a reason.
        op.click(".cs-tab[data-tab='users']")
        op.fill(".cs-search input[name=q]", "UNRU")
        op.click(".cs-search button[type=submit]")
        op.click(f"[data-list='users'] tr[data-user='{player}'] a")
        op.wait_for_selector(f".cs-user[data-user='{player}']")
        user_id = op.evaluate("() => location.hash.split('/')[2]")
        assert act(op, "grant", "", coins="100") == "bad_reason"
        assert act(op, "grant", "補償斷線", coins="2500") == "ok"
        op.wait_for_selector("[data-field='coins']:text('7,500')")
        assert act(op, "grant", "take too much", coins="-99999") == "insufficient_coins"
        assert op.inner_text(".cs-action[data-action='grant'] .cs-msg") == "對方星幣不足以扣回"
        assert act(op, "mute", "洗版", minutes="15") == "ok"
        op.wait_for_selector("[data-field='status'] .cs-muted")
        assert audit_clean(server) == []
        save_screenshot(op, "console-user-desktop")
        # The ban closes the open game page and the next login says why.
        assert act(op, "ban", "盜刷") == "ok"
        op.wait_for_selector("[data-field='status'] .cs-banned")
        game.wait_for_selector(".login-form", timeout=15_000)
        game.fill("input[name=username]", player)
        game.fill("input[name=password]", PASSWORD)
        game.click(".login-form button[type=submit]")
        game.wait_for_selector(".login-form :text('此帳號已停權：盜刷')")
        assert act(op, "unban", "申訴成立") == "ok"
        op.wait_for_selector(".cs-action[data-action='ban']")
        # English from here on: the log shows every step with its reason and actor.
        op.click("[data-action='lang']")
        op.wait_for_selector(".cs-top h1:text('Operator console')")
        op.click(".cs-tab[data-tab='log']")
        # (the user's page has a log list too, with the same rows: read the log tab's own,
        # once its screen has drawn this operator's rows)
        tab_rows = "main[data-view='log'] [data-list='log'] tbody tr"
        op.wait_for_function(
            """([rows, who]) => [...document.querySelectorAll(rows)]
                 .some((r) => r.dataset.action === 'unban' && r.innerText.includes(who))""",
            arg=[tab_rows, operator],
        )
        rows = op.locator(tab_rows).evaluate_all(
            "(rows) => rows.map((r) => [r.dataset.action, r.innerText])"
        )
        mine = [(action, text) for action, text in rows if operator in text]
        assert [action for action, _ in mine[:4]] == ["unban", "ban", "mute", "grant"]
        assert "Lift ban" in mine[0][1]
        assert "補償斷線" in mine[3][1] and "coins: 5,000" in mine[3][1]
        save_screenshot(op, "console-log-desktop-en")
        op.click(".cs-tab[data-tab='records']")
        op.click("[data-action='audit']")
        op.wait_for_selector(".cs-audit [data-ok='true']")
        assert re.search(r"Audit clean: [\d,]+ rounds \([\d,]+ in play\), [\d,]+ voided",
                         op.inner_text(".cs-audit"))  # fmt: skip
        save_screenshot(op, "console-audit-desktop-en")
        op.fill("[data-form='round_id'] input[name=round]", "no-such-round")
        op.click("[data-form='round_id'] button[type=submit]")
        op.wait_for_selector(".cs-error:text('No such round')")
        # A round's full record: cards in order, bets by user and area, each net.
        rid = a_settled_round(server, operator, player)
        op.fill("[data-form='round_id'] input[name=round]", rid)
        op.click("[data-form='round_id'] button[type=submit]")
        op.wait_for_selector(
            f".cs-round[data-round='{rid}'] [data-field='cards'] [data-hand='player']:text('9H KD')"
        )
        row = op.locator(f"[data-list='bets'] tr[data-user-id='{user_id}']").inner_text()
        assert "200" in row and "+198" in row  # 200 on Player won 200, less 1%
        save_screenshot(op, "console-round-desktop-en")
        # A phone reads the console without sideways scrolling of the page.
        phone = console_page(browser, server, PHONE, phone=True)
        pages.append(phone)
        console_log_in(phone, operator, secret)
        assert no_horizontal_overflow(phone)
        save_screenshot(phone, "console-tables-phone")
        # (the language is the game's, one setting: this context speaks zh-TW until toggled)
        phone.click("[data-action='lang']")
        phone.goto(f"{server.url}/admin/#/users/{user_id}")
        phone.wait_for_selector(
            f".cs-user[data-user='{player}'] [data-field='coins']:text('7,698')"
        )
        assert no_horizontal_overflow(phone)
        save_screenshot(phone, "console-user-phone-en")
        # The smallest phone reads the log whole: each entry a card, its target inside.
        phone.set_viewport_size(SMALL_PHONE)
        phone.goto(f"{server.url}/admin/#/log")
        phone.wait_for_selector("[data-list='log'] tr td[data-label]")
        assert no_horizontal_overflow(phone) and cells_inside(phone)
        save_screenshot(phone, "console-log-phone-en")
        assert not op.js_errors and not game.js_errors and not phone.js_errors
    finally:
        for page in pages:
            with contextlib.suppress(PlaywrightError):
                page.context.close()
    with contextlib.closing(open_store(server.db)) as store:
        user = store.get_user_by_name(player)
        assert (user.coins, user.banned) == (7_698, None)
        log = store.operator_log(target=f"user:{user.user_id}")
        assert [e.action for e in log[:5]] == ["unban", "ban", "mute", "grant", "grant"]
        # (the server is live: a round escrowed at another table just now is in play)
        assert store.audit(in_play_seconds=IN_PLAY_SECONDS).ok


def test_a_players_session_opens_nothing_in_the_console(server: Server, browser: Any) -> None:
    player = create_account(server, "nosy")
    page = open_page(browser, server, DESKTOP)
    try:
        log_in(page, player)
        # The game's cookie goes with every request of the page's origin: still refused.
        got = page.evaluate(
            """async () => { const r = await fetch('/api/admin/users?q=a');
                 return [r.status, (await r.json()).error.code]; }"""
        )
        assert got == [403, "not_operator"]
        page.goto(server.url + "/admin/")
        page.wait_for_selector(".cs-login")
        page.fill(".cs-login input[name=username]", player)
        page.fill(".cs-login input[name=password]", PASSWORD)
        page.click(".cs-login button[type=submit]")
        page.wait_for_selector(".cs-login .cs-error[data-code='not_operator']")
        assert page.inner_text(".cs-login .cs-error") == "此帳號不是營運人員"
    finally:
        page.context.close()
    # Without any session: 401, and the console's login is what to do.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server.url + "/api/admin/me", timeout=10)
    assert refused.value.code == 401
    assert json.load(refused.value)["error"]["code"] == "console_login"


def test_an_operator_closes_a_table_after_its_round_and_reopens_it(
    server: Server, browser: Any
) -> None:
    operator = create_account(server, "tableop")
    player = create_account(server, "regular")
    set_role(server, operator, "operator", "floor")
    pages: list[Any] = []
    try:
        game = open_page(browser, server, PHONE, phone=True)
        pages.append(game)
        log_in(game, player)
        # (a table of its own: another module's users may still sit at theirs)
        table = quiet_table(game)
        game.click(f".table-card[data-table='{table}'] .seat-dot[data-seat='1']")
        game.wait_for_selector(".table-screen .seat.me[data-seat='1']")
        op = console_page(browser, server, DESKTOP)
        pages.append(op)
        console_log_in(op, operator, None)
        op.click("[data-action='lang']")
        op.click(f"tr[data-table='{table}'] [data-action='choose']")
        # Watched: the table's seats as a spectator sees them, and the dealer's book.
        op.wait_for_selector(f".cs-watched [data-list='seats'] tr[data-seat='1'] :text('{player}')")
        assert act(op, "close_table", "Maintenance until 9 pm") == "ok"
        op.wait_for_selector(f"tr.cs-closed[data-table='{table}']")
        op.wait_for_selector(".cs-table [data-field='suspended']")
        save_screenshot(op, "console-table-closed-desktop-en")
        # The seated player reads the notice over the felt, in their language.
        game.wait_for_selector(".notice.closed:text('本桌暫停開放：Maintenance until 9 pm')")
        save_screenshot(game, "table-closed-phone")
        # The lobby shows it closed, with the notice, and offers none of its free seats.
        for viewport, phone, picture in (
            (PHONE, True, "lobby-closed-phone"),
            (DESKTOP, False, "lobby-closed-desktop"),
        ):
            lobby = open_page(browser, server, viewport, phone=phone)
            pages.append(lobby)
            log_in(lobby, operator)
            card = f".table-card[data-table='{table}']"
            lobby.wait_for_selector(f"{card} .phase-suspended:text('暫停開放')")
            lobby.wait_for_selector(f"{card} .tc-closed:text('Maintenance until 9 pm')")
            assert lobby.is_disabled(f"{card} .seat-dot[data-seat='2']")
            lobby.locator(card).scroll_into_view_if_needed()
            save_screenshot(lobby, picture)
            lobby.click("[data-action='lang']")
            lobby.wait_for_selector(f"{card} .phase-suspended:text('Closed')")
            save_screenshot(lobby, f"{picture}-en")
            assert no_horizontal_overflow(lobby)
        # A notice to the table reaches its player in the page's language.
        op.fill(".cs-action[data-action='table_notice'] [name=zh]", "九點重新開桌")
        op.fill(".cs-action[data-action='table_notice'] [name=en]", "Open again at 9")
        assert act(op, "table_notice", "tell the regulars") == "ok"
        game.wait_for_selector(".toast-notice:text('九點重新開桌')")
        assert act(op, "open_table", "Maintenance done") == "ok"
        op.wait_for_selector(f"tr[data-table='{table}']:not(.cs-closed)")
        game.wait_for_selector(".notice.closed", state="hidden")
        assert not op.js_errors and not game.js_errors
    finally:
        for page in pages:
            with contextlib.suppress(PlaywrightError):
                page.context.close()
        with contextlib.closing(open_store(server.db)) as store:
            logged = [e.action for e in store.operator_log(target=f"table:{table}")]
    assert logged[:3] == ["open_table", "notice", "close_table"]
