"""The rollback guard on a real SQLite file and a real PostgreSQL: a database that lacks the
head kept beside the keys file, or whose log does not extend the witnessed checkpoint, is a
restored copy, and none of its shoes in play is dealt on: each ends ``restored``, its seed
revealed; a database that holds them is left alone."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import psycopg
import pytest

from baccarat.server import keyfile
from baccarat.server.kepthead import KeptHead, Witnessed, path_beside
from baccarat.server.tables.rollback import Rollback
from baccarat.shoe import commitment, new_seed
from baccarat.store import Store, open_store
from pgschema import PG_URL, private_schema, with_search_path
from serving import Serve, start_serve, wait_until

KEYS = keyfile.new_keys()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An open store on a temp SQLite file, or on a private PostgreSQL schema."""
    if request.param == "sqlite":
        st = open_store(f"sqlite:///{tmp_path / 'b.db'}")
        yield st
        st.close()
        return
    import psycopg

    try:
        psycopg.connect(PG_URL, connect_timeout=3).close()
    except psycopg.Error:
        pytest.skip(f"PostgreSQL is not reachable at {PG_URL}")
    with private_schema("rb") as url:
        st = open_store(url)
        yield st
        st.close()


def _shoe(store: Store, name: str, table: str) -> bytes:
    seed = new_seed()
    sealed = KEYS.sealer.seal(seed, name)
    store.record_shoe_start(name, table, commitment(seed), sealed, KEYS.signer)
    return seed


def _guard(store: Store, tmp_path: Path) -> Rollback:
    return Rollback(store, KEYS, KeptHead(path_beside(tmp_path / "k.keys"), store.url))


def test_a_database_holding_the_kept_head_deals_its_shoes_on(store: Store, tmp_path: Path) -> None:
    _shoe(store, "s1", "t1")
    guard = _guard(store, tmp_path)
    guard.dealing()
    # The file outlives the process: a node started again reads the same head.
    again = _guard(store, tmp_path)
    assert again.kept.head == guard.kept.head
    assert again.at_start(alone=True) == []
    assert store.get_shoe("s1").ended_at is None


def test_closes_waiting_together_share_one_signed_head(tmp_path: Path) -> None:
    import threading

    store = open_store(f"sqlite:///{tmp_path / 'b.db'}")
    _shoe(store, "s1", "t1")
    guard = _guard(store, tmp_path)
    signed: list[object] = []
    sign = store.sign_log_head

    def counted(signer: Any) -> Any:
        signed.append(signer)
        return sign(signer)

    store.sign_log_head = counted  # type: ignore[method-assign]
    guard.dealing()
    assert len(signed) == 1
    # Three tables close while a head is being signed: one more head holds all their marks.
    with guard._lock:
        waiting = [threading.Thread(target=guard.dealing) for _ in range(3)]
        for t in waiting:
            t.start()
        wait_until(lambda: guard._asked == 4, "the three closes waiting", limit=10)
    for t in waiting:
        t.join(10)
    assert len(signed) == 2
    assert store.holds_log_head(guard.kept.head)
    store.close()


def test_a_database_without_the_kept_head_ends_every_shoe_in_play_restored(
    store: Store, tmp_path: Path
) -> None:
    seeds = {"s1": _shoe(store, "s1", "t1"), "s2": _shoe(store, "s2", "t2")}
    guard = _guard(store, tmp_path)
    live = store.log_head()
    assert live is not None
    # A head the live database signed after the copy was made: the copy does not hold it.
    guard.kept.keep_head(KEYS.signer.sign(live.tree_size, live.timestamp + 5, live.root_hash))
    assert guard.behind() is not None
    assert sorted(guard.at_start(alone=True)) == ["s1", "s2"]
    for name, seed in seeds.items():
        shoe = store.get_shoe(name)
        assert (shoe.end_reason, shoe.seed) == ("restored", seed.hex())
    # The head signed at the discovery is kept: the database is not behind it any more.
    assert guard.behind() is None
    _shoe(store, "s3", "t1")
    assert guard.before_take("t1") == []


def test_one_node_of_many_ends_each_table_s_shoe_as_it_takes_the_table(
    store: Store, tmp_path: Path
) -> None:
    _shoe(store, "s1", "t1")
    _shoe(store, "s2", "t2")
    guard = _guard(store, tmp_path)
    guard.kept.keep_witnessed(Witnessed(5, "00" * 32, "a checkpoint of 5 entries"))
    assert "shorter" in (guard.behind() or "")
    # Other nodes may be dealing the other tables: nothing is ended before it is taken here.
    assert guard.at_start(alone=False) == []
    assert guard.before_take("t2") == ["s2"]
    assert store.get_shoe("s1").ended_at is None
    assert guard.before_take("t1") == ["s1"]
    assert store.get_shoe("s1").end_reason == "restored"


def test_a_log_that_does_not_extend_the_witnessed_checkpoint_is_behind(
    store: Store, tmp_path: Path
) -> None:
    _shoe(store, "s1", "t1")
    _shoe(store, "s2", "t1")
    guard = _guard(store, tmp_path)
    root = store.log_root_at(2)
    assert root is not None
    guard.kept.keep_witnessed(Witnessed(2, root.hex(), "note"))
    assert guard.behind() is None
    guard.kept.keep_witnessed(Witnessed(2, "11" * 32, "note"))
    assert "not the ones the witnesses cosigned" in (guard.behind() or "")


TABLE = "standard-1"


