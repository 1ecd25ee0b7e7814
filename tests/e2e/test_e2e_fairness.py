"""A player checks a shoe alone, in Chromium: the whole order rebuilt from its seed in the page.

``web/js/fair.js`` implements ``docs/fairness.md`` with WebCrypto; its order must be
:mod:`baccarat.shoe`'s, card for card, for any seed. The stand-alone verifier (``/verify``)
works saved to a file and opened from the disk, and flags a card that is not where the seed
puts it. The panel counts the witnesses whose cosignatures hold on the log's checkpoint, keeps
the newest it saw, and shows a split view and a log rolled back in red; the table checks the
newest one as the player comes to it, the panel closed. ``/verify`` counts the witnesses of
the checkpoint beside a shoe's proof, and flags a forged cosignature and a split view.
"""

from __future__ import annotations

import json
import random
import secrets
import time
import urllib.request
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from archive_support import archived_shoe
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from e2e_support import (
    DESKTOP,
    PHONE,
    Server,
    create_account,
    log_in,
    needs_chromium,
    open_page,
    save_screenshot,
)

from baccarat import checkpoint, merkle
from baccarat.server.keyfile import Keys, default_path, load
from baccarat.shoe import commitment, new_seed, shuffled_cards

pytestmark = [pytest.mark.browser, needs_chromium]

ORDER = """async (seeds) => {
  const { shoeOrder } = await import('/js/fair.js');
  const out = [];
  for (const seed of seeds) out.push(await shoeOrder(seed));
  return out;
}"""

CHECK = """async ([order, rounds]) => {
  const { checkRounds } = await import('/js/fair.js');
  return checkRounds(order, rounds);
}"""


def _rounds(order: list[str], n: int, rng: random.Random) -> list[dict[str, Any]]:
    """``n`` rounds dealt from the top of ``order``, 4 to 6 cards each, as the archive lists."""
    rounds, at = [], 0
    for no in range(1, n + 1):
        size = rng.choice((4, 4, 5, 6))
        rounds.append({"round_no": no, "cards": order[at : at + size]})
        at += size
    return rounds


