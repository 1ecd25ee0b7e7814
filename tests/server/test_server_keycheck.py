"""The keys check: a node never ends a shoe in play because of its own keys file. A file that
lacks a shoe's key, or holds another key under its id, is refused at start (one line, exit 2,
nothing in the database changed), and the right file then deals the shoes on; only the right
key failing on an altered sealed seed says ``seal_broken``."""

from __future__ import annotations

import base64
import json
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from baccarat.cli import main
from baccarat.seal import Sealer, SealKey
from baccarat.server import keyfile
from baccarat.server.tables import shoes
from baccarat.server.tables.keycheck import unopened
from baccarat.shoe import commitment
from baccarat.store import ShoeRecord, open_store
from baccarat.store import schema as s
from pgschema import private_schema
from serving import run_serve, start_serve, wait_until

SEED = bytes(range(32))
LOST = SealKey("klost1", b"\x01" * 32)
HELD = SealKey("kheld2", b"\x02" * 32)


def _shoe(shoe_id: str, sealed: str | None) -> ShoeRecord:
    return ShoeRecord(shoe_id, "standard-1", commitment(SEED), None, 0.0, None, sealed)


def _sealed_v1(key: SealKey, shoe_id: str) -> str:
    """Sealed text as written before fingerprints."""
    nonce = b"\x07" * 12
    box = AESGCM(key.key).encrypt(nonce, SEED, b"baccarat shoe seed\x00" + shoe_id.encode())
    return f"v1.{key.key_id}." + base64.urlsafe_b64encode(nonce + box).decode().rstrip("=")


def _altered(sealed: str) -> str:
    return sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]


def test_the_keys_file_is_blamed_for_a_missing_or_another_key_and_the_data_for_an_altered_seed() -> (
    None
):
    other = SealKey(HELD.key_id, b"\x03" * 32)
    shoes = [
        _shoe("a", Sealer([LOST]).seal(SEED, "a")),
        _shoe("b", Sealer([HELD]).seal(SEED, "b")),
        _shoe("c", _altered(Sealer([HELD]).seal(SEED, "c"))),
        _shoe("d", None),
    ]
    found = {
        u.shoe_id: (u.key_id, u.code, u.configuration) for u in unopened(Sealer([HELD]), shoes)
    }
    assert found == {
        "a": ("klost1", "seal_key_missing", True),
        "c": ("kheld2", "seal_broken", False),
    }
    # Another key under the right id opens none of them: the file's fault, not the data's.
    found = {u.shoe_id: u.code for u in unopened(Sealer([other]), shoes)}
    assert found == {"a": "seal_key_missing", "b": "seal_key_mismatch", "c": "seal_key_mismatch"}


def test_a_seed_sealed_before_fingerprints_is_called_altered_only_when_its_key_opens_another() -> (
    None
):
    whole, broken = _sealed_v1(HELD, "a"), _altered(_sealed_v1(HELD, "b"))
    alone = unopened(Sealer([HELD]), [_shoe("b", broken)])
    assert [(u.code, u.configuration) for u in alone] == [("seal_key_mismatch", True)]
    vouched = unopened(Sealer([HELD]), [_shoe("a", whole), _shoe("b", broken)])
    assert [(u.shoe_id, u.code) for u in vouched] == [("b", "seal_broken")]
    impostor = unopened(Sealer([SealKey(HELD.key_id, b"\x03" * 32)]), [_shoe("a", whole)])
    assert [u.code for u in impostor] == ["seal_key_mismatch"]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A real SQLite file, or a private PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'b.db'}"
    else:
        with private_schema("keycheck") as url:
            yield url


def _rows(url: str) -> list[tuple[Any, ...]]:
    store = open_store(url)
    try:
        with store.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.select(s.shoes).order_by(s.shoes.c.id))]
    finally:
        store.close()


