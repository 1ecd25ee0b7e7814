"""A whole shoe played to its end, then checked card for card in the page, as a player would.

A fast-timer server (``--speed 320``) with three bots at one table plays the 78 rounds of a
shoe in about 12 s (the bots bet in most of them: a round its bots miss is dealt all the
same); the shoe ends, its seed is revealed, and the next shoe starts. A player
then opens the table's 公平性 panel, has the page rebuild the ended shoe from its seed and
check every round's cards, does the same in the stand-alone verifier opened from a file, and
sees a card changed in the archive flagged.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from e2e_support import (
    DESKTOP,
    Server,
    create_account,
    free_port,
    log_in,
    needs_chromium,
    open_page,
)

from baccarat.shoe import commitment, parse_seed, shuffled_cards
from baccarat.store import open_store
from baccarat.store import schema as s
from serving import start_serve

pytestmark = [pytest.mark.browser, needs_chromium]

TABLE = "standard-1"
SHOE_LIMIT = 300.0
"""Seconds the shoe may take to end (a bound on a hang: it takes about 12 s)."""


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, Any]]]:
    """A server whose table has played a whole shoe; the ended shoe as the archive gives it."""
    db = f"sqlite:///{tmp_path_factory.mktemp('shoe') / 'shoe.db'}"
    log = tmp_path_factory.mktemp("log") / "serve.log"
    served = start_serve(
        "--db", db, "--speed", "320", "--register-per-ip", "100", port=free_port(), log=log
    )
    server = Server(served.url, db, served.proc)
    bots = subprocess.Popen(
        [sys.executable, "-m", "baccarat", "bots", "--url", server.url, "--count", "3",
         "--table", TABLE, "--strategy", "flat", "--seed", "3", "--processes", "1",
         "--prefix", "shoebot", "--password", "bot-password"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + SHOE_LIMIT
        ended: list[dict[str, Any]] = []
        while not ended:
            assert time.monotonic() < deadline, "the shoe did not end"
            time.sleep(0.25)
            shoes = _get(f"{server.url}/api/shoes?table={TABLE}")["shoes"]
            ended = [shoe for shoe in shoes if shoe["seed"]]
        bots.terminate()
        bots.wait(timeout=10)
        shoe = _get(f"{server.url}/api/shoes/{ended[0]['shoe_id']}")
        yield server, shoe
    finally:
        if bots.poll() is None:
            bots.kill()
            bots.wait()
        served.stop()


def test_the_played_shoe_is_the_order_its_seed_gives(played: tuple[Server, dict[str, Any]]) -> None:
    _, shoe = played
    assert commitment(parse_seed(shoe["seed"])) == shoe["commitment"]
    dealt = [c for r in shoe["rounds"] if r["cards"] for c in r["cards"]]
    assert len([r for r in shoe["rounds"] if r["status"] == "settled"]) >= 70
    assert dealt == [str(c) for c in shuffled_cards(parse_seed(shoe["seed"]))][: len(dealt)]


def test_a_player_checks_the_ended_shoe_in_the_page_and_sees_a_changed_card_flagged(
    played: tuple[Server, dict[str, Any]], browser: Any, tmp_path: Path
) -> None:
    server, shoe = played
    settled = [r for r in shoe["rounds"] if r["cards"]]
    page = open_page(browser, server, DESKTOP)
    try:
        log_in(page, create_account(server, "shoechecker"))
        page.click(f".table-card[data-table='{TABLE}'] .btn-watch")
        page.wait_for_selector(".table-screen")
        page.click("[data-action='fairness']")
        archived = f".fp-archived[data-shoe='{shoe['shoe_id']}']"
        page.click(f"{archived} [data-action='verify-shoe']")
        page.wait_for_selector(f"{archived} .fp-checked")
        got = page.evaluate(
            """(sel) => { const box = document.querySelector(`${sel} .fp-checked`);
                 return { ok: box.dataset.ok,
                          rounds: box.querySelectorAll('.fp-rounds li[data-round]').length,
                          cards: box.querySelectorAll('.fp-card-pos').length }; }""",
            archived,
        )
        assert got == {
            "ok": "true",
            "rounds": len(shoe["rounds"]),
            "cards": sum(len(r["cards"]) for r in settled),
        }
        # The same shoe in the verifier saved to a file: the archive's answer pasted whole.
        with urllib.request.urlopen(server.url + "/verify") as answer:
            (tmp_path / "verify.html").write_bytes(answer.read())
        page.goto((tmp_path / "verify.html").as_uri())
        page.fill("#seed", shoe["seed"])
        page.fill("#commitment", shoe["commitment"])
        page.fill("#rounds", json.dumps(shoe))
        page.click("#check")
        page.wait_for_selector("#out[data-ok]")
        assert page.get_attribute("#out", "data-ok") == "true"
        # A card of the shoe's tenth settled round changed in the archive: flagged there.
        target = settled[9]
        changed = ["QS" if target["cards"][0] != "QS" else "QH", *target["cards"][1:]]
        store = open_store(server.db)
        try:
            with store.engine.begin() as conn:
                conn.execute(
                    sa.update(s.rounds)
                    .where(s.rounds.c.id == target["round_id"])
                    .values(cards=changed)
                )
        finally:
            store.close()
        page.goto(f"{server.url}/verify?shoe={shoe['shoe_id']}&round={target['round_no']}")
        page.wait_for_selector("#out[data-ok]")
        assert page.get_attribute("#out", "data-ok") == "false"
        bad = page.eval_on_selector_all("tr.bad", "(rows) => rows.map((r) => r.dataset.round)")
        assert bad == [str(target["round_no"])]
        assert page.get_attribute(f"tr[data-round='{target['round_no']}']", "class") == "bad mine"
        # Served by the server, its inline script and style are let in by their hashes alone.
        assert not page.js_errors and not page.console_errors
    finally:
        page.context.close()
