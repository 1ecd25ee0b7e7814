"""A player checks a shoe alone, in Chromium: the whole order rebuilt from its seed in the page.

``web/js/fair.js`` implements ``docs/fairness.md`` with WebCrypto; its order must be
:mod:`baccarat.shoe`'s, card for card, for any seed. The stand-alone verifier (``/verify``)
works saved to a file and opened from the disk, and flags a card that is not where the seed
puts it.
"""

from __future__ import annotations

import json
import random
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
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

from baccarat.protocol import values
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
                       bad: [...document.querySelectorAll('tr.bad')].map((r) => r.dataset.round),
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
    page = open_page(browser, server, PHONE if lang == "en" else DESKTOP, phone=lang == "en")
    try:
        page.goto(saved.as_uri() + ("?lang=en" if lang == "en" else ""))
        seen = _fill(page, seed.hex(), commitment(seed), rounds)
        assert seen == {
            "ok": "true",
            "seed": "verdict ok",
            "rounds": "verdict ok",
            "bad": [],
            "cards": 416,
        }
        save_screenshot(page, f"verify-{'phone-en' if lang == 'en' else 'desktop-zh'}")
        # A card swapped in round 12, and a seed that is not the committed one.
        rounds[11]["cards"][0] = "QS" if rounds[11]["cards"][0] != "QS" else "QH"
        seen = _fill(page, seed.hex(), commitment(seed), rounds)
        assert (seen["ok"], seen["rounds"], seen["bad"]) == ("false", "verdict bad", ["12"])
        seen = _fill(page, new_seed().hex(), commitment(seed), rounds[:1])
        assert (seen["ok"], seen["seed"]) == ("false", "verdict bad")
        assert not page.js_errors
    finally:
        page.context.close()


def _archived_shoe(server: Server, table: str, rounds: int) -> tuple[str, list[list[str]]]:
    """An ended shoe of ``table`` with ``rounds`` settled rounds, written through the store
    into the server's database (a real shoe takes 78 rounds to end); its id and each round's
    cards."""
    from baccarat.cards import parse_cards
    from baccarat.rules import deal
    from baccarat.settlement import settle
    from baccarat.store import BetRecord, open_store

    seed = new_seed()
    shoe_id = f"archived-{seed.hex()[:12]}"
    order = [str(c) for c in shuffled_cards(seed)]
    store = open_store(server.db)
    try:
        dealer = store.get_user_by_name(create_account(server, f"arch{seed.hex()[:6]}d"))
        bettor = store.get_user_by_name(create_account(server, f"arch{seed.hex()[:6]}b"))
        store.record_shoe_start(shoe_id, table, commitment(seed))
        # (written as the node that runs the table: the ledger takes that node's epoch only)
        epoch = store.epoch_of(table)
        dealt: list[list[str]] = []
        for no in range(1, rounds + 1):
            bets = [BetRecord(bettor.user_id, "banker", 1, 1_000, time.time())]
            rid = f"{shoe_id}-{no}"
            store.escrow_round(rid, table, shoe_id, no, dealer.user_id, bets, epoch=epoch)
            outcome = deal(iter(parse_cards(order)).__next__)
            cards = order[: len(outcome.player) + len(outcome.banker)]
            result = settle(outcome, dealer.user_id, {bettor.user_id: {"banker": 1_000}})
            store.settle_round(
                rid,
                cards,
                values.outcome(outcome),
                result.deltas,
                result.commission,
                result.house,
                epoch=epoch,
            )
            dealt.append(cards)
            order = order[len(cards) :]
        store.record_shoe_end(shoe_id, seed.hex())
    finally:
        store.close()
    return shoe_id, dealt


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


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_fairness_panel_checks_an_ended_shoe_of_the_archive_card_for_card(
    server: Server, browser: Any, lang: str
) -> None:
    table = "high-2"
    shoe_id, dealt = _archived_shoe(server, table, 12)
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
        button = f".fp-archived[data-shoe='{shoe_id}'] [data-action='verify-shoe']"
        page.click(button)
        page.wait_for_selector(f".fp-archived[data-shoe='{shoe_id}'] .fp-checked")
        got = page.evaluate(CHECKED, shoe_id)
        assert got["ok"] == "true"
        assert got["rounds"] == [str(n) for n in range(1, 13)]
        assert got["cards"] == [c for cards in dealt for c in cards]
        assert ("12 局" if lang == "zh" else "all 12 rounds") in got["sentence"]
        page.locator(f".fp-archived[data-shoe='{shoe_id}']").scroll_into_view_if_needed()
        save_screenshot(page, f"fairness-shoe-{'phone-en' if phone else 'desktop-zh'}")
        # A card of round 5 changed in the archive: that round is flagged, the shoe fails.
        swapped = list(dealt[4])
        swapped[0] = "QS" if swapped[0] != "QS" else "QH"
        _tamper(server, f"{shoe_id}-5", swapped)
        page.click(button)
        page.wait_for_function(
            """(id) => document.querySelector(`.fp-archived[data-shoe='${id}'] .fp-checked`)
                 ?.dataset.ok === 'false'""",
            arg=shoe_id,
        )
        got = page.evaluate(CHECKED, shoe_id)
        assert got["bad"] == ["5"]
        assert not page.js_errors
    finally:
        page.context.close()


CHECKED = """(id) => {
  const box = document.querySelector(`.fp-archived[data-shoe='${id}'] .fp-checked`);
  return { ok: box.dataset.ok, sentence: box.querySelector('.verify-result').textContent,
           rounds: [...box.querySelectorAll('.fp-rounds li')].map((li) => li.dataset.round),
           bad: [...box.querySelectorAll('.fp-rounds li.bad')].map((li) => li.dataset.round),
           cards: [...box.querySelectorAll('.fp-card-pos')].map((c) => c.dataset.code) };
}"""