def _refused(*args: str) -> str:
    done = run_serve("--port", "0", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def test_a_wrong_keys_file_is_refused_and_the_right_one_deals_the_shoes_on(
    db_url: str, tmp_path: Path
) -> None:
    right = replace(keyfile.new_keys(), seal=(HELD, LOST))
    store = open_store(db_url)
    try:
        sealed = right.sealer.seal(SEED, "in-play")
        store.record_shoe_start("in-play", "standard-1", commitment(SEED), sealed)
        store.record_shoe_start("old", "vip-1", commitment(SEED), Sealer([LOST]).seal(SEED, "old"))
        altered = _altered(right.sealer.seal(SEED, "altered"))
        store.record_shoe_start("altered", "high-1", commitment(SEED), altered)
    finally:
        store.close()
    before = _rows(db_url)
    wrong, same_id, good = (tmp_path / f"{n}.keys" for n in ("wrong", "same-id", "good"))
    keyfile.save(wrong, replace(right, seal=(SealKey("kother3", b"\x04" * 32),)))
    impostor = SealKey(HELD.key_id, b"\x05" * 32)
    keyfile.save(same_id, replace(right, seal=(impostor, LOST)))
    keyfile.save(good, right)

    said = _refused("--db", db_url, "--keys", str(wrong))
    assert said.startswith(
        f"baccarat serve: the keys file {wrong} cannot open the sealed seeds of 3 shoes in play "
        "(key ids kheld2, klost1 not in it); start with the keys file that holds them"
    ), said
    # A node of many is refused the same way, before it reaches Redis.
    redis = ("--redis", "redis://127.0.0.1:6379/0", "--public-url", "http://127.0.0.1:9")
    assert _refused("--db", db_url, "--keys", str(wrong), *redis) == said
    said = _refused("--db", db_url, "--keys", str(same_id))
    assert f"of 2 shoes in play (its key kheld2 (fingerprint {impostor.fingerprint}) is not" in said
    assert "altered" not in said and "seal_broken" not in said
    assert _rows(db_url) == before

    with start_serve("--db", db_url, "--keys", str(good), "--log-format", "json") as served:
        dealt = wait_until(
            lambda: _dealt_on(served.log) >= {"in-play", "old"} and _dealt_on(served.log),
            "the tables to deal their shoes on",
        )
        assert dealt == {"in-play", "old"}
        # Only the right key failing on an altered sealed seed says so, publicly.
        gone = _get(f"{served.url}/api/shoes/altered")
        assert (gone["end_reason"], gone["seed"]) == ("seal_broken", None)
        assert served.stop() == 0
    store = open_store(db_url)
    try:
        kept = store.get_shoe("in-play")
    finally:
        store.close()
    assert kept.ended_at is None and kept.sealed_seed == sealed


def _dealt_on(log: Path) -> set[str]:
    """The shoes the server's JSON log says it dealt on."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return {line["shoe_id"] for line in lines if line["msg"] == "shoe dealt on"}


def test_keys_lost_ends_unrevealed_only_the_shoes_the_file_cannot_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    keys_file = tmp_path / "b.keys"
    keyfile.save(keys_file, replace(keyfile.new_keys(), seal=(HELD,)))
    store = open_store(db)
    try:
        store.record_shoe_start(
            "lost", "standard-1", commitment(SEED), Sealer([LOST]).seal(SEED, "lost")
        )
        store.record_shoe_start(
            "kept", "vip-1", commitment(SEED), Sealer([HELD]).seal(SEED, "kept")
        )
    finally:
        store.close()
    cli = ("keys", "--keys", str(keys_file), "--db", db, "lost")
    assert main([*cli, HELD.key_id]) == 2
    assert "No shoe in play sealed with 'kheld2' fails to open" in capsys.readouterr().err
    assert main([*cli, LOST.key_id]) == 0
    assert capsys.readouterr().out == "1 shoe sealed with klost1 ended unrevealed (key_missing)\n"
    store = open_store(db)
    try:
        lost, kept = store.get_shoe("lost"), store.get_shoe("kept")
    finally:
        store.close()
    assert (lost.end_reason, lost.seed, lost.sealed_seed) == ("key_missing", None, None)
    assert kept.ended_at is None and kept.sealed_seed is not None


def test_a_node_without_the_right_key_leaves_the_shoes_in_play_untouched(db_url: str) -> None:
    store = open_store(db_url)
    try:
        for shoe_id, key in (("a", LOST), ("b", HELD)):
            sealed = Sealer([key]).seal(SEED, shoe_id)
            store.record_shoe_start(shoe_id, "gone-1", commitment(SEED), sealed)
        before = _rows(db_url)
        impostor = replace(keyfile.new_keys(), seal=(SealKey(HELD.key_id, b"\x05" * 32),))
        assert shoes.close_gone_tables(store, impostor, set()) == 2
        assert shoes.close_gone_tables(store, None, set()) == 2
        assert _rows(db_url) == before
        right = replace(keyfile.new_keys(), seal=(HELD, LOST))
        assert shoes.close_gone_tables(store, right, set()) == 2
        ended = [store.get_shoe(shoe_id) for shoe_id in ("a", "b")]
    finally:
        store.close()
    assert [(e.end_reason, e.seed) for e in ended] == [("closed", SEED.hex())] * 2
