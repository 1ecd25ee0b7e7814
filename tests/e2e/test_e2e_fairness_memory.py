"""A suspicious player's fairness checks, in Chromium at a table that plays.

The page checks a revealed seed against the commitment it saw itself when the shoe started
(kept in the browser's IndexedDB, across reloads), not only against the one the server's
archive gives afterwards; and a whole-shoe check stays on screen through the rounds the table
plays on until the player closes it. A server that rewrote its archive (seed and commitment
both, self-consistent) is played by Playwright's request routing.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from archive_support import archived_shoe
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    held_at_next_betting,
    hold,
    leave_empty,
    log_in,
    needs_chromium,
    open_page,
    place_chip,
    quiet_table,
    save_screenshot,
    sit,
)

from baccarat.shoe import commitment, new_seed, shuffled_cards

pytestmark = [pytest.mark.browser, needs_chromium]


@dataclass
class Seated:
    """A table that plays: its dealer on a phone in English, its bettor on a desktop."""

    table: str
    desktop: Any
    phone: Any


@pytest.fixture(scope="module")
def seated(server: Server, browser: Any) -> Iterator[Seated]:
    """A quiet table with a dealer (phone, English) and a bettor (desktop, zh-TW) seated,
    held at the start of a betting."""
    desktop = open_page(browser, server, DESKTOP)
    phone = open_page(browser, server, PHONE, phone=True)
    table = ""
    try:
        log_in(desktop, create_account(server, "memorybettor"))
        log_in(phone, create_account(server, "memorydealer"))
        table = quiet_table(desktop)
        sit(phone, table, 0)
        sit(desktop, table, 1)
        phone.click("[data-action='lang']")
        phone.wait_for_function("() => document.documentElement.lang === 'en'")
        held_at_next_betting(server, table)
        yield Seated(table, desktop, phone)
    finally:
        leave_empty(desktop, phone)
        if table:
            hold(server, table, None)
        desktop.context.close()
        phone.context.close()


RECORD = """(id) => new Promise((resolve, reject) => {
  // The page's memory read as it is stored: the database baccarat-fair, a record a shoe.
  const req = indexedDB.open('baccarat-fair', 1);
  req.onupgradeneeded = () => req.result.createObjectStore('shoes', { keyPath: 'shoe_id' });
  req.onerror = () => reject(req.error);
  req.onsuccess = () => {
    const get = req.result.transaction('shoes').objectStore('shoes').get(id);
    get.onsuccess = () => { req.result.close(); resolve(get.result ?? null); };
    get.onerror = () => reject(get.error);
  };
})"""

REMEMBER = (
    """([id, table, commit]) => import('/js/seen.js').then((m) => m.remember(id, table, commit))"""
)

CHECKED = """(id) => {
  const box = document.querySelector(`.fp-archived[data-shoe='${id}'] .fp-checked`);
  const memory = box?.querySelector('.fp-memory');
  return box && { ok: box.dataset.ok, sentence: box.querySelector('.verify-result').textContent,
    archive: box.querySelector('.verify-result').dataset.archive === 'ok',
    archive_colour: getComputedStyle(box.querySelector('.verify-result')).color,
    memory: memory.dataset.memory, alarm: memory.dataset.alarm, said: memory.querySelector('p').textContent,
    others: memory.querySelectorAll('.fp-other').length,
    colour: getComputedStyle(memory).backgroundColor,
    skips: [...box.querySelectorAll('.fp-skip')].map((n) => n.textContent),
    round: document.querySelector('.fp-current .fp-round').textContent };
}"""

WHEN = """(ms) => new Date(ms).toLocaleString(document.documentElement.lang, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })"""


def _open_panel(page: Any) -> None:
    if page.locator(".fair-panel:not([hidden])").count() == 0:
        page.click("[data-action='fairness']")
    page.wait_for_selector(".fair-panel:not([hidden])")


def _check(page: Any, shoe_id: str) -> dict[str, Any]:
    """Open the panel, check an ended shoe of the archive, and read what the page says."""
    _open_panel(page)
    page.click(f".fp-archived[data-shoe='{shoe_id}'] [data-action='verify-shoe']")
    page.wait_for_selector(f".fp-archived[data-shoe='{shoe_id}'] .fp-checked")
    return dict(page.evaluate(CHECKED, shoe_id))


def _round_no(page: Any) -> int:
    return int(page.evaluate("() => window.baccaratApp.table.view.round_no"))


def test_a_whole_shoe_check_stays_through_the_next_round_until_it_is_closed(
    server: Server, seated: Seated
) -> None:
    shoe = archived_shoe(server, seated.table, 12, voided=(5,))
    at = f"{shoe.first_cards[4] + 1}–{shoe.first_cards[5]}"
    skipped = {
        seated.desktop: f"第 {at} 張未發出（第 5 局作廢）",
        seated.phone: f"positions {at} skipped (round 5 was voided)",
    }
    before = {page: _check(page, shoe.shoe_id) for page in (seated.desktop, seated.phone)}
    for page, got in before.items():
        assert got["ok"] == "true" and got["sentence"].endswith(skipped[page])
    # The bettor bets, and the table plays the round to the next betting (held there).
    played_from = _round_no(seated.desktop)
    assert place_chip(seated.desktop, 1, "banker") == "ok"
    hold(server, seated.table, None)  # (a held betting is not ended: let it go first)
    held_at_next_betting(server, seated.table)
    for page in (seated.desktop, seated.phone):
        page.wait_for_function("(n) => window.baccaratApp.table.view.round_no > n", arg=played_from)
        page.wait_for_function(
            "(n) => document.querySelector('.fp-current .fp-round').textContent.includes(n)",
            arg=f"{played_from + 1}/78",
        )
        after = page.evaluate(CHECKED, shoe.shoe_id)
        assert after is not None, "the check went with the round"
        assert {**after, "round": ""} == {**before[page], "round": ""}
        assert after["round"] != before[page]["round"]
    for page, name in ((seated.desktop, "desktop-zh"), (seated.phone, "phone-en")):
        page.locator(
            f".fp-archived[data-shoe='{shoe.shoe_id}'] .fp-checked"
        ).scroll_into_view_if_needed()
        save_screenshot(page, f"fairness-shoe-{name}")
    # Closed and opened again, the panel still shows it; its own ✕ takes it away.
    page = seated.desktop
    page.keyboard.press("Escape")
    _open_panel(page)
    page.wait_for_selector(f".fp-archived[data-shoe='{shoe.shoe_id}'] .fp-checked")
    page.click(f".fp-archived[data-shoe='{shoe.shoe_id}'] [data-action='dismiss-check']")
    assert page.evaluate(CHECKED, shoe.shoe_id) is None
    page.keyboard.press("Escape")
    _open_panel(page)
    page.wait_for_selector(f".fp-archived[data-shoe='{shoe.shoe_id}'] [data-action='verify-shoe']")
    assert page.evaluate(CHECKED, shoe.shoe_id) is None
    assert not seated.desktop.js_errors and not seated.phone.js_errors


def test_the_page_remembers_the_commitment_it_saw_across_a_reload(
    server: Server, seated: Seated
) -> None:
    page = seated.desktop
    live = page.evaluate("() => window.baccaratApp.table.view.shoe")
    page.wait_for_function(f"() => ({RECORD})({json.dumps(live['id'])}).then((r) => r !== null)")
    record = page.evaluate(RECORD, live["id"])
    assert {k: record[k] for k in ("shoe_id", "table_id", "commitment")} == {
        "shoe_id": live["id"],
        "table_id": seated.table,
        "commitment": live["commitment"],
    }
    assert abs(record["seen_at"] / 1000 - time.time()) < 600
    page.reload()
    page.wait_for_selector(".table-screen")
    page.wait_for_function("() => window.baccaratApp.table.view?.shoe")
    # The first sighting is the one kept; the panel says when it was.
    assert page.evaluate(RECORD, live["id"]) == record
    _open_panel(page)
    noted = page.locator(".fp-current .fp-noted[data-memory='noted']")
    noted.wait_for()
    when = page.evaluate(WHEN, record["seen_at"])
    assert noted.text_content() == f"本頁已於 {when} 記下這個承諾，本靴結束時用它驗證種子"
    assert not page.js_errors


def _rewritten(shoe_id: str, table: str, seed: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """A server's archive rewritten for ``shoe_id``: another seed, the commitment made to
    match it, and rounds dealt from it (the list of the table's shoes, and the shoe)."""
    order = [str(c) for c in shuffled_cards(seed)]
    now = time.time()
    entry = {
        "shoe_id": shoe_id,
        "commitment": commitment(seed),
        "seed": seed.hex(),
        "started_at": now - 600,
        "ended_at": now,
    }
    rounds = [
        {"round_no": 1, "status": "settled", "cards": order[0:4]},
        {"round_no": 2, "status": "settled", "cards": order[4:9]},
        {"round_no": 3, "status": "settled", "cards": order[9:13]},
    ]
    listing = {"table_id": table, "shoes": [{**entry, "rounds": 3}], "next": None}
    return listing, {**entry, "table_id": table, "rounds": rounds}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_seed_that_is_not_the_one_the_page_saw_committed_is_flagged_red(
    server: Server, seated: Seated, lang: str
) -> None:
    page = seated.desktop if lang == "zh" else seated.phone
    live = page.evaluate("() => window.baccaratApp.table.view.shoe")
    page.wait_for_function(f"() => ({RECORD})({json.dumps(live['id'])}).then((r) => r !== null)")
    seen_at = page.evaluate(RECORD, live["id"])["seen_at"]
    forged = new_seed()
    listing, full = _rewritten(live["id"], seated.table, forged)
    listed = re.compile(r"/api/shoes\?table=")
    page.route(listed, lambda route: route.fulfill(json=listing))
    page.route(f"**/api/shoes/{live['id']}", lambda route: route.fulfill(json=full))
    try:
        page.keyboard.press("Escape")
        got = _check(page, live["id"])
    finally:
        page.unroute(listed)
        page.unroute(f"**/api/shoes/{live['id']}")
    when = page.evaluate(WHEN, seen_at)
    # The archive agrees with itself; the page's own memory does not, and says so in red.
    assert got["archive"] and got["ok"] == "false"
    assert (got["memory"], got["alarm"]) == ("mismatch", "true")
    assert got["said"] == (
        f"✘ 與本頁在 {when} 看到的承諾不符！這個種子不是本靴開始時承諾的那一個"
        if lang == "zh"
        else f"✘ DOES NOT MATCH the commitment this page saw at {when}! This is not the seed the "
        "shoe was committed to when it started"
    )
    assert got["colour"] == "rgb(127, 16, 16)"
    # Nothing beside it is green, and the table's 公平性 button turns red.
    assert got["archive_colour"] != "rgb(125, 255, 155)"
    page.wait_for_selector(".btn-fairness.alarm")
    assert not page.js_errors


def test_a_shoe_end_whose_seed_is_not_the_one_seen_raises_the_alarm(
    server: Server, seated: Seated
) -> None:
    page = seated.phone
    seen = commitment(new_seed())
    page.evaluate(REMEMBER, ["ended-here", seated.table, seen])
    page.keyboard.press("Escape")
    page.evaluate("() => document.getElementById('toasts').replaceChildren()")
    # The shoe's end as the table's socket brings it (shoe_ended), with another seed.
    other = new_seed()
    page.evaluate(
        "(data) => window.baccaratApp.table.screen.react('shoe_ended', data, false)",
        {"shoe_id": "ended-here", "commitment": commitment(other), "seed": other.hex()},
    )
    toast = page.locator(".toast-error")
    toast.wait_for()
    assert toast.text_content() == (
        "A revealed seed DOES NOT MATCH the commitment this page saw when its shoe started! "
        "Open Fairness to see it"
    )
    page.wait_for_selector(".btn-fairness.alarm")


def test_the_seed_is_said_to_match_what_the_page_saw_or_that_it_never_saw_the_shoe(
    server: Server, seated: Seated
) -> None:
    page = seated.desktop
    shoe = archived_shoe(server, seated.table, 4)
    page.keyboard.press("Escape")
    got = _check(page, shoe.shoe_id)
    assert (got["ok"], got["memory"], got["alarm"]) == ("true", "never", "false")
    assert got["said"] == "ⓘ 本頁在這一靴結束前沒看過它（只能比對牌靴紀錄的承諾）"
    # Had the page seen the shoe start (as a snapshot or shoe_started shows it):
    page.evaluate(REMEMBER, [shoe.shoe_id, seated.table, shoe.commitment])
    seen_at = page.evaluate(RECORD, shoe.shoe_id)["seen_at"]
    got = _check(page, shoe.shoe_id)
    assert (got["ok"], got["memory"], got["alarm"]) == ("true", "matches", "false")
    assert got["said"] == f"✔ 與本頁在 {page.evaluate(WHEN, seen_at)} 看到的承諾相符"
    # A second, different commitment shown for the same shoe is kept, and is a red flag.
    page.evaluate(REMEMBER, [shoe.shoe_id, seated.table, commitment(new_seed())])
    record = page.evaluate(RECORD, shoe.shoe_id)
    assert record["commitment"] == shoe.commitment and len(record["others"]) == 1
    got = _check(page, shoe.shoe_id)
    assert (got["ok"], got["memory"], got["alarm"], got["others"]) == (
        "false",
        "matches",
        "true",
        1,
    )
    when = page.evaluate(WHEN, record["others"][0]["seen_at"])
    assert got["said"] == f"✘ 伺服器在 {when} 又給了本頁這一靴另一個承諾！"


def test_a_browser_that_keeps_nothing_is_told_so_and_the_shoe_is_checked_all_the_same(
    server: Server, browser: Any, seated: Seated
) -> None:
    shoe = archived_shoe(server, seated.table, 4)
    page = open_page(browser, server, DESKTOP)
    try:
        # As in a private window that refuses the page a database.
        page.context.add_init_script(
            """Object.defineProperty(window, 'indexedDB', { configurable: true,
                 get() { throw new DOMException('no storage here', 'SecurityError'); } });"""
        )
        page.reload()
        log_in(page, create_account(server, "memoryless"))
        page.click(f".table-card[data-table='{seated.table}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        _open_panel(page)
        none = page.locator(".fp-current .fp-noted[data-memory='none']")
        none.wait_for()
        assert none.text_content() == (
            "這個瀏覽器不讓本頁保存資料（例如無痕模式）：本頁沒有記憶，記不住這個承諾"
        )
        got = _check(page, shoe.shoe_id)
        assert (got["ok"], got["memory"], got["alarm"]) == ("true", "no_memory", "false")
        assert got["said"] == (
            "ⓘ 這個瀏覽器不讓本頁保存資料（例如無痕模式）：本頁沒有記憶，只能比對牌靴紀錄的承諾"
        )
        assert not page.js_errors
    finally:
        page.context.close()


VERDICTS = """() => ({ ok: document.querySelector('#out').dataset.ok,
  lines: [...document.querySelectorAll('#out [data-check]')].map((p) => [p.dataset.check, p.textContent]) })"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_sites_verifier_checks_the_seed_against_what_the_table_page_saw(
    server: Server, seated: Seated, lang: str
) -> None:
    table_page = seated.desktop if lang == "zh" else seated.phone
    live = table_page.evaluate("() => window.baccaratApp.table.view.shoe")
    table_page.wait_for_function(
        f"() => ({RECORD})({json.dumps(live['id'])}).then((r) => r !== null)"
    )
    seen_at = table_page.evaluate(RECORD, live["id"])["seen_at"]
    shoe = archived_shoe(server, seated.table, 3)
    table_page.evaluate(REMEMBER, [shoe.shoe_id, seated.table, shoe.commitment])
    shoe_seen_at = table_page.evaluate(RECORD, shoe.shoe_id)["seen_at"]
    # The verifier in another tab of the same browser: it reads what the table page kept.
    page = table_page.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(f"{server.url}/verify?shoe={shoe.shoe_id}&lang={lang}")
        page.wait_for_selector("#out[data-ok]")
        when = page.evaluate(WHEN, shoe_seen_at)
        got = page.evaluate(VERDICTS)
        assert got["ok"] == "true"
        assert got["lines"][1] == [
            "memory",
            f"✔ 與這個瀏覽器的牌桌頁在 {when} 看到的承諾相符"
            if lang == "zh"
            else f"✔ Matches the commitment the table page saw in this browser at {when}",
        ]
        # The archive rewritten for the live shoe: self-consistent, and red here.
        _, full = _rewritten(live["id"], seated.table, new_seed())
        page.route(f"**/api/shoes/{live['id']}", lambda route: route.fulfill(json=full))
        page.goto(f"{server.url}/verify?shoe={live['id']}&lang={lang}")
        page.wait_for_selector("#out[data-ok]")
        when = page.evaluate(WHEN, seen_at)
        got = page.evaluate(VERDICTS)
        assert got["ok"] == "false"
        assert got["lines"][0] == [
            "memory",
            f"✘ 與這個瀏覽器的牌桌頁在 {when} 看到的承諾不符！這個種子不是本靴開始時承諾的那一個"
            if lang == "zh"
            else f"✘ DOES NOT MATCH the commitment the table page saw in this browser at {when}! "
            "This is not the seed the shoe was committed to when it started",
        ]
        # The archive agrees with itself, which is no comfort: nothing beside it is green.
        assert got["lines"][1][0] == "seed" and got["lines"][1][1].startswith("✔")
        assert page.locator("#out .verdict.ok:not(.plain)").count() == 0
        assert (
            page.evaluate(
                "() => getComputedStyle(document.querySelector('[data-check=memory]')).backgroundColor"
            )
            == "rgb(127, 16, 16)"
        )
        assert not errors
    finally:
        page.close()
