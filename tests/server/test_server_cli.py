"""``baccarat serve`` as a person runs it: the demo plays, SIGTERM stops it cleanly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from baccarat import checkpoint
from baccarat.api import login
from baccarat.client import Client
from baccarat.store import BetRecord, open_store
from serving import health, run_serve, start_serve, wait_until


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def test_demo_serves_bots_play_and_sigterm_exits_cleanly(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    log = tmp_path / "serve.log"
    with start_serve("--demo", "--db", db, "--speed", "20", log=log) as served:
        url = served.url
        assert any(db in line for line in served.lines)
        wait_until(lambda: health(url)["ok"], "healthz")

        def bots_played() -> bool:
            tables = _get(url + "/api/lobby")["tables"]
            return any(len(t["beads"]) >= 2 for t in tables)

        wait_until(bots_played, "bots to play two rounds")
        witness = _the_demo_witness_cosigns_the_head(url)
        lobby = _get(url + "/api/lobby")
        tables = lobby["tables"]
        # In every room a table with a bot dealer, bots betting and free bettor seats.
        for room in {t["room_id"] for t in tables}:
            dealt = [t for t in tables if t["room_id"] == room and t["seats"][0] is not None]
            assert dealt, room
            assert None in dealt[0]["seats"][1:]
        # And one with bots betting and the dealer seat free for a person.
        assert any(
            t["seats"][0] is None and sum(s is not None for s in t["seats"][1:]) >= 2
            for t in tables
        )
        # The bots go by Chinese nicknames.
        names = [s["name"] for t in tables for s in t["seats"] if s is not None]
        assert names and all(re.fullmatch(r"[\u4e00-\u9fff]+", n) for n in names), names
        _a_second_server_is_refused_and_voids_nothing(url, db, tmp_path)
        assert served.stop() == 0
    # The bots left before the listener closed, and quietly: not one line of theirs (a
    # reconnect to a closed listener) after the stop began.
    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    said = [r["msg"] for r in records]
    stopping = said.index("shutting down")
    assert [r["msg"] for r in records[stopping:] if r["logger"] == "baccarat.bots"] == []
    assert said.index("demo bots stopped") < said.index("stopped")
    # Its witness stopped with it.
    try:
        urllib.request.urlopen(witness, timeout=5).close()
        raise AssertionError(f"the demo's witness still answers at {witness}")
    except urllib.error.URLError:
        pass
    store = open_store(db)
    try:
        report = store.audit()
        assert report.ok, report.problems
        assert report.rounds >= 2
        # Shutdown let every round in escrow finish or voided it: none is left open.
        assert store.void_unfinished() == []
        names = {u.username for u in store.list_users()}
        assert {"demo1", "demo2", "demo3", "dealer"} <= names
    finally:
        store.close()


def _the_demo_witness_cosigns_the_head(url: str) -> str:
    """The demo's own witness cosigns the log's checkpoint, served at its well-known address;
    where the witness listens."""
    published = _get(url + "/.well-known/baccarat-log-key")
    assert published["quorum"] == 1 and len(published["witnesses"]) == 1
    witness = published["witnesses"][0]

    def cosigned() -> str:
        with urllib.request.urlopen(url + "/.well-known/baccarat-checkpoint", timeout=5) as r:
            return str(r.read().decode())

    text, lines = checkpoint.split_note(wait_until(cosigned, "the demo's head cosigned"))
    vouched = checkpoint.vouching(text, lines, [checkpoint.parse_vkey(witness["vkey"])])
    assert list(vouched) == [witness["name"]]
    assert checkpoint.parse_body(text).tree_size >= 1
    return str(witness["url"])


def _a_second_server_is_refused_and_voids_nothing(url: str, db: str, tmp_path: Path) -> None:
    """A second ``serve`` by mistake, on the same database or the same port, says why in one
    line and exits 2, before it takes a table or voids a round of the running server."""
    port = url.rsplit(":", 1)[1]
    twice = run_serve("--db", db, "--port", port)
    assert twice.returncode == 2, twice.stderr
    assert twice.stderr.count("\n") == 1, twice.stderr
    assert "another baccarat server is running alone on this database" in twice.stderr
    busy = run_serve("--db", f"sqlite:///{tmp_path / 'other.db'}", "--port", port)
    said = [line for line in busy.stderr.splitlines() if line.startswith("baccarat serve:")]
    assert busy.returncode == 2 and "Traceback" not in busy.stderr, busy.stderr
    assert said == [
        f"baccarat serve: cannot listen on 127.0.0.1:{port}: another program listens there"
    ]

    # The running server plays on: each table's next bead comes, and nothing was voided.
    # (The lobby shows the last few beads only: a round is counted by the shoe's round.)
    def progress() -> dict[str, tuple[str | None, int]]:
        tables = _get(url + "/api/lobby")["tables"]
        return {t["table_id"]: (t["commitment"], t["shoe_round"]) for t in tables}

    before = progress()
    wait_until(
        lambda: any(now != before[table] for table, now in progress().items()),
        "a round played after the second server was refused",
    )
    store = open_store(db)
    try:
        assert store.audit().voided == 0
    finally:
        store.close()


def test_a_bad_rooms_file_refuses_to_start(tmp_path: Path) -> None:
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(
        '[[rooms]]\nid = "odd"\nchip_unit = 150\ntables = ["odd-1"]\n', encoding="utf-8"
    )
    done = run_serve("--rooms", str(rooms), "--db", f"sqlite:///{tmp_path / 'x.db'}", "--port", "0")
    assert done.returncode == 2
    assert "multiple of 100" in done.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_round_left_in_escrow_at_a_table_gone_from_the_rooms_file_is_voided(
    tmp_path: Path,
) -> None:
    # A server alone is the whole system: nobody will ever settle such a round.
    db = f"sqlite:///{tmp_path / 'x.db'}"
    store = open_store(db)
    try:
        dealer = store.create_user("dealer", "password1", level=50, coins=100_000)
        bettor = store.create_user("bettor", "password1", level=50, coins=100_000)
        store.record_shoe_start("shoe-gone", "gone-1", "00" * 32)
        bets = [BetRecord(bettor.user_id, "tie", 2, 200, time.time())]
        store.escrow_round("r-gone", "gone-1", "shoe-gone", 1, dealer.user_id, bets)
        assert store.balance(bettor.user_id) == 99_800
    finally:
        store.close()
    with start_serve("--db", db) as served:
        assert served.stop() == 0
    store = open_store(db)
    try:
        assert store.get_round("r-gone").status == "voided"
        assert store.balance(bettor.user_id) == 100_000
        assert store.audit().ok
    finally:
        store.close()


def _in_thread(main: Any) -> Any:
    """Run ``main()`` in a fresh event loop on its own thread (whatever loop the test holds)."""
    out: list[Any] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            out.append(asyncio.run(main()))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return out[0]


ROUNDS = 3
PEEL = (0.25, 0.5, 0.75)


async def _deal_and_bet(
    url: str, dealer_login: tuple[str, str], bettor_login: tuple[str, str]
) -> Any:
    dealer = await Client.connect(url, await login(url, *dealer_login), record=True)
    bettor = await Client.connect(url, await login(url, *bettor_login), record=True)
    settled: list[dict[str, Any]] = []
    squeezed = 0
    try:
        # A table nobody plays at in the demo.
        await dealer.sit("standard-3", 0)
        await bettor.sit("standard-3", 1)
        while len(settled) < ROUNDS:
            msg = await bettor.wait_for(
                lambda m: m.get("event") in ("betting_opened", "squeeze_started", "round_settled")
            )
            data = msg["data"]
            if msg["event"] == "betting_opened":
                await bettor.bet("banker", 5)
                await bettor.bet("tie", 1)
            elif msg["event"] == "squeeze_started" and data["controller_user_id"] == bettor.user_id:
                # The bettor controls every face-down card: peel each a little, then open it.
                for progress in PEEL:
                    await bettor.squeeze(data["hand"], progress, "br")
                await bettor.open(data["hand"])
                squeezed += 1
            elif msg["event"] == "round_settled" and data["bets"]:
                settled.append(data)
        # The dealer watched the peel move.
        seen = {
            f["data"]["progress"] for f in dealer.frames if f.get("event") == "squeeze_progress"
        }
        return dealer.user_id, bettor.user_id, settled, squeezed, seen
    finally:
        await dealer.close()
        await bettor.close()


def test_a_newcomer_deals_and_bets_with_the_demo_accounts_and_the_audit_is_clean(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    # Speed 5: a squeeze runs 2 s, time enough for a loaded machine to peel it.
    with start_serve("--db", db, "--demo", "--speed", "5") as served:
        accounts = dict(
            m.groups()
            for line in served.lines
            if (m := re.match(r"demo account: (\S+) / (\S+)", line))
        )
        assert {"dealer", "demo1"} <= set(accounts)
        dealer_id, bettor_id, settled, squeezed, seen = _in_thread(
            lambda: _deal_and_bet(
                served.url, ("dealer", accounts["dealer"]), ("demo1", accounts["demo1"])
            )
        )
        assert served.stop() == 0
    assert squeezed >= 2 * ROUNDS  # at least the second card of each hand, every round
    assert set(PEEL) <= seen
    store = open_store(db)
    try:
        for uid, opening in ((dealer_id, 2_000_000), (bettor_id, 500_000)):
            change = sum(r["settlement"]["deltas"].get(str(uid), 0) for r in settled)
            assert store.balance(uid) == opening + change
        for r in settled:
            assert store.get_round(r["round_id"]).status == "settled"
    finally:
        store.close()
    audit = subprocess.run(
        [sys.executable, "-m", "baccarat", "audit", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert audit.stdout.startswith("audit: ok")
