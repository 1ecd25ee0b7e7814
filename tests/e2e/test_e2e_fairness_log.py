"""A shoe's place in the commitment log, checked in Chromium by the fairness panel and /verify.

The panel fetches each shoe's inclusion proof (``/api/log/proof``) and the log's public keys,
and checks in the page the entry's leaf hash, its commitment against what the page remembered
and the archive's, the audit path to the signed head, and the head's Ed25519 signature. A
server that lies is played by Playwright's request routing: a changed audit-path node, a
changed root, a wrong signature, and a log whose entry (self-consistent, signed with the real
key) commits to another commitment than the one the page saw. The saved verifier checks a
proof from the disk.
"""

from __future__ import annotations

import base64
import json
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
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
    quiet_table,
    save_screenshot,
    sit,
)

from baccarat import merkle
from baccarat.logbook import Entry, SignedHead, head_signed
from baccarat.server.keyfile import Keys, default_path, load
from baccarat.shoe import commitment, new_seed

pytestmark = [pytest.mark.browser, needs_chromium]

PROOF = re.compile(r"/api/log/proof\?shoe=")
LISTING = re.compile(r"/api/shoes\?table=")
RED = "rgb(127, 16, 16)"

WHEN = """(ms) => new Date(ms).toLocaleString(document.documentElement.lang, {
  month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })"""

LOG_LINE = """(sel) => {
  const line = document.querySelector(sel);
  return line && { log: line.dataset.log, failures: line.dataset.failures, signature: line.dataset.signature,
    text: line.querySelector('p').textContent, cmd: line.querySelector('.cmd')?.textContent ?? null,
    background: getComputedStyle(line).backgroundColor, colour: getComputedStyle(line).color };
}"""


def _keys(server: Server) -> Keys:
    """The keys of the session's server (its keys file, beside its SQLite file)."""
    return load(default_path(server.db))


def _get(server: Server, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=10) as answer:
        return json.load(answer)


@dataclass
class Watching:
    """A table in play with a shoe: its dealer on a phone in English, its bettor on a desktop
    in zh-TW, held at the start of a betting."""

    table: str
    desktop: Any
    phone: Any


def _english(page: Any) -> None:
    page.click("[data-action='lang']")
    page.wait_for_function("() => document.documentElement.lang === 'en'")


@pytest.fixture(scope="module")
def watching(server: Server, browser: Any) -> Iterator[Watching]:
    desktop = open_page(browser, server, DESKTOP)
    phone = open_page(browser, server, PHONE, phone=True)
    table = ""
    try:
        log_in(desktop, create_account(server, "logbettor"))
        log_in(phone, create_account(server, "logdealer"))
        table = quiet_table(desktop)
        sit(phone, table, 0)
        sit(desktop, table, 1)
        _english(phone)
        held_at_next_betting(server, table)
        for page in (desktop, phone):
            page.wait_for_function("() => window.baccaratApp.table.view?.shoe?.commitment")
        yield Watching(table, desktop, phone)
    finally:
        leave_empty(desktop, phone)
        if table:
            hold(server, table, None)
        desktop.context.close()
        phone.context.close()


def _watch(browser: Any, server: Server, table: str, name: str, *, en: bool = False) -> Any:
    """Another page, watching the table (a phone in English, or a desktop in zh-TW)."""
    page = open_page(browser, server, PHONE if en else DESKTOP, phone=en)
    log_in(page, create_account(server, name))
    page.click(f".table-card[data-table='{table}'] .btn-watch")
    page.wait_for_selector(".table-screen")
    page.wait_for_function("() => window.baccaratApp.table.view?.shoe?.commitment")
    if en:
        _english(page)
    return page


def _reopen(page: Any) -> None:
    """Close the panel if open and open it again: each opening asks the log afresh."""
    if page.locator(".fair-panel:not([hidden])").count():
        page.keyboard.press("Escape")
    page.click("[data-action='fairness']")
    page.wait_for_selector(".fair-panel:not([hidden])")