def _deals_on_past(served: Serve, shoe_id: str, mark: int, seen: set[int]) -> None:
    """The table deals a new shoe, and ``shoe_id`` dealt no card from ``mark`` on (where the
    cards ``seen`` by the screens since the copy lie); the server then stops cleanly."""
    newest = wait_until(
        lambda: _get(f"{served.url}/api/shoes?table={TABLE}&limit=1")["shoes"][0],
        "the table's next shoe",
    )
    assert newest["shoe_id"] != shoe_id
    assert all(r["first_card"] < mark for r in _dealt(served.url, shoe_id))
    assert min(seen) >= mark
    assert served.stop() == 0


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def _dealt(url: str, shoe_id: str) -> list[dict[str, Any]]:
    """The rounds of the shoe whose cards were drawn (settled), in dealing order."""
    rounds = _get(f"{url}/api/shoes/{shoe_id}")["rounds"]
    return [r for r in rounds if r["cards"]]


def test_a_server_started_on_a_restored_copy_deals_none_of_the_cards_dealt_since(
    tmp_path: Path,
) -> None:
    db_file = tmp_path / "b.db"
    args = ("--demo", "--db", f"sqlite:///{db_file}", "--speed", "20")
    with start_serve(*args) as served:
        newest = wait_until(
            lambda: _get(f"{served.url}/api/shoes?table={TABLE}&limit=1")["shoes"], "a shoe"
        )
        shoe_id = newest[0]["shoe_id"]
        wait_until(lambda: _dealt(served.url, shoe_id), "a round dealt")
        # The operator's backup, taken while the table deals.
        with sqlite3.connect(db_file) as live, sqlite3.connect(tmp_path / "copy.db") as copy:
            live.backup(copy)
        with contextlib.closing(sqlite3.connect(tmp_path / "copy.db")) as copy:
            (mark,) = copy.execute(
                "SELECT next_card FROM shoes WHERE id = ?", (shoe_id,)
            ).fetchone()
        dealt = wait_until(
            lambda: [r for r in _dealt(served.url, shoe_id) if r["first_card"] >= mark],
            "a round dealt after the copy",
        )
        assert served.stop() == 0
    seen = {p for r in dealt for p in range(r["first_card"], r["first_card"] + len(r["cards"]))}
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_file}{suffix}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "copy.db", db_file)

    with start_serve(*args) as served:
        shoe = _get(f"{served.url}/api/shoes/{shoe_id}")
        assert shoe["end_reason"] == "restored" and shoe["seed"], shoe
        assert "DATABASE RESTORED FROM A COPY" in served.log.read_text()
        # The table deals a new shoe; the restored one deals no card after the copy's mark,
        # where the cards the screens saw since the copy lie.
        _deals_on_past(served, shoe_id, mark, seen)


@contextlib.contextmanager
def _fresh_database() -> Iterator[str]:
    """A URL to a new, empty PostgreSQL database beside the test one, dropped on exit."""
    name = f"restored_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, connect_timeout=3, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}", query=""))
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _one(url: str, sql: str, *params: str) -> list[Any]:
    """The first column of each row ``sql`` reads from the database at ``url``."""
    with psycopg.connect(url) as conn:
        return [row[0] for row in conn.execute(sql, params).fetchall()]


@pytest.mark.postgres
def test_a_server_on_a_postgresql_dump_restored_deals_none_of_the_cards_dealt_since(
    tmp_path: Path,
) -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore are not installed")
    with private_schema("rbdump") as live_url, _fresh_database() as fresh:
        schema = parse_qs(urlsplit(live_url).query)["options"][0].removeprefix("-csearch_path=")
        keys = ("--keys", str(tmp_path / "k.keys"), "--speed", "20", "--demo")
        with start_serve("--db", live_url, *keys) as served:
            newest = wait_until(
                lambda: _get(f"{served.url}/api/shoes?table={TABLE}&limit=1")["shoes"], "a shoe"
            )
            shoe_id = newest[0]["shoe_id"]
            wait_until(lambda: _dealt(served.url, shoe_id), "a round dealt")
            # The operator's backup, taken with pg_dump while the table deals, and restored
            # into a fresh database, where the server is started again (another URL).
            dump = tmp_path / "backup.dump"
            run = {"check": True, "capture_output": True, "timeout": 60}
            subprocess.run(
                ["pg_dump", "--format=custom", f"--schema={schema}", f"--file={dump}", PG_URL],
                **run,
            )
            subprocess.run(["pg_restore", "--no-owner", f"--dbname={fresh}", str(dump)], **run)
            restored = with_search_path(fresh, schema)
            (mark,) = _one(restored, "SELECT next_card FROM shoes WHERE id = %s", shoe_id)
            dealt = wait_until(
                lambda: [r for r in _dealt(served.url, shoe_id) if r["first_card"] >= mark],
                "a round dealt after the dump",
            )
            assert served.stop() == 0
        seen = {p for r in dealt for p in range(r["first_card"], r["first_card"] + len(r["cards"]))}
        in_play = _one(restored, "SELECT id FROM shoes WHERE ended_at IS NULL")
        assert shoe_id in in_play

        with start_serve("--db", restored, *keys) as served:
            # Every shoe in play in the copy ends restored, its seed revealed; none is dealt on.
            for shoe in (_get(f"{served.url}/api/shoes/{s}") for s in in_play):
                assert (shoe["end_reason"], bool(shoe["seed"])) == ("restored", True), shoe
            said = served.log.read_text()
            # (told by the head kept beside the keys, under the log's name: not the URL's)
            assert "DATABASE RESTORED FROM A COPY" in said and "does not hold the log head" in said
            _deals_on_past(served, shoe_id, mark, seen)
