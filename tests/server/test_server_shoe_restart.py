"""A shoe no restart can hide: after a planned stop (SIGTERM) and after a crash (SIGKILL) of a
real ``baccarat serve``, every shoe that had dealt rounds is dealt on (same shoe, more
rounds, no card dealt twice, no round number given twice) or has its seed revealed, the
tables' last ended shoe is still in their views, and ``baccarat verify-log`` passes on the
live system and fails on a database whose log was changed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

from baccarat.client import Client
from baccarat.seal import SealKey
from baccarat.server import keyfile
from baccarat.shoe import commitment, new_seed, shuffled_cards
from baccarat.store import ShoeRecord, open_store
from serving import Serve, run_serve, start_serve, wait_until

TABLES = ("standard-1", "vip-1", "high-1")
"""The demo's tables with a bot dealer and bots betting."""


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def _current(url: str) -> dict[str, dict[str, Any]]:
    """Each demo table's newest shoe (id, rounds settled, seed); a table without one yet is
    left out."""
    newest = {t: _get(f"{url}/api/shoes?table={t}&limit=1")["shoes"] for t in TABLES}
    return {t: shoes[0] for t, shoes in newest.items() if shoes}


def _played(served: Serve, rounds: int) -> dict[str, dict[str, Any]]:
    return wait_until(
        lambda: (
            (now := _current(served.url))
            and len(now) == len(TABLES)
            and all(s["rounds"] >= rounds for s in now.values())
            and now
        ),
        f"every demo table to settle {rounds} rounds of its shoe",
    )


