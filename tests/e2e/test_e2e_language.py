"""What the screens say: every visible word in the chosen language, figures in refusals,
the app's own form messages, the fairness panel's check of a finished shoe.

A dealer and a bettor of this module play rounds at a table nobody else sits at; each screen
(the lobby, the table as the bettor and as the dealer at a result, My bets, the fairness panel)
is read in zh-TW and in English: no Latin letter in zh-TW, no CJK character in English. User
names, hex codes, card faces and the language switch (which names the other language in that
language) are marked as not to be translated (``translate="no"``, ``lang``) and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from e2e_support import (
    DESKTOP,
    PASSWORD,
    PHONE,
    Server,
    create_account,
    hold,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    played_to,
    quiet_table,
    sit,
)

from baccarat.shoe import commitment, new_seed

pytestmark = [pytest.mark.browser, needs_chromium]

DEALER = "lgdealer"
BETTOR = "lgbettor"

FOREIGN_WORDS = r"""(names) => {
  // Every visible text (text nodes, placeholders, the title) in the wrong script for the
  // page's language: Latin letters in zh-TW, CJK characters (and CJK punctuation) in English.
  // (What only a screen reader reads, .sr-only, is not seen; its 黑桃 A names a card.)
  const lang = document.documentElement.lang;
  const bad = lang === 'en' ? /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/ : /[A-Za-z]/;
  const skip = (el) => el.closest('[translate]')?.getAttribute('translate') === 'no' ||
    el.closest('code, script, style, .card-svg, .sr-only') ||
    (el.closest('[lang]') && el.closest('[lang]').lang !== lang);
  const visible = (el) => {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const strip = (text) => names.reduce((t, n) => t.split(n).join(''), text);
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || skip(el) || !visible(el)) continue;
    if (bad.test(strip(text))) found.push(text);
  }
  for (const el of document.querySelectorAll('input[placeholder], textarea[placeholder]')) {
    if (!skip(el) && visible(el) && bad.test(el.placeholder)) found.push(el.placeholder);
  }
  if (bad.test(document.title)) found.push(document.title);
  return [...new Set(found)];
}"""

NAMES = [DEALER, BETTOR, "lgnovice", "lgpoor", "lgform"]


def foreign(page: Any) -> list[str]:
    """The visible texts of the page in the other language's script."""
    return list(page.evaluate(FOREIGN_WORDS, NAMES))


def to_lang(page: Any, lang: str) -> None:
    """Switch the page to ``lang`` ("zh-TW" or "en") with the toolbar's toggle, if needed."""
    want = "en" if lang == "en" else "zh-Hant"
    if page.evaluate("document.documentElement.lang") != want:
        page.click("[data-action='lang']")
        page.wait_for_function(f"() => document.documentElement.lang === '{want}'")


def both(page: Any, where: str, seen: dict[str, list[str]]) -> None:
    """Read the page in zh-TW and in English (ending in zh-TW); keep what was foreign."""
    for lang in ("zh-TW", "en"):
        to_lang(page, lang)
        page.wait_for_timeout(100)  # a redraw after the switch
        seen[f"{where} {lang}"] = foreign(page)
    to_lang(page, "zh-TW")


@dataclass
class Words:
    """What each screen showed in the other language's script, and the dealer's page."""

    seen: dict[str, list[str]]
    dealer: Any


@pytest.fixture(scope="module")
def words(server: Server, browser: Any) -> Words:
    """Each screen read in both languages: what was written in the other one's script."""
    for name in (DEALER, BETTOR):
        create_account(server, name)
    seen: dict[str, list[str]] = {}
    dealer = open_page(browser, server, DESKTOP)
    bettor = open_page(browser, server, DESKTOP)
    log_in(dealer, DEALER)
    log_in(bettor, BETTOR)
    # The reader finds a foreign word when there is one.
    bettor.evaluate(
        "document.body.append(Object.assign(document.createElement('b'), {id: 'probe', textContent: '一般 Standard'}))"
    )
    seen["probe"] = foreign(bettor)
    bettor.evaluate("document.getElementById('probe').remove()")
    both(bettor, "lobby", seen)
    table = quiet_table(dealer)
    sit(dealer, table, 0)
    sit(bettor, table, 3)
    bettor.wait_for_selector(".table-screen[data-phase='betting']", timeout=60_000)
    assert place_chip(bettor, 5, "banker") == "ok"
    assert place_chip(bettor, 1, "tie") == "ok"
    both(bettor, "bettor betting", seen)
    # The rest of the round is played out at once (nobody opens the bettor's squeezes), and
    # the table holds at its result while both screens are read.
    played_to(server, table, "result")
    try:
        for page, who in ((bettor, "bettor"), (dealer, "dealer")):
            page.wait_for_selector(
                ".table-screen[data-phase='result'] .result-banner:not([hidden])", timeout=60_000
            )
            both(page, f"{who} result", seen)
    finally:
        hold(server, table, None)
    for lang in ("zh-TW", "en"):
        to_lang(dealer, lang)
        dealer.click("[data-action='fairness']")
        dealer.wait_for_selector(".fair-panel:not([hidden])")
        seen[f"fairness {lang}"] = foreign(dealer)
        dealer.keyboard.press("Escape")
        dealer.wait_for_selector(".fair-panel", state="hidden")
    to_lang(dealer, "zh-TW")
    bettor.click("[data-action='history']")
    bettor.wait_for_selector(".history-screen .hist-round", timeout=30_000)
    both(bettor, "history", seen)
    return Words(seen, dealer)