def test_the_page_rebuilds_every_card_of_a_shoe_as_the_engine_does(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    try:
        rng = random.Random(20261203)
        seeds = [bytes(32), bytes(range(32)), b"\xff" * 32]
        seeds += [rng.randbytes(32) for _ in range(25)]
        got = page.evaluate(ORDER, [s.hex() for s in seeds])
        for seed, order in zip(seeds, got, strict=True):
            assert order == [str(c) for c in shuffled_cards(seed)], seed.hex()
        assert len(got[0]) == 416 and len(set(got[1])) == 52
    finally:
        page.context.close()


def test_each_round_is_checked_at_its_place_and_a_tampered_card_is_flagged(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    try:
        order = [str(c) for c in shuffled_cards(new_seed())]
        rounds = _rounds(order, 20, random.Random(7))
        good = page.evaluate(CHECK, [order, rounds])
        assert good["ok"] and good["dealt"] == sum(len(r["cards"]) for r in rounds)
        positions = [c["position"] for r in good["rounds"] for c in r["cards"]]
        assert positions == list(range(good["dealt"]))
        # Round 5 voided after its 5 cards were drawn (no cards kept), round 6 voided before
        # its deal: the rounds after them are found where they were dealt.
        voided = json.loads(json.dumps(rounds))
        taken = len(voided[4]["cards"])
        voided[4] = {"round_no": 5, "status": "voided", "cards": None}
        voided.insert(5, {"round_no": 5.5, "status": "voided", "cards": None})
        gap = page.evaluate(CHECK, [order, voided])
        assert gap["ok"] and gap["dealt"] == good["dealt"]
        after = next(r for r in gap["rounds"] if r["round_no"] == 6)
        start = good["rounds"][4]["cards"][0]["position"]
        assert after["skipped"] == list(range(start, start + taken))
        # One card of round 9 changed: that round, and only that one, fails.
        tampered = json.loads(json.dumps(rounds))
        card = tampered[8]["cards"][1]
        tampered[8]["cards"][1] = next(c for c in ("AS", "KD", "7C") if c != card)
        bad = page.evaluate(CHECK, [order, tampered])
        assert not bad["ok"]
        assert [r["round_no"] for r in bad["rounds"] if not r["ok"]] == [9]
        wrong = [c for c in bad["rounds"][8]["cards"] if not c["ok"]]
        assert [(c["position"], c["expected"]) for c in wrong] == [
            (good["rounds"][8]["cards"][1]["position"], card)
        ]
    finally:
        page.context.close()


def _starts(rounds: list[dict[str, Any]]) -> list[int]:
    """Where each of ``rounds`` (dealt one after another from the top) starts, from 0."""
    return list(accumulate([len(r["cards"]) for r in rounds], initial=0))[:-1]


def test_a_round_that_names_its_first_card_is_checked_there_and_nowhere_else(
    server: Server, browser: Any
) -> None:
    page = open_page(browser, server, DESKTOP)
    try:
        order = [str(c) for c in shuffled_cards(new_seed())]
        rounds = _rounds(order, 12, random.Random(5))
        starts = _starts(rounds)
        # Round 4 voided after its cards were drawn: the archive keeps none of them, and
        # round 5 says where it starts.
        placed = [{**r, "first_card": at} for r, at in zip(rounds, starts, strict=True)]
        placed[3] = {"round_no": 4, "status": "voided", "cards": None, "first_card": None}
        got = page.evaluate(CHECK, [order, placed])
        assert got["ok"]
        assert got["skips"] == [
            {"from": starts[3], "to": starts[4] - 1, "round_no": 5, "voided": [4], "ok": True}
        ]
        assert [c["position"] for r in got["rounds"] for c in r["cards"]] == [
            p for r, at in zip(rounds, starts, strict=True) if r["round_no"] != 4
            for p in range(at, at + len(r["cards"]))
        ]  # fmt: skip
        # Where the search would have placed it elsewhere, the round goes where it says: a
        # shoe of one card repeated fits a round anywhere.
        same = ["AS"] * 416
        alike = [
            {"round_no": 1, "cards": ["AS"] * 4, "first_card": 0},
            {"round_no": 2, "status": "voided", "cards": None},
            {"round_no": 3, "cards": ["AS"] * 5, "first_card": 9},
        ]
        got = page.evaluate(CHECK, [same, alike])
        assert got["ok"] and got["skips"][0]["from"] == 4 and got["skips"][0]["to"] == 8
        assert [c["position"] for c in got["rounds"][2]["cards"]] == [9, 10, 11, 12, 13]
        searched = page.evaluate(CHECK, [same, [{**r, "first_card": None} for r in alike]])
        assert searched["ok"] and searched["skips"] == []
        # A first card one place off: the round fails, saying where its cards are.
        wrong = json.loads(json.dumps(placed))
        wrong[7]["first_card"] += 1
        got = page.evaluate(CHECK, [order, wrong])
        assert not got["ok"] and [r["round_no"] for r in got["rounds"] if not r["ok"]] == [8]
        assert got["rounds"][7]["problem"] == {
            "code": "misplaced",
            "at": starts[7] + 1,
            "found": starts[7],
        }
        # A first card inside the round before it: both cannot have been dealt there.
        wrong = json.loads(json.dumps(placed[:10]))
        wrong[9]["first_card"] -= 1
        wrong[9]["cards"] = order[starts[9] - 1 : starts[9] - 1 + len(rounds[9]["cards"])]
        got = page.evaluate(CHECK, [order, wrong])
        assert [r["round_no"] for r in got["rounds"] if not r["ok"]] == [10]
        assert got["rounds"][9]["problem"]["code"] == "overlap"
        # Two cards passed over with no round voided before them: a failed check too.
        passed = json.loads(json.dumps(placed[:10]))
        passed[9]["first_card"] += 2
        passed[9]["cards"] = order[starts[9] + 2 : starts[9] + 2 + len(rounds[9]["cards"])]
        got = page.evaluate(CHECK, [order, passed])
        assert not got["ok"] and got["rounds"][9]["problem"] is None
        assert got["skips"][1:] == [
            {"from": starts[9], "to": starts[9] + 1, "round_no": 10, "voided": [], "ok": False}
        ]
        # Rounds recorded before first_card existed (null, or no key) are searched for.
        older = [{**r, "first_card": None} if r["round_no"] % 2 else r for r in placed]
        older[5].pop("first_card")
        got = page.evaluate(CHECK, [order, older])
        assert got["ok"] and got["skips"][0]["round_no"] == 5
    finally:
        page.context.close()


def _fill(page: Any, seed: str, commit: str, rounds: list[dict[str, Any]]) -> dict[str, Any]:
    page.fill("#seed", seed)
    page.fill("#commitment", commit)
    page.fill("#rounds", json.dumps(rounds))
    page.click("#check")
    page.wait_for_selector("#out[data-ok]")
    return dict(
        page.evaluate(
            """() => ({ ok: document.querySelector('#out').dataset.ok,
                       seed: document.querySelector('[data-check=seed]')?.className ?? '',
                       rounds: document.querySelector('[data-check=rounds]')?.className ?? '',
                       sentence: document.querySelector('[data-check=rounds]')?.textContent ?? '',
                       bad: [...document.querySelectorAll('tr.bad')].map((r) => r.dataset.round),
                       notes: [...document.querySelectorAll('tr .note')].map(
                         (n) => [n.closest('tr').dataset.round, n.textContent]),
                       skipped: document.querySelectorAll('.order .card.skipped').length,
                       cards: Number(document.querySelector('.order')?.dataset.cards ?? 0) })"""
        )
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_verifier_saved_to_a_file_checks_a_shoe_without_the_server(
    server: Server, browser: Any, tmp_path: Path, lang: str
) -> None:
    with urllib.request.urlopen(server.url + "/verify") as answer:
        saved = tmp_path / "verify.html"
        saved.write_bytes(answer.read())
    seed = new_seed()
    order = [str(c) for c in shuffled_cards(seed)]
    rounds = _rounds(order, 30, random.Random(11))
    # Round 13 voided after its cards were drawn (a server stopped mid-squeeze): none kept.
    starts = _starts(rounds)
    rounds[12] = {"round_no": 13, "status": "voided", "cards": None}
    at = f"{starts[12] + 1}–{starts[13]}"
    skipped = (
        f"第 {at} 張未發出（第 13 局作廢）"
        if lang == "zh"
        else f"positions {at} skipped (round 13 was voided)"
    )
    page = open_page(browser, server, PHONE if lang == "en" else DESKTOP, phone=lang == "en")
    try:
        page.goto(saved.as_uri() + ("?lang=en" if lang == "en" else ""))
        seen = _fill(page, seed.hex(), commitment(seed), rounds)
        assert seen["sentence"].endswith(skipped), seen["sentence"]
        assert seen == {
            "ok": "true",
            "seed": "verdict ok",
            "rounds": "verdict ok",
            "sentence": seen["sentence"],
            "bad": [],
            "notes": [["14", skipped]],
            "skipped": starts[13] - starts[12],
            "cards": 416,
        }
        # (the verdicts at the top of the picture, the skipped positions' round below them)
        page.evaluate(
            "() => { document.querySelector('[data-check=seed]').scrollIntoView(); scrollBy(0, -16); }"
        )
        save_screenshot(page, f"verify-{'phone-en' if lang == 'en' else 'desktop-zh'}")
        # Each round where the archive says it starts: round 20 said one place off fails.
        placed = [{**r, "first_card": a} for r, a in zip(rounds, starts, strict=True)]
        placed[19]["first_card"] += 1
        seen = _fill(page, seed.hex(), commitment(seed), placed)
        assert (seen["ok"], seen["bad"]) == ("false", ["20"])
        problem = (
            f"紀錄說第 20 局從第 {starts[19] + 2} 張開始，但它的牌從第 {starts[19] + 1} 張起才相符！"
            if lang == "zh"
            else f"The archive starts round 20 at position {starts[19] + 2}, but its cards match "
            f"from position {starts[19] + 1}!"
        )
        assert seen["notes"] == [["14", skipped], ["20", problem]]
        # A card swapped in round 12, and a seed that is not the committed one.
        rounds[11]["cards"][0] = "QS" if rounds[11]["cards"][0] != "QS" else "QH"
        seen = _fill(page, seed.hex(), commitment(seed), rounds)
        assert (seen["ok"], seen["rounds"], seen["bad"]) == ("false", "verdict bad", ["12"])
        seen = _fill(page, new_seed().hex(), commitment(seed), rounds[:1])
        assert (seen["ok"], seen["seed"]) == ("false", "verdict bad")
        assert not page.js_errors
    finally:
        page.context.close()


def _tamper(server: Server, round_id: str, cards: list[str]) -> None:
    import sqlalchemy as sa

    from baccarat.store import open_store
    from baccarat.store import schema as s

    store = open_store(server.db)
    try:
        with store.engine.begin() as conn:
            conn.execute(sa.update(s.rounds).where(s.rounds.c.id == round_id).values(cards=cards))
    finally:
        store.close()


def _first_cards(firsts: list[int], wrong: int = 0) -> Any:
    """A route handler: the archive's answer as a server that records each round's
    ``first_card`` gives it (round ``wrong``'s one place off)."""

    def handle(route: Any) -> None:
        answer = route.fetch()
        shoe = answer.json()
        for r, at in zip(shoe["rounds"], firsts, strict=True):
            r["first_card"] = at + (1 if r["round_no"] == wrong else 0)
        route.fulfill(response=answer, json=shoe)

    return handle


def _recheck(page: Any, shoe_id: str) -> dict[str, Any]:
    """Check the archived shoe again in the panel and read what it says."""
    page.click(f".fp-archived[data-shoe='{shoe_id}'] [data-action='verify-shoe']")
    page.wait_for_selector(f".fp-archived[data-shoe='{shoe_id}'] .fp-checked")
    return dict(page.evaluate(CHECKED, shoe_id))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_fairness_panel_checks_an_ended_shoe_of_the_archive_card_for_card(
    server: Server, browser: Any, lang: str
) -> None:
    table = "high-2"
    # Round 5 was voided after its cards were drawn: the archive keeps none of them.
    shoe = archived_shoe(server, table, 12, voided=(5,))
    shoe_id = shoe.shoe_id
    at = f"{shoe.first_cards[4] + 1}–{shoe.first_cards[5]}"
    skipped = (
        f"第 {at} 張未發出（第 5 局作廢）"
        if lang == "zh"
        else f"positions {at} skipped (round 5 was voided)"
    )
    phone = lang == "en"
    page = open_page(browser, server, PHONE if phone else DESKTOP, phone=phone)
    try:
        log_in(page, create_account(server, f"checker{lang}"))
        page.click(f".table-card[data-table='{table}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        if lang == "en":
            page.click("[data-action='lang']")
            page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.click("[data-action='fairness']")
        got = _recheck(page, shoe_id)
        assert got["ok"] == "true"
        assert got["rounds"] == [str(n) for n in range(1, 13)]
        assert got["cards"] == [c for cards in shoe.dealt for c in cards]
        # The sentence counts the rounds that kept cards, and names the positions skipped.
        assert ("11 局共" if lang == "zh" else "all 11 rounds") in got["sentence"]
        assert got["sentence"].endswith(skipped), got["sentence"]
        assert got["skips"] == [["6", skipped]] and got["problems"] == []
        # A server that records where each round starts: each is checked there.
        page.route(f"**/api/shoes/{shoe_id}", _first_cards(shoe.first_cards))
        got = _recheck(page, shoe_id)
        assert (got["ok"], got["skips"], got["problems"]) == ("true", [["6", skipped]], [])
        page.unroute(f"**/api/shoes/{shoe_id}")
        page.route(f"**/api/shoes/{shoe_id}", _first_cards(shoe.first_cards, wrong=8))
        got = _recheck(page, shoe_id)
        assert (got["ok"], got["bad"]) == ("false", ["8"])
        where = (shoe.first_cards[7] + 2, shoe.first_cards[7] + 1)
        assert got["problems"] == [
            [
                "8",
                f"紀錄說第 8 局從第 {where[0]} 張開始，但它的牌從第 {where[1]} 張起才相符！"
                if lang == "zh"
                else f"The archive starts round 8 at position {where[0]}, but its cards match "
                f"from position {where[1]}!",
            ]
        ]
        page.unroute(f"**/api/shoes/{shoe_id}")
        # A card of round 3 changed in the archive: that round is flagged, the shoe fails.
        swapped = list(shoe.dealt[2])
        swapped[0] = "QS" if swapped[0] != "QS" else "QH"
        _tamper(server, f"{shoe_id}-3", swapped)
        got = _recheck(page, shoe_id)
        assert (got["ok"], got["bad"]) == ("false", ["3"])
        assert not page.js_errors
    finally:
        page.context.close()


CHECKED = """(id) => {
  const box = document.querySelector(`.fp-archived[data-shoe='${id}'] .fp-checked`);
  const notes = (sel) => [...box.querySelectorAll(sel)].map((n) => [n.closest('li').dataset.round, n.textContent]);
  return { ok: box.dataset.ok, sentence: box.querySelector('.verify-result').textContent,
           rounds: [...box.querySelectorAll('.fp-rounds li')].map((li) => li.dataset.round),
           bad: [...box.querySelectorAll('.fp-rounds li.bad')].map((li) => li.dataset.round),
           cards: [...box.querySelectorAll('.fp-card-pos')].map((c) => c.dataset.code),
           skips: notes('.fp-skip'), problems: notes('.fp-problem'),
           memory: box.querySelector('.fp-memory')?.dataset.memory ?? null };
}"""


def test_a_shoe_with_a_crashed_round_checks_out_in_dealing_order_counting_dealt_cards(
    server: Server, browser: Any
) -> None:
    table = "high-1"
    # Round 4 was left in escrow by a crash, after its cards were drawn; the round after it took
    # its number again (as an older version gave it) and an id that sorts before its.
    shoe = archived_shoe(server, table, 10, crashed=(4,))
    dealt = sum(len(cards) for cards in shoe.dealt)
    start = shoe.first_cards[3]
    with urllib.request.urlopen(f"{server.url}/api/shoes/{shoe.shoe_id}") as answer:
        archive = json.load(answer)["rounds"]
    # The archive lists them by where their cards start, whatever their ids say.
    assert [r["first_card"] for r in archive] == sorted(shoe.first_cards)
    assert [r["round_no"] for r in archive] == [1, 2, 3, 4, 4, 5, 6, 7, 8, 9]
    assert archive[3]["round_id"] > archive[4]["round_id"]  # (the crashed round's id, and its next)
    page = open_page(browser, server, DESKTOP)
    try:
        # The page orders them so itself: given in the order of their ids, the check holds.
        by_id = sorted(archive, key=lambda r: r["round_id"])
        got = page.evaluate(CHECK, [shoe.order, by_id])
        assert got["ok"] and [r["round_id"] for r in got["rounds"]] == [
            r["round_id"] for r in archive
        ]
        assert (got["cardsDealt"], got["positionsSkipped"], got["dealt"]) == (
            dealt,
            6,
            dealt + 6,
        )
        assert got["skips"] == [
            {"from": start, "to": start + 5, "round_no": 4, "voided": [4], "ok": True}
        ]
        log_in(page, create_account(server, "crashchecker"))
        page.click(f".table-card[data-table='{table}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        page.click("[data-action='fairness']")
        seen = _recheck(page, shoe.shoe_id)
        assert (seen["ok"], seen["bad"], seen["problems"]) == ("true", [], [])
        assert seen["rounds"] == [str(r["round_no"]) for r in archive]
        skipped = f"第 {start + 1}–{start + 6} 張未發出（第 4 局作廢）"
        assert f"9 局共發出 {dealt} 張牌，都與種子重算的牌序一致" in seen["sentence"]
        assert seen["sentence"].endswith(f"；6 個位置未發出：{skipped}"), seen["sentence"]
        # The verifier page, filled in from the archive, in English.
        page.goto(f"{server.url}/verify?shoe={shoe.shoe_id}&lang=en")
        page.wait_for_selector("#out[data-ok]")
        sentence = page.text_content("[data-check=rounds]")
        assert page.get_attribute("#out", "data-ok") == "true"
        assert sentence == (
            f"✔ All 9 rounds' {dealt} dealt cards match the rebuilt order; 6 positions were not "
            f"dealt: positions {start + 1}–{start + 6} skipped (round 4 was voided)"
        )
        assert not page.js_errors
    finally:
        page.context.close()


WITNESS = """() => {
  const line = document.querySelector('.fp-witness:not([data-witness=checking])');
  return line && { verdict: line.dataset.witness, memory: line.dataset.memory, vouching: line.dataset.vouching,
    text: [...line.querySelectorAll('p')].map((p) => p.textContent), background: getComputedStyle(line).backgroundColor,
    button: document.querySelector('.btn-fairness').classList.contains('alarm') };
}"""


def _note(keys: Keys, size: int, root: bytes, cosigners: list[tuple[str, bytes]]) -> str:
    """The log's checkpoint at ``size`` with ``root``, signed by its key and cosigned."""
    text = checkpoint.body(keys.log_origin, size, root)
    lines = [checkpoint.sign(text, keys.log_origin, keys.log[0])]
    lines += [checkpoint.cosign(text, name, key, int(time.time())) for name, key in cosigners]
    return text + "\n" + "".join(f"{line}\n" for line in lines)


def _two_witnesses(server: Server) -> tuple[Keys, list[tuple[str, bytes]], dict[str, Any]]:
    """The server's keys, two witnesses' names and private keys, and the key document as it
    would be with them named and a policy of both."""
    keys = load(default_path(server.db))
    cosigners = [(f"w{i}.e2e.test", secrets.token_bytes(32)) for i in (1, 2)]
    with urllib.request.urlopen(f"{server.url}/.well-known/baccarat-log-key") as answer:
        published = json.load(answer)
    published["quorum"] = 2
    published["witnesses"] = [
        {"name": name, "url": "http://127.0.0.1:9", "vkey": checkpoint.Verifier(
            name, checkpoint.COSIGNATURE,
            Ed25519PrivateKey.from_private_bytes(key).public_key().public_bytes_raw()).vkey()}
        for name, key in cosigners
    ]  # fmt: skip
    return keys, cosigners, published


def _log(server: Server) -> tuple[int, list[bytes]]:
    """The log's size now, and its leaf hashes."""
    with urllib.request.urlopen(f"{server.url}/api/log/head") as answer:
        size = json.load(answer)["tree_size"]
    with urllib.request.urlopen(f"{server.url}/api/log/entries?start=0&end={size}") as answer:
        return size, [bytes.fromhex(e["leaf_hash"]) for e in json.load(answer)["entries"]]


def _serve(page: Any, published: dict[str, Any], served: dict[str, str]) -> None:
    """The page is given ``published`` as the key document and ``served["note"]`` as the
    cosigned checkpoint."""
    page.route("**/.well-known/baccarat-log-key", lambda route: route.fulfill(json=published))
    page.route(
        "**/.well-known/baccarat-checkpoint",
        lambda route: route.fulfill(body=served["note"], content_type="text/plain"),
    )


def test_the_panel_counts_the_witnesses_and_shows_a_split_view_in_red(
    server: Server, browser: Any
) -> None:
    keys, cosigners, published = _two_witnesses(server)
    for _ in range(2):  # (two shoes logged, whatever the tests before logged)
        archived_shoe(server, "high-2", 2, signer=keys.signer)
    size, leaves = _log(server)
    served = {"note": ""}
    page = open_page(browser, server, DESKTOP)
    try:
        _serve(page, published, served)
        log_in(page, create_account(server, "witnesswatcher"))
        page.click(".table-card .btn-watch >> nth=0")
        page.wait_for_selector(".table-screen")

        def shown(note: str) -> dict[str, Any]:
            served["note"] = note
            if page.locator(".fair-panel:not([hidden])").count():
                page.click("[data-action='fairness-close']")
            page.click("[data-action='fairness']")
            return dict(page.wait_for_function(WITNESS).json_value())

        # Both witnesses vouch for the log one entry short of its head: the page keeps it.
        got = shown(_note(keys, size - 1, merkle.root(leaves[:-1]), cosigners))
        assert (got["verdict"], got["memory"], got["button"]) == ("vouched", "new", False)
        assert got["text"] == [f"✔ 2 位見證人中有 2 位為日誌的這個狀態作證（日誌共 {size - 1} 筆）"]
        # The head: it extends the kept one (the log's consistency proof checked in the page).
        got = shown(_note(keys, size, merkle.root(leaves), cosigners))
        assert (got["verdict"], got["memory"]) == ("vouched", "extends")
        # One cosignature where the policy needs two: said, in red.
        got = shown(_note(keys, size, merkle.root(leaves), cosigners[:1]))
        assert (got["verdict"], got["memory"], got["background"]) == ("too_few", "same", RED)
        assert got["text"][0].startswith("✘ 只有 1 位見證人（共 2 位）")
        # A split view: another root at the kept size, cosigned all the same.
        got = shown(_note(keys, size, merkle.leaf_hash(b"another log"), cosigners))
        assert (got["memory"], got["background"], got["button"]) == ("split", RED, True)
        assert got["text"][0].startswith("✘ 分裂視圖！本頁在 ")
        assert f"看過日誌共 {size} 筆時的另一個根" in got["text"][0]
        # In English, a smaller log after the larger one kept.
        page.click("[data-action='fairness-close']")
        page.click("[data-action='lang']")
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        got = shown(_note(keys, size - 1, merkle.root(leaves[:-1]), cosigners))
        assert (got["verdict"], got["memory"], got["background"]) == ("vouched", "smaller", RED)
        assert got["text"][0].startswith("✘ LOG ROLLED BACK! At ")
        assert got["text"][0].endswith(
            f"this page saw a cosigned log of {size} entries; now it is shown {size - 1}"
        )
        assert got["text"][1] == f"✔ 2 of 2 witnesses vouch for this head (size {size - 1})"
        # The panel closed, the table checks the newest checkpoint as the player comes to it: a
        # split view is said at once, and turns the button red.
        page.click("[data-action='fairness-close']")
        served["note"] = _note(keys, size, merkle.leaf_hash(b"a third log"), cosigners)
        page.click(".btn-lobby")
        page.click(".table-card .btn-watch >> nth=0")
        page.wait_for_selector(".table-screen .btn-fairness.alarm")
        assert page.text_content(".toast-error") == (
            "The cosigned log does not match what this page saw before! Open Fairness to see it"
        )
        assert page.locator(".fair-panel:not([hidden])").count() == 0
        assert not page.js_errors
    finally:
        page.context.close()


RED = "rgb(127, 16, 16)"


VERIFIED = """() => {
  const line = (name) => document.querySelector(`[data-check=${name}]`);
  return { ok: document.querySelector('#out').dataset.ok, witness: line('witness')?.dataset.witness,
    vouching: line('witness')?.dataset.vouching, memory: line('witness-memory')?.dataset.memory,
    tie: line('witness-tie')?.dataset.tie,
    lines: [...document.querySelectorAll('#out [data-check^=witness]')].map((p) => [p.className, p.textContent]),
    first: document.querySelector('#out .verdict')?.textContent };
}"""


def test_the_verifier_counts_the_witnesses_and_flags_a_forged_or_split_checkpoint(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    keys, cosigners, published = _two_witnesses(server)
    shoe = archived_shoe(server, "high-2", 2, signer=keys.signer)
    size, leaves = _log(server)
    root = merkle.root(leaves)
    served = {"note": ""}
    page = open_page(browser, server, DESKTOP)
    try:
        _serve(page, published, served)

        def verified(note: str, lang: str = "en") -> dict[str, Any]:
            served["note"] = note
            page.goto(f"{server.url}/verify?shoe={shoe.shoe_id}&lang={lang}")
            page.wait_for_selector("#out[data-ok] [data-check=witness]")
            return dict(page.evaluate(VERIFIED))

        # Both witnesses vouch for the log that holds the shoe: said, and kept in this browser.
        got = verified(_note(keys, size, root, cosigners))
        assert (got["ok"], got["witness"], got["memory"]) == ("true", "vouched", "new")
        assert got["vouching"] == "w1.e2e.test w2.e2e.test"
        assert ["verdict ok", f"✔ 2 of 2 witnesses vouch for this head (size {size})"] in got[
            "lines"
        ]
        # (a table that started a shoe meanwhile grew the log past it: the proof then holds)
        assert got["tie"] in ("same", "extends")
        # A forged cosignature (a key the document does not name): too few vouch, in red.
        forged = [cosigners[0], ("w2.e2e.test", secrets.token_bytes(32))]
        got = verified(_note(keys, size, root, forged))
        assert (got["ok"], got["witness"], got["memory"]) == ("false", "too_few", "same")
        assert [
            "verdict bad",
            f"✘ Only 1 of 2 witnesses vouch for this head (size {size}); the policy needs 2!",
        ] in got["lines"]
        # A split view: another root at the kept size, cosigned by both, flagged first, in red.
        got = verified(_note(keys, size, merkle.leaf_hash(b"another log"), cosigners), "zh")
        assert (got["ok"], got["witness"], got["memory"]) == ("false", "vouched", "split")
        assert got["tie"] in ("split", "inconsistent")
        assert got["first"].startswith("✘ 分裂視圖！本頁在 ")
        assert f"看過日誌共 {size} 筆時的另一個根" in got["first"]
        # (the count holds, but beside the alarm nothing is green)
        assert [
            "verdict ok plain",
            f"✔ 2 位見證人中有 2 位為日誌的這個狀態作證（日誌共 {size} 筆）",
        ] in got["lines"]
        page.evaluate("() => document.querySelector('#out').scrollIntoView()")
        save_screenshot(page, "verify-split-view")
        # A smaller log after the one kept: rolled back.
        got = verified(_note(keys, size - 1, merkle.root(leaves[:-1]), cosigners))
        assert (got["ok"], got["memory"]) == ("false", "smaller")
        assert got["first"].endswith(
            f"this page saw a cosigned log of {size} entries; now it is shown {size - 1}"
        )
        # Saved to a disk, the page counts the witnesses with nothing of the server's.
        with urllib.request.urlopen(server.url + "/verify") as answer:
            saved = tmp_path / "verify.html"
            saved.write_bytes(answer.read())
        page.goto(saved.as_uri() + "?lang=en")
        page.fill("#seed", shoe.seed.hex())
        page.fill("#commitment", commitment(shoe.seed))
        page.fill("#logkey", json.dumps(published))
        page.fill("#checkpoint", _note(keys, size, root, cosigners))
        page.click("#check")
        page.wait_for_selector("#out[data-ok] [data-check=witness]")
        got = dict(page.evaluate(VERIFIED))
        assert (got["ok"], got["witness"], got["memory"]) == ("true", "vouched", None)
        assert got["lines"] == [
            ["verdict ok", f"✔ 2 of 2 witnesses vouch for this head (size {size})"]
        ]
        assert not page.js_errors
    finally:
        page.context.close()