def _verify_log(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "baccarat", "verify-log", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _dealt_in_order(db: str, keys: keyfile.Keys, shoe: ShoeRecord) -> None:
    """Every round of the shoe took its cards from its place in the seed's order, each after
    the last round's, so no card was dealt twice."""
    store = open_store(db)
    try:
        record = store.get_shoe(shoe.shoe_id)
        rounds = store.shoe_rounds(shoe.shoe_id)
    finally:
        store.close()
    seed = (
        bytes.fromhex(record.seed)
        if record.seed
        else keys.sealer.open(record.sealed_seed or "", shoe.shoe_id)
    )
    assert commitment(seed) == record.commitment
    order = [str(c) for c in shuffled_cards(seed)]
    # The archive lists them as they were dealt, each under a number of its own.
    assert rounds == sorted(rounds, key=lambda r: r.escrowed_at)
    assert len({r.round_no for r in rounds}) == len(rounds), [r.round_no for r in rounds]
    next_free = 0
    for r in rounds:
        assert r.first_card is not None and r.first_card >= next_free, (r, next_free)
        if r.status == "settled":
            assert r.cards == order[r.first_card : r.first_card + len(r.cards or [])], r
            next_free = r.first_card + len(r.cards or [])
        else:
            next_free = r.first_card + 6  # a void may have shown up to six cards


def _ended_shoe(db: str, table: str) -> str:
    """An ended shoe of ``table``, as an earlier run of the table left it; its id."""
    seed = new_seed()
    store = open_store(db)
    try:
        store.record_shoe_start("ended-shoe", table, commitment(seed))
        store.record_shoe_end("ended-shoe", seed.hex())
    finally:
        store.close()
    return seed.hex()


def _escrowed(db_file: Path) -> str | None:
    """A round in escrow now (betting closed, not settled yet), if any."""
    with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
        row = conn.execute("SELECT id FROM rounds WHERE status = 'escrowed' LIMIT 1").fetchone()
    return None if row is None else str(row[0])


def _last_shoe(url: str, db: str, table: str) -> Any:
    """The ``last_shoe`` of the table's view, as a watcher's snapshot gives it."""
    store = open_store(db)
    try:
        token = store.create_session(store.create_user("watcher", "pw12345678").user_id)
    finally:
        store.close()

    async def watch() -> Any:
        client = await Client.connect(url, token)
        try:
            return (await client.watch(table))["last_shoe"]
        finally:
            await client.close()

    return asyncio.run(watch())


def test_a_restart_or_a_crash_deals_each_shoe_on_and_the_log_holds(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    args = ("--demo", "--db", db, "--speed", "20")
    ended_seed = _ended_shoe(db, "standard-1")
    with start_serve(*args) as served:
        before = _played(served, 2)
        assert served.stop() == 0
    keys = keyfile.load(tmp_path / "b.db.keys")

    with start_serve(*args) as served:
        after_stop = _played(served, max(s["rounds"] for s in before.values()) + 2)
        # A crash mid-round: no drain, the round in escrow is left there.
        crashed = wait_until(lambda: _escrowed(tmp_path / "b.db"), "a round in escrow", every=0.01)
        served.proc.kill()
        served.proc.wait()
        served.proc.stdout and served.proc.stdout.close()
    # A planned stop dealt every shoe on: the same shoe, more rounds (a shoe lasts 78 rounds,
    # far more than these).
    for table, shoe in before.items():
        assert after_stop[table]["shoe_id"] == shoe["shoe_id"], table
        assert after_stop[table]["rounds"] > shoe["rounds"], table

    with start_serve(*args) as served:
        # ... and so did the crash, the round it left in escrow voided and its cards skipped;
        # the round after it takes the next number, and the last ended shoe is still shown.
        _played(served, max(s["rounds"] for s in after_stop.values()) + 1)
        after_crash = _current(served.url)
        for table, shoe in after_stop.items():
            assert after_crash[table]["shoe_id"] == shoe["shoe_id"], table
        last = _last_shoe(served.url, db, "standard-1")
        assert (last["shoe_id"], last["seed"]) == ("ended-shoe", ended_seed)
        live = _verify_log("--url", served.url)
        assert live.returncode == 0, live.stdout + live.stderr
        assert "ok: the log is whole" in live.stdout
        assert served.stop() == 0

    store = open_store(db)
    try:
        void = store.get_round(crashed)
        assert (void.status, void.void_reason) == ("voided", "crash")
        numbers = [r.round_no for r in store.shoe_rounds(void.shoe_id)]
        assert max(numbers) > void.round_no and numbers.count(void.round_no) == 1
        shoes = [s for t in TABLES for s in store.list_shoes(t, 10)]
        # Nothing is left in play without a way to be dealt on or revealed.
        for shoe, _settled in shoes:
            assert shoe.ended_at is not None or shoe.sealed_seed is not None
            assert shoe.end_reason in (None, "dealt"), shoe
    finally:
        store.close()
    for shoe, _settled in shoes:
        _dealt_in_order(db, keys, shoe)

    keys_file = str(tmp_path / "b.db.keys")
    assert _verify_log("--db", db, "--keys", keys_file).returncode == 0
    changed = tmp_path / "changed.db"
    shutil.copy(tmp_path / "b.db", changed)
    with sqlite3.connect(changed) as conn:
        conn.execute("DROP TRIGGER shoe_log_no_update")
        conn.execute("UPDATE shoe_log SET commitment = ? WHERE idx = 1", ("0" * 64,))
    tampered = _verify_log("--db", f"sqlite:///{changed}", "--keys", keys_file)
    assert tampered.returncode == 1
    assert "not the signed head" in tampered.stderr


def _keys_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "baccarat", "keys", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _shoe_rows(db: Path) -> list[tuple[Any, ...]]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT * FROM shoes ORDER BY id").fetchall()


def _refused(*args: str) -> str:
    """``serve ARGS``'s one line of refusal (exit 2, no traceback)."""
    done = run_serve("--port", "0", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


def test_a_rotated_key_still_opens_the_shoes_in_play_and_a_wrong_keys_file_is_refused(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    args = ("--demo", "--db", db, "--speed", "20")
    with start_serve(*args) as served:
        before = _played(served, 1)
        assert served.stop() == 0
    keys_file = tmp_path / "b.db.keys"
    old = keyfile.load(keys_file).seal[0]
    assert _keys_cli("--db", db, "rotate", "seal").returncode == 0
    shown = _keys_cli("--db", db, "show").stdout
    assert (
        f"seal {old.key_id}: opens; fingerprint {old.fingerprint}; shoes in play sealed with it: 3"
    ) in shown, shown
    refused = _keys_cli("--db", db, "retire", old.key_id)
    assert refused.returncode == 2 and "3 shoes in play" in refused.stderr

    # A node with none of those keys, or with another key under the same id, refuses to
    # start, and changes nothing: the shoes stay in play, their sealed seeds as they were.
    rows = _shoe_rows(tmp_path / "b.db")
    other = tmp_path / "other.keys"
    keyfile.save(other, keyfile.new_keys())
    said = _refused(*args, "--keys", str(other))
    assert said == (
        f"baccarat serve: the keys file {other} cannot open the sealed seeds of 3 shoes in play "
        f"(key id {old.key_id} not in it); start with the keys file that holds them (a key "
        "lost for good: `baccarat keys lost ID` ends its shoes unrevealed)\n"
    )
    same_id = tmp_path / "same-id.keys"
    impostor = SealKey(old.key_id, bytes(32))
    keyfile.save(same_id, replace(keyfile.new_keys(), seal=(impostor,)))
    said = _refused(*args, "--keys", str(same_id))
    assert f"its key {old.key_id} (fingerprint {impostor.fingerprint}) is not the one" in said
    assert "seal_broken" not in said and "altered" not in said
    assert _shoe_rows(tmp_path / "b.db") == rows

    # ... and the right file deals them on.
    with start_serve(*args) as served:
        again = _played(served, max(s["rounds"] for s in before.values()) + 1)
        assert {t: s["shoe_id"] for t, s in again.items()} == {
            t: s["shoe_id"] for t, s in before.items()
        }
        assert served.stop() == 0


def test_a_gone_tables_shoe_is_revealed_and_an_unsealed_one_ended(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    with start_serve("--demo", "--db", db, "--speed", "20") as served:
        before = _played(served, 1)
        assert served.stop() == 0
    # A shoe begun by a version that did not seal seeds: nobody can deal it on.
    store = open_store(db)
    try:
        store.record_shoe_start("old-shoe", "standard-2", "ab" * 32)
    finally:
        store.close()
    packaged = (Path(keyfile.__file__).parent.parent / "rooms.toml").read_text(encoding="utf-8")
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(packaged.replace('"vip-1", "vip-2"', '"vip-2"'), encoding="utf-8")
    with start_serve("--db", db, "--rooms", str(rooms)) as served:
        gone = _get(f"{served.url}/api/shoes/{before['vip-1']['shoe_id']}")
        assert gone["end_reason"] == "closed" and gone["seed"] is not None
        assert commitment(bytes.fromhex(gone["seed"])) == gone["commitment"]
        lost = _get(f"{served.url}/api/shoes/old-shoe")
        assert (lost["end_reason"], lost["seed"]) == ("unsealed", None)
        assert served.stop() == 0


def test_verify_log_says_in_a_line_why_it_cannot_read_a_log(tmp_path: Path) -> None:
    empty = _verify_log("--db", f"sqlite:///{tmp_path / 'none.db'}", "--public-key", "AAAA")
    assert empty.returncode == 2
    assert empty.stderr.startswith("error: There is no database at ")
    assert "Traceback" not in empty.stderr and len(empty.stderr.splitlines()) == 1
    nobody = _verify_log("--url", "http://127.0.0.1:9/", "--json")
    assert nobody.returncode == 2
    assert json.loads(nobody.stdout)["error"]["code"] == "unreadable_log"