def test_every_screen_speaks_only_its_language(words: Words) -> None:
    seen = dict(words.seen)
    assert seen.pop("probe") == ["一般 Standard"]
    assert set(seen) >= {
        f"{where} {lang}"
        for where in ("lobby", "bettor betting", "bettor result", "dealer result", "history")
        for lang in ("zh-TW", "en")
    }
    assert {k: v for k, v in seen.items() if v} == {}


def test_a_user_below_a_rooms_level_is_told_the_level_needed(server: Server, browser: Any) -> None:
    create_account(server, "lgnovice", level=40)
    page = open_page(browser, server, PHONE, phone=True)
    log_in(page, "lgnovice")
    page.wait_for_selector(".table-card .level-needed")
    assert page.inner_text(".table-card .level-needed") == "需要等級 50"
    to_lang(page, "en")
    page.wait_for_selector(".table-card .level-needed:text('Level 50 needed')")


def test_a_seat_refused_for_coins_says_the_floor_and_the_coins(
    server: Server, browser: Any
) -> None:
    # 5,000 coins: under every VIP seat's floor (10,000 a bettor, 350,000 the dealer).
    create_account(server, "lgpoor", coins=5_000)
    page = open_page(browser, server, DESKTOP)
    log_in(page, "lgpoor")
    # The lobby screen shows before its first page of tables arrives: wait for a free VIP seat.
    free = page.wait_for_function(
        """() => (window.baccaratApp.lobby.page?.tables ?? []).filter((tb) => tb.room_id === 'vip')
             .flatMap((tb) => tb.seats.map((s, i) => [tb.table_id, i, s]))
             .filter(([, , s]) => !s).map(([t, i]) => [t, i])
             .sort((a, b) => a[1] - b[1])[0]"""
    ).json_value()
    table, seat = free
    page.evaluate("([t, s]) => window.baccaratApp.table.sit(t, s)", [table, seat])
    page.wait_for_selector(".toast-error")
    floor = "350,000" if seat == 0 else "10,000"
    assert page.inner_text(".toast-error") == f"此座位需要 {floor} 星幣，您有 5,000"


def test_the_login_form_speaks_the_apps_language_not_the_browsers(
    server: Server, browser: Any
) -> None:
    create_account(server, "lgform")
    page = open_page(browser, server, PHONE, phone=True)  # the browser's locale is zh-TW
    page.wait_for_selector(".login-form")
    to_lang(page, "en")
    page.click(".login-form button[type=submit]")
    assert page.inner_text(".form-msg") == "Enter your name"
    # No browser bubble: the form does not ask the browser to check it.
    assert page.evaluate("document.querySelector('.login-form').noValidate") is True
    page.fill("input[name=username]", "lgform")
    page.click(".login-form button[type=submit]")
    assert page.inner_text(".form-msg") == "Enter your password"
    to_lang(page, "zh-TW")
    page.click(".login-form button[type=submit]")
    assert page.inner_text(".form-msg") == "請輸入帳號"
    page.fill("input[name=username]", "lgform")
    page.fill("input[name=password]", PASSWORD)
    page.click(".login-form button[type=submit]")
    page.wait_for_selector(".lobby-screen")


def test_the_fairness_panel_checks_a_finished_shoe_with_the_browsers_sha256(
    words: Words,
) -> None:
    page = words.dealer
    # The top bar no longer shows the commitment: the panel does, whole.
    assert not page.query_selector(".ti-commit")
    commit_now = page.evaluate("window.baccaratApp.table.view.shoe.commitment")
    assert len(commit_now) == 64
    page.click("[data-action='fairness']")
    assert page.inner_text(".fair-panel .fp-commit") == commit_now
    assert "承諾" in page.inner_text(".fair-panel .fp-explain")
    seed = new_seed()
    for shown_commitment, verdict in ((commitment(seed), "ok"), (commitment(new_seed()), "bad")):
        # A finished shoe as the server reveals it (view.last_shoe): its seed and commitment.
        page.evaluate(
            """([seed, commit]) => {
              const table = window.baccaratApp.table;
              const last = { seed, commitment: commit, history: [] };
              // Into the one view the page keeps: the events that follow keep it too.
              table.store.view = { ...table.store.view, last_shoe: last };
              table.draw();
            }""",
            [seed.hex(), shown_commitment],
        )
        page.wait_for_selector(f".fair-panel .fp-seed:text('{seed.hex()}')")
        page.click(".fair-panel [data-action='verify']")
        page.wait_for_selector(f".fair-panel .verify-result.{verdict}")
    assert page.inner_text(".fair-panel .verify-result") == "✘ 不相符！"
    assert not page.js_errors