def _line(page: Any, where: str) -> dict[str, Any]:
    """The log line once its check is done (``where``: the current shoe's part, or a row)."""
    sel = f"{where} .fp-log:not([data-log='checking'])"
    page.wait_for_selector(sel)
    return dict(page.evaluate(LOG_LINE, sel))


CURRENT = ".fp-current"


def _row(shoe_id: str) -> str:
    return f".fp-archived[data-shoe='{shoe_id}']"


def _recording(seen: list[dict[str, Any]]) -> Callable[[Any], None]:
    """A route handler that lets the proof through and keeps what the page was given."""

    def handle(route: Any) -> None:
        answer = route.fetch()
        seen.append(answer.json())
        route.fulfill(response=answer)

    return handle


def _changed(change: Callable[[dict[str, Any]], None]) -> Callable[[Any], None]:
    """A route handler: the server's real proof, changed by ``change``."""

    def handle(route: Any) -> None:
        answer = route.fetch()
        proof = answer.json()
        change(proof)
        route.fulfill(response=answer, json=proof)

    return handle


def _flip(hex_text: str) -> str:
    """The hex with its first digit changed."""
    return ("1" if hex_text[0] != "1" else "2") + hex_text[1:]


def _sentence(lang: str, proof: dict[str, Any], when: str) -> str:
    n, m = proof["index"], proof["head"]["tree_size"]
    if lang == "zh":
        return f"✔ 記錄於承諾日誌第 {n} 筆，已驗證（日誌共 {m} 筆，簽署於 {when}）"
    return (
        f"✔ In the commitment log as entry {n}, verified (the log holds {m} entries, "
        f"signed at {when})"
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_real_shoes_place_in_the_log_is_verified_in_the_page(
    server: Server, watching: Watching, lang: str
) -> None:
    page = watching.desktop if lang == "zh" else watching.phone
    keys = _keys(server)
    logged = archived_shoe(server, watching.table, 3, signer=keys.signer)
    older = archived_shoe(server, watching.table, 2)  # (no signer: dealt before the log existed)
    given: list[dict[str, Any]] = []
    page.route(PROOF, _recording(given))
    try:
        _reopen(page)
        current = _line(page, CURRENT)
        row = _line(page, _row(logged.shoe_id))
        before = _line(page, _row(older.shoe_id))
    finally:
        page.unroute_all(behavior="wait")
    live = page.evaluate("() => window.baccaratApp.table.view.shoe")
    proofs = {p["entry"]["shoe_id"]: p for p in given}
    # What the page was given is a real proof: Python's own checks agree with the page's.
    for shoe_id, got in ((live["id"], current), (logged.shoe_id, row)):
        proof = proofs[shoe_id]
        head = SignedHead.from_json(proof["head"])
        entry = Entry(**{k: proof["entry"][k] for k in Entry.__slots__})
        assert merkle.leaf_hash(entry.leaf()).hex() == proof["entry"]["leaf_hash"]
        assert merkle.verify_inclusion(
            proof["index"],
            head.tree_size,
            merkle.leaf_hash(entry.leaf()),
            [bytes.fromhex(p) for p in proof["audit_path"]],
            bytes.fromhex(head.root_hash),
        )
        assert head_signed(head, keys.log_public_keys)
        when = page.evaluate(WHEN, head.timestamp)
        assert (got["log"], got["failures"], got["signature"]) == ("verified", "", "ok")
        assert got["text"] == _sentence(lang, proof, when)
        assert got["colour"] == "rgb(125, 255, 155)"
    assert proofs[live["id"]]["entry"]["commitment"] == live["commitment"]
    assert proofs[logged.shoe_id]["entry"]["commitment"] == logged.commitment
    assert before["log"] == "before_log" and older.shoe_id not in proofs
    assert before["text"] == (
        "ⓘ 這一靴在承諾日誌啟用前發出，不在日誌中"
        if lang == "zh"
        else "ⓘ This shoe was dealt before the commitment log existed: it is not in the log"
    )
    assert page.locator(".btn-fairness.alarm").count() == 0
    assert not page.js_errors


def test_an_ended_shoe_without_its_seed_says_why(server: Server, watching: Watching) -> None:
    from baccarat.store import open_store

    reasons = ("key_missing", "seal_broken", "unsealed")
    ids = {reason: f"unrevealed-{reason}-{new_seed().hex()[:8]}" for reason in reasons}
    store = open_store(server.db)
    try:
        for reason, shoe_id in ids.items():
            store.record_shoe_start(shoe_id, watching.table, commitment(new_seed()))
            store.end_shoe_unrevealed(shoe_id, reason)
    finally:
        store.close()
    said = {
        "zh": {
            "key_missing": "已結束，種子未公開：種子以所有伺服器都已沒有的金鑰封存，永遠無法公開",
            "seal_broken": "已結束，種子未公開：封存的種子遭到竄改，打不開，無法公開",
            "unsealed": "已結束，種子未公開：這一靴開始於種子封存之前，種子在伺服器重新啟動時遺失",
        },
        "en": {
            "key_missing": "Ended, seed not revealed: its seed was sealed with a key no server "
            "holds: it can never be revealed",
            "seal_broken": "Ended, seed not revealed: its sealed seed was altered and does not "
            "open: it cannot be revealed",
            "unsealed": "Ended, seed not revealed: begun before seeds were kept sealed: its seed "
            "was lost in a restart",
        },
    }
    for lang, page in (("zh", watching.desktop), ("en", watching.phone)):
        _reopen(page)
        for reason, shoe_id in ids.items():
            ended = page.locator(f"{_row(shoe_id)} .fp-ended[data-reason='{reason}']")
            ended.wait_for()
            assert ended.text_content() == said[lang][reason]
            # (neither in play nor to be checked: no verify button, no "in play")
            assert page.locator(f"{_row(shoe_id)} [data-action='verify-shoe']").count() == 0
            assert _line(page, _row(shoe_id))["log"] == "before_log"
        assert not page.js_errors


def _forged_log(server: Server, table: str, shoe_id: str, forged: str) -> dict[str, Any]:
    """A log of one entry that commits ``shoe_id`` to ``forged``, whole and signed with the
    server's own key: it fails only against what the page remembered (and the archive)."""
    keys = _keys(server)
    entry = Entry(0, shoe_id, table, forged, 1_700_000_000_000)
    leaf = merkle.leaf_hash(entry.leaf())
    head = keys.signer.sign(1, 1_700_000_000_000, merkle.root([leaf]).hex())
    return {
        "entry": {
            "index": 0,
            "shoe_id": shoe_id,
            "table_id": table,
            "commitment": forged,
            "logged_at": entry.logged_at,
            "leaf_hash": leaf.hex(),
            "seed": None,
        },
        "index": 0,
        "tree_size": 1,
        "audit_path": [],
        "head": head.json(),
    }


def _resigned(server: Server) -> Callable[[dict[str, Any]], None]:
    """A change: the head signed with the server's key, but over another time."""
    keys = _keys(server)

    def change(proof: dict[str, Any]) -> None:
        head = proof["head"]
        other = keys.signer.sign(head["tree_size"], head["timestamp"] + 1, head["root_hash"])
        head["signature"] = other.signature

    return change


def _path_changed(proof: dict[str, Any]) -> None:
    """A node of the audit path changed (a node added, for a log of one entry)."""
    path = proof["audit_path"]
    if path:
        path[0] = _flip(path[0])
    else:
        path.append("00" * 32)


def _root_changed(proof: dict[str, Any]) -> None:
    proof["head"]["root_hash"] = _flip(proof["head"]["root_hash"])


FAILED = {
    "path": "稽核路徑無法從第 {n} 筆導出簽署的日誌根",
    "signature": "日誌根的簽章與公開的金鑰 {key} 不符",
}


@pytest.mark.parametrize("case", ["path", "root", "signature"])
def test_a_proof_or_head_that_was_changed_is_reported_red(
    server: Server, browser: Any, watching: Watching, case: str
) -> None:
    page = _watch(browser, server, watching.table, f"logtamper{case}")
    try:
        change = {"path": _path_changed, "root": _root_changed, "signature": _resigned(server)}
        page.route(PROOF, _changed(change[case]))
        try:
            _reopen(page)
            got = _line(page, CURRENT)
        finally:
            page.unroute_all(behavior="wait")
        live = page.evaluate("() => window.baccaratApp.table.view.shoe")
        proof = _get(server, f"/api/log/proof?shoe={live['id']}")
        failed = {"path": ["path"], "root": ["path", "signature"], "signature": ["signature"]}
        words = [
            FAILED[f].format(n=proof["index"], key=proof["head"]["key_id"]) for f in failed[case]
        ]
        assert (got["log"], got["failures"]) == ("failed", " ".join(failed[case]))
        assert got["text"] == f"✘ 承諾日誌驗證失敗：{'；'.join(words)}！"
        assert got["background"] == RED
        page.wait_for_selector(".btn-fairness.alarm")
        # The same panel, opened again with the server's true answer, is green again.
        _reopen(page)
        assert _line(page, CURRENT)["log"] == "verified"
        assert not page.js_errors
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_logged_commitment_that_is_not_the_one_the_page_saw_is_reported_red(
    server: Server, browser: Any, watching: Watching, lang: str
) -> None:
    en = lang == "en"
    page = _watch(browser, server, watching.table, f"logforged{lang}", en=en)
    try:
        live = page.evaluate("() => window.baccaratApp.table.view.shoe")
        forged = commitment(new_seed())
        log = _forged_log(server, watching.table, live["id"], forged)

        def listing(route: Any) -> None:
            # The archive rewritten to agree with the forged log: only the page's memory differs.
            answer = route.fetch()
            data = answer.json()
            shoes = [shoe for shoe in data["shoes"] if shoe["shoe_id"] != live["id"]]
            ours = {"shoe_id": live["id"], "seed": None, "started_at": time.time() - 60}
            ours |= {"ended_at": None, "end_reason": None, "rounds": 0}
            data["shoes"] = [{**ours, "commitment": forged, "log_index": 0}, *shoes[:4]]
            route.fulfill(response=answer, json=data)

        page.route(PROOF, lambda route: route.fulfill(json=log))
        page.route(LISTING, listing)
        try:
            _reopen(page)
            current = _line(page, CURRENT)
            row = _line(page, _row(live["id"]))
        finally:
            page.unroute_all(behavior="wait")
        record = page.evaluate(
            "(id) => import('/js/seen.js').then((m) => m.recall(id))", live["id"]
        )
        when = page.evaluate(WHEN, record["seen_at"])
        assert record["commitment"] == live["commitment"] != forged
        # The log's entry is whole and signed: only the commitment is not the one seen.
        assert (row["log"], row["failures"], row["signature"]) == ("failed", "memory", "ok")
        assert row["text"] == (
            f"✘ 承諾日誌驗證失敗：第 0 筆記錄的承諾不是本頁在 {when} 看到的那一個！"
            if not en
            else "✘ Commitment log check FAILED: entry 0 logs another commitment than the one "
            f"this page saw at {when}!"
        )
        assert row["background"] == RED
        # The current shoe's line compares it with the commitment the table showed too.
        assert (current["log"], current["failures"]) == ("failed", "memory archive")
        page.wait_for_selector(".btn-fairness.alarm")
        assert not page.js_errors
    finally:
        page.context.close()


NO_ED25519 = """(() => {
  // A browser whose WebCrypto has no Ed25519 (as older ones): importing the key is refused.
  const subtle = crypto.subtle, importKey = subtle.importKey.bind(subtle);
  subtle.importKey = (format, key, algorithm, ...rest) =>
    (algorithm?.name ?? algorithm) === 'Ed25519'
      ? Promise.reject(new DOMException('Unrecognized name.', 'NotSupportedError'))
      : importKey(format, key, algorithm, ...rest);
})();"""


def test_a_browser_without_ed25519_says_so_and_gives_the_command(
    server: Server, browser: Any, watching: Watching
) -> None:
    page = open_page(browser, server, PHONE, phone=True)
    try:
        page.context.add_init_script(NO_ED25519)
        page.reload()
        log_in(page, create_account(server, "logold"))
        page.click(f".table-card[data-table='{watching.table}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        page.wait_for_function("() => window.baccaratApp.table.view?.shoe?.commitment")
        _reopen(page)
        got = _line(page, CURRENT)
        live = page.evaluate("() => window.baccaratApp.table.view.shoe")
        proof = _get(server, f"/api/log/proof?shoe={live['id']}")
        # Not a failure: the path was checked, the signature left to the command line.
        assert (got["log"], got["signature"], got["failures"]) == ("verified", "unsupported", "")
        assert got["text"].startswith(
            f"✔ 記錄於承諾日誌第 {proof['index']} 筆，雜湊路徑已驗證（日誌共 "
        )
        assert got["text"].endswith("筆）；這個瀏覽器無法檢查日誌的 Ed25519 簽章，請以命令列檢查：")
        assert got["cmd"] == f"baccarat verify-log --url {server.url}"
        assert page.locator(".btn-fairness.alarm").count() == 0
        save_screenshot(page, "fairness-log-no-ed25519-phone-zh")
        assert not page.js_errors
    finally:
        page.context.close()


def _screens(page: Any, name: str) -> None:
    _reopen(page)
    _line(page, CURRENT)
    page.locator(f"{CURRENT} .fp-log").scroll_into_view_if_needed()
    save_screenshot(page, name)


def test_pictures_of_the_panel_with_the_log_line(server: Server, watching: Watching) -> None:
    for page, size, first in ((watching.desktop, "desktop", "zh"), (watching.phone, "phone", "en")):
        _screens(page, f"fairness-log-{size}-{first}")
        page.keyboard.press("Escape")
        page.click("[data-action='lang']")
        second = "en" if first == "zh" else "zh"
        page.wait_for_function(
            "(l) => document.documentElement.lang === l", arg="en" if second == "en" else "zh-Hant"
        )
        _screens(page, f"fairness-log-{size}-{second}")
        # A failure, as a player would see it.
        page.route(PROOF, _changed(_path_changed))
        try:
            _screens(page, f"fairness-log-{size}-{second}-failed")
        finally:
            page.unroute_all(behavior="wait")
        assert (
            page.evaluate("(s) => document.querySelector(s).dataset.log", f"{CURRENT} .fp-log")
            == "failed"
        )
        # (each page back in its language)
        page.keyboard.press("Escape")
        page.click("[data-action='lang']")
        page.wait_for_function(
            "(l) => document.documentElement.lang === l", arg="en" if first == "en" else "zh-Hant"
        )


VERDICTS = """() => ({ ok: document.querySelector('#out').dataset.ok,
  lines: Object.fromEntries([...document.querySelectorAll('#out [data-check]')].map(
    (p) => [p.dataset.check, [p.className, p.textContent]])) })"""


def _verify(page: Any, fields: dict[str, str]) -> dict[str, Any]:
    for name, value in fields.items():
        page.fill(f"#{name}", value)
    page.evaluate("() => { delete document.querySelector('#out').dataset.ok; }")
    page.click("#check")
    page.wait_for_selector("#out[data-ok]")
    return dict(page.evaluate(VERDICTS))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_saved_verifier_checks_a_log_proof_offline(
    server: Server, browser: Any, watching: Watching, tmp_path: Path, lang: str
) -> None:
    keys = _keys(server)
    shoe = archived_shoe(server, watching.table, 2, signer=keys.signer)
    proof = _get(server, f"/api/log/proof?shoe={shoe.shoe_id}")
    published = _get(server, "/.well-known/baccarat-log-key")
    with urllib.request.urlopen(server.url + "/verify") as answer:
        saved = tmp_path / "verify.html"
        saved.write_bytes(answer.read())
    en = lang == "en"
    page = open_page(browser, server, PHONE if en else DESKTOP, phone=en)
    requests: list[str] = []
    try:
        page.goto(saved.as_uri() + ("?lang=en" if en else ""))
        page.on("request", lambda r: requests.append(r.url))
        fields = {
            "seed": shoe.seed.hex(),
            "commitment": shoe.commitment,
            "rounds": "",
            "proof": json.dumps(proof),
            "logkey": json.dumps(published),
        }
        got = _verify(page, fields)
        when = page.evaluate(WHEN, proof["head"]["timestamp"])
        n, m = proof["index"], proof["tree_size"]
        assert got["ok"] == "true"
        assert got["lines"]["log"] == ["verdict ok", _sentence(lang, proof, when)]
        for check in ("log-leaf", "log-commitment", "log-path", "log-signature"):
            assert got["lines"][check][0] == "verdict ok", check
        # The key alone, in base64, is enough.
        alone = base64.b64encode(keys.signer.public_key).decode()
        assert _verify(page, {"logkey": alone})["lines"]["log"][0] == "verdict ok"
        page.evaluate(
            "() => { document.querySelector('[data-check=seed]').scrollIntoView(); scrollBy(0, -16); }"
        )
        save_screenshot(page, f"verify-log-{'phone-en' if en else 'desktop-zh'}")
        # A node of the audit path changed: the path fails, and the page says so in red.
        tampered = json.loads(json.dumps(proof))
        _path_changed(tampered)
        got = _verify(page, {"proof": json.dumps(tampered)})
        assert got["ok"] == "false"
        assert got["lines"]["log"] == [
            "verdict bad",
            "✘ 承諾日誌驗證失敗！" if not en else "✘ Commitment log check FAILED!",
        ]
        assert got["lines"]["log-path"] == [
            "verdict bad",
            f"✘ 稽核路徑無法從第 {n} 筆導出簽署的日誌根！"
            if not en
            else f"✘ The audit path does not lead from entry {n} to the signed root!",
        ]
        assert got["lines"]["log-leaf"][0] == "verdict ok"
        # An entry whose commitment was changed: its leaf no longer hashes, nor is it the one above.
        changed = json.loads(json.dumps(proof))
        changed["entry"]["commitment"] = commitment(new_seed())
        got = _verify(page, {"proof": json.dumps(changed)})
        assert got["ok"] == "false"
        assert [got["lines"][c][0] for c in ("log-leaf", "log-commitment", "log-path")] == [
            "verdict bad"
        ] * 3
        # A signature by another key than the published one.
        other = Keys(keys.seal, (new_seed(),)).signer
        head = proof["head"]
        resigned = json.loads(json.dumps(proof))
        resigned["head"]["signature"] = other.sign(
            head["tree_size"], head["timestamp"], head["root_hash"]
        ).signature
        got = _verify(page, {"proof": json.dumps(resigned)})
        assert got["ok"] == "false" and got["lines"]["log-signature"][0] == "verdict bad"
        assert got["lines"]["log-path"][0] == "verdict ok"
        # No key given: the rest is checked, the signature left to the command line.
        got = _verify(page, {"proof": json.dumps(proof), "logkey": ""})
        assert got["ok"] == "true"
        assert got["lines"]["log-signature"][0] == "verdict muted"
        assert got["lines"]["log"][1] == (
            f"✔ 記錄於承諾日誌第 {n} 筆，雜湊路徑已驗證（日誌共 {m} 筆）；簽章未檢查："
            if not en
            else f"✔ In the commitment log as entry {n}, its audit path verified (the log holds "
            f"{m} entries); the signature was not checked:"
        )
        assert not [url for url in requests if url.startswith("http")], requests
        assert not page.js_errors
    finally:
        page.context.close()


def test_the_sites_verifier_fetches_the_proof_itself(
    server: Server, browser: Any, watching: Watching
) -> None:
    keys = _keys(server)
    shoe = archived_shoe(server, watching.table, 2, signer=keys.signer)
    older = archived_shoe(server, watching.table, 2)
    page = open_page(browser, server, DESKTOP)
    try:
        page.goto(f"{server.url}/verify?shoe={shoe.shoe_id}&lang=en")
        page.wait_for_selector("#out[data-ok]")
        got = page.evaluate(VERDICTS)
        assert got["ok"] == "true"
        assert got["lines"]["log"][1].startswith(
            f"✔ In the commitment log as entry {json.loads(page.input_value('#proof'))['index']}, verified"
        )
        # A shoe dealt before the log: nothing to check there, and nothing said to fail.
        page.goto(f"{server.url}/verify?shoe={older.shoe_id}&lang=en")
        page.wait_for_selector("#out[data-ok]")
        got = page.evaluate(VERDICTS)
        assert got["ok"] == "true" and "log" not in got["lines"]
        assert page.input_value("#proof") == ""
        assert not page.js_errors
    finally:
        page.context.close()


REMEMBER = (
    """([id, table, commit]) => import('/js/seen.js').then((m) => m.remember(id, table, commit))"""
)


def _my_round(shoe_id: str, table: str, seed: bytes) -> dict[str, Any]:
    """A round of My bets (GET /api/my/rounds) in an ended shoe revealed with ``seed``."""
    return {
        "round_id": f"{shoe_id}-1",
        "table_id": table,
        "shoe_id": shoe_id,
        "round_no": 1,
        "role": "bettor",
        "time": time.time() - 60,
        "status": "settled",
        "outcome": {
            "player": {"cards": ["9H", "3C"], "points": 2},
            "banker": {"cards": ["KD", "7S"], "points": 7},
        },
        "winner": "banker",
        "bets": {"banker": 1000},
        "stake": 1000,
        "net": 950,
        "commission": 50,
        "shoe": {
            "commitment": commitment(seed),
            "seed": seed.hex(),
            "verify": f"baccarat verify-shoe --seed {seed.hex()} --commitment {commitment(seed)}",
        },
    }


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_my_bets_checks_a_seed_against_the_commitment_the_page_saw(
    server: Server, browser: Any, watching: Watching, lang: str
) -> None:
    en = lang == "en"
    page = open_page(browser, server, PHONE if en else DESKTOP, phone=en)
    try:
        log_in(page, create_account(server, f"loghistory{lang}"))
        if en:
            _english(page)
        seen, other = new_seed(), new_seed()
        faithful, rewritten = f"hist-ok-{lang}", f"hist-bad-{lang}"
        page.evaluate(REMEMBER, [faithful, watching.table, commitment(seen)])
        page.evaluate(REMEMBER, [rewritten, watching.table, commitment(seen)])
        # The archive of the second shoe rewritten: another seed, its commitment to match.
        rounds = [
            _my_round(rewritten, watching.table, other),
            _my_round(faithful, watching.table, seen),
        ]
        page.route(
            re.compile(r"/api/my/rounds"),
            lambda r: r.fulfill(json={"rounds": rounds, "next": None}),
        )
        page.click("[data-action='history']")
        page.wait_for_selector(".history-screen .hist-round .btn-verify")
        records = {
            shoe: page.evaluate("(id) => import('/js/seen.js').then((m) => m.recall(id))", shoe)
            for shoe in (faithful, rewritten)
        }
        got = []
        for shoe in (faithful, rewritten):
            row = page.locator(f".hist-round[data-round='{shoe}-1']")
            row.locator(".btn-verify").click()
            row.locator(".hr-memory .fp-memory").wait_for()
            got.append(
                row.evaluate(
                    """(row) => { const memory = row.querySelector('.fp-memory');
                      return { result: row.querySelector('.verify-result').className,
                        said: memory.querySelector('p').textContent, verdict: memory.dataset.memory,
                        background: getComputedStyle(memory).backgroundColor }; }"""
                )
            )
        ok, bad = got
        when = {s: page.evaluate(WHEN, records[s]["seen_at"]) for s in (faithful, rewritten)}
        assert (ok["result"], ok["verdict"]) == ("verify-result ok", "matches")
        assert ok["said"] == (
            f"✔ 與本頁在 {when[faithful]} 看到的承諾相符"
            if not en
            else f"✔ Matches the commitment this page saw at {when[faithful]}"
        )
        # The archive agrees with itself, but not with what the page saw: red, nothing green.
        assert (bad["result"], bad["verdict"]) == ("verify-result plain", "mismatch")
        assert bad["said"].startswith(
            f"✘ 與本頁在 {when[rewritten]} 看到的承諾不符！"
            if not en
            else f"✘ DOES NOT MATCH the commitment this page saw at {when[rewritten]}!"
        )
        assert bad["background"] == RED
        save_screenshot(page, f"history-memory-{'phone-en' if en else 'desktop-zh'}")
        assert not page.js_errors
    finally:
        page.context.close()
