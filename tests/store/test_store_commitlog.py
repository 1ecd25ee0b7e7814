"""The commitment log in the store: appends take their index one at a time, every head is
signed over the root of what came before, proofs check against the heads, the log refuses
to be changed, and a shoe keeps how far it was dealt."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat import merkle
from baccarat.logbook import LogSigner, head_signed
from baccarat.shoe import commitment, shuffled_cards
from baccarat.store import BetRecord, Store, User
from baccarat.store import schema as s

SIGNER = LogSigner(b"\x05" * 32)
KEYS = {SIGNER.key_id: SIGNER.public_key}


def _seed(n: int) -> bytes:
    return n.to_bytes(32, "big")


def _start(store: Store, n: int, table: str = "t1") -> str:
    shoe_id = f"shoe{n}"
    store.record_shoe_start(shoe_id, table, commitment(_seed(n)), f"sealed-{n}", SIGNER)
    return shoe_id


def test_each_shoe_is_appended_and_every_head_is_signed_over_the_log_so_far(store: Store) -> None:
    assert store.log_head() is None
    for n in range(5):
        _start(store, n)
        head = store.log_head()
        assert head is not None and head.tree_size == n + 1 and head_signed(head, KEYS)
    logged = store.log_entries(0, 10)
    assert [e.entry.index for e in logged] == [0, 1, 2, 3, 4]
    leaves = [merkle.leaf_hash(e.entry.leaf()) for e in logged]
    assert [leaf.hex() for leaf in leaves] == [e.leaf_hash for e in logged]
    assert head is not None and merkle.root(leaves).hex() == head.root_hash
    assert store.get_shoe("shoe3").log_index == 3
    assert store.get_shoe("shoe3").sealed_seed == "sealed-3"


def test_a_shoe_recorded_twice_is_logged_once(store: Store) -> None:
    _start(store, 1)
    _start(store, 1)
    head = store.log_head()
    assert head is not None and head.tree_size == 1


def test_appends_from_two_stores_at_once_get_one_index_each(store: Store, second: Store) -> None:
    def append(st: Store, base: int) -> None:
        for n in range(base, base + 10):
            _start(st, n)

    threads = [
        threading.Thread(target=append, args=(store, 0)),
        threading.Thread(target=append, args=(second, 100)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    logged = store.log_entries(0, 100)
    assert sorted(e.entry.index for e in logged) == list(range(20))
    head = store.log_head()
    assert head is not None and head.tree_size == 20
    assert merkle.root([bytes.fromhex(e.leaf_hash) for e in logged]).hex() == head.root_hash


def test_an_inclusion_proof_checks_against_the_head_it_names(store: Store) -> None:
    for n in range(7):
        _start(store, n)
    entry, head, path = store.log_inclusion("shoe4")
    assert head.tree_size == 7
    assert merkle.verify_inclusion(
        4, 7, bytes.fromhex(entry.leaf_hash), path, bytes.fromhex(head.root_hash)
    )
    entry, old, path = store.log_inclusion("shoe4", tree_size=5)
    assert old.tree_size == 5
    assert merkle.verify_inclusion(
        4, 5, bytes.fromhex(entry.leaf_hash), path, bytes.fromhex(old.root_hash)
    )


def test_a_consistency_proof_takes_an_old_head_to_the_new(store: Store) -> None:
    for n in range(9):
        _start(store, n)
    old = store.log_head_of_size(3)
    new = store.log_head()
    assert new is not None
    proof = store.log_consistency(3, 9)
    assert merkle.verify_consistency(
        3, 9, bytes.fromhex(old.root_hash), bytes.fromhex(new.root_hash), proof
    )


@pytest.mark.parametrize("table", ["shoe_log", "log_heads"])
def test_the_log_and_its_heads_refuse_every_update_and_delete(store: Store, table: str) -> None:
    _start(store, 1)
    t = s.metadata.tables[table]
    first = next(iter(t.c))
    for stmt in (sa.update(t).values({first.name: first}), sa.delete(t)):
        with pytest.raises(sa.exc.DatabaseError, match="append-only"), store.engine.begin() as conn:
            conn.execute(stmt)
    assert len(store.log_entries(0, 5)) == 1


def test_a_shoe_keeps_where_its_next_card_is_through_escrow_settlement_and_void(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    shoe_id = _start(store, 1)
    order = [str(c) for c in shuffled_cards(_seed(1))]
    dealer = users["dealer"].user_id
    bets = [BetRecord(users["b1"].user_id, "banker", 2, 200, time.time())]
    store.escrow_round("r1", "t1", shoe_id, 1, dealer, bets, first_card=0)
    # In escrow the round may have shown up to six cards: the shoe is reserved past them.
    assert store.get_shoe(shoe_id).next_card == 6
    cards, *rest = settle_args(order, dealer, bets)
    store.settle_round("r1", cards, *rest)
    assert store.get_shoe(shoe_id).next_card == len(cards)
    store.escrow_round("r2", "t1", shoe_id, 2, dealer, bets, first_card=len(cards))
    store.void_round("r2")
    assert store.get_shoe(shoe_id).next_card == len(cards) + 6
    assert [r.first_card for r in store.shoe_rounds(shoe_id)] == [0, len(cards)]


def test_unended_shoes_are_listed_until_they_end_either_way(store: Store) -> None:
    a, b, c = _start(store, 1), _start(store, 2), _start(store, 3, table="t2")
    assert [x.shoe_id for x in store.unended_shoes("t1")] == [a, b]
    store.record_shoe_end(a, _seed(1).hex(), "dealt")
    store.end_shoe_unrevealed(b, "key_missing")
    assert [x.shoe_id for x in store.unended_shoes()] == [c]
    ended = store.get_shoe(b)
    assert (ended.seed, ended.end_reason, ended.sealed_seed) == (None, "key_missing", None)
    revealed = store.get_shoe(a)
    assert (revealed.seed, revealed.end_reason, revealed.sealed_seed) == (
        _seed(1).hex(),
        "dealt",
        None,
    )


def test_a_head_is_signed_again_once_the_newest_is_a_day_old(store: Store) -> None:
    from baccarat.server import keyfile, loghead

    keys = keyfile.new_keys()
    assert loghead.refresh(store, keys)  # no head yet: the empty log's
    first = store.log_head()
    assert first is not None and first.tree_size == 0 and head_signed(first, keys.log_public_keys)
    assert not loghead.refresh(store, keys)  # a fresh head stands
    assert loghead.refresh(store, keys, max_age=0.0)  # a day later, as it were
    again = store.log_head()
    assert again is not None and again.timestamp >= first.timestamp
