"""The commitment log's formats and its check: signed heads, leaves, and every way a log can
be rewritten that ``baccarat verify-log`` must catch."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from baccarat import merkle
from baccarat.logbook import Entry, LogSigner, SignedHead, head_signed
from baccarat.logcheck import LoggedShoe, check_log

KEY = LogSigner(b"\x07" * 32)
OTHER = LogSigner(b"\x08" * 32)
KEYS = {KEY.key_id: KEY.public_key}


def _log(n: int, revealed: int = 0) -> list[LoggedShoe]:
    out = []
    for i in range(n):
        seed = hashlib.sha256(f"seed {i}".encode()).digest()
        e = Entry(i, f"shoe{i}", "std-1", hashlib.sha256(seed).hexdigest(), 1_700_000_000_000 + i)
        out.append(
            LoggedShoe(e, merkle.leaf_hash(e.leaf()).hex(), seed.hex() if i < revealed else None)
        )
    return out


def _head(logged: list[LoggedShoe], signer: LogSigner = KEY) -> SignedHead:
    root = merkle.root([bytes.fromhex(x.leaf_hash) for x in logged]).hex()
    return signer.sign(len(logged), 1_800_000_000_000, root)


def test_a_leaf_is_its_entrys_canonical_json() -> None:
    e = Entry(3, "s", "t", "c" * 64, 5)
    assert (
        e.leaf()
        == json.dumps(
            {"commitment": "c" * 64, "index": 3, "logged_at": 5, "shoe_id": "s", "table_id": "t"},
            separators=(",", ":"),
            sort_keys=True,
        ).encode()
    )


def test_a_head_is_signed_over_its_size_time_and_root() -> None:
    head = KEY.sign(4, 99, "ab" * 32)
    assert head_signed(head, KEYS)
    for changed in (
        replace(head, tree_size=5),
        replace(head, timestamp=100),
        replace(head, root_hash="cd" * 32),
    ):
        assert not head_signed(changed, KEYS)
    assert not head_signed(OTHER.sign(4, 99, "ab" * 32), KEYS)
    assert SignedHead.from_json(head.json()) == head


def test_a_whole_log_with_its_revealed_seeds_checks() -> None:
    logged = _log(13, revealed=9)
    report = check_log(_head(logged), logged, KEYS)
    assert report.ok, report.problems
    assert (report.entries, report.seeds) == (13, 9)


def test_a_changed_commitment_is_caught_even_with_its_leaf_hash_recomputed() -> None:
    logged = _log(8)
    head = _head(logged)
    e = replace(logged[5].entry, commitment="0" * 64)
    logged[5] = LoggedShoe(e, merkle.leaf_hash(e.leaf()).hex(), None)
    problems = check_log(head, logged, KEYS).problems
    assert any("not the signed head" in p for p in problems)


def test_a_seed_that_is_not_the_committed_one_is_caught() -> None:
    logged = _log(4, revealed=4)
    logged[2] = replace(logged[2], seed="11" * 32)
    problems = check_log(_head(logged), logged, KEYS).problems
    assert problems == [
        f"Shoe shoe2: its revealed seed does not match its logged commitment "
        f"{logged[2].entry.commitment}."
    ]


def test_a_head_signed_by_an_unpublished_key_is_caught() -> None:
    logged = _log(3)
    assert not check_log(_head(logged, OTHER), logged, KEYS).ok


def test_a_kept_head_proves_a_rewritten_or_shortened_history() -> None:
    logged = _log(10)
    kept = _head(logged[:6])
    assert check_log(_head(logged), logged, KEYS, kept).ok
    # The operator rewrites entry 2 and signs a fresh head over the new history.
    e = replace(logged[2].entry, commitment="f" * 64)
    rewritten = [*logged[:2], LoggedShoe(e, merkle.leaf_hash(e.leaf()).hex(), None), *logged[3:]]
    problems = check_log(_head(rewritten), rewritten, KEYS, kept).problems
    assert any("history was rewritten" in p for p in problems)
    shortened = logged[:4]
    problems = check_log(_head(shortened), shortened, KEYS, kept).problems
    assert any("entries were removed" in p for p in problems)


def test_an_entry_out_of_its_place_is_caught() -> None:
    logged = _log(5)
    swapped = [logged[1], logged[0], *logged[2:]]
    problems = check_log(_head(logged), swapped, KEYS).problems
    assert "Entry 0 says it is entry 1." in problems
