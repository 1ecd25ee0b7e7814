"""Shoe and round records, history, the audit, and voiding after a crash."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat.errors import Conflict, InvalidInput, NotFound
from baccarat.shoe import commitment, new_seed
from baccarat.store import BetRecord, Store, User

NATURAL = ["5S", "5H", "KH", "3C"]  # Player 5S KH = 5, Banker 5H 3C = 8: a natural, Banker wins


def _round(store: Store, users: dict[str, User], rid: str, settle_args: Callable[..., Any]) -> None:
    bets = [
        BetRecord(users["b1"].user_id, "banker", 5, 500, time.time()),
        BetRecord(users["b1"].user_id, "banker_pair", 1, 100, time.time()),
        BetRecord(users["b2"].user_id, "player", 3, 300, time.time()),
    ]
    store.escrow_round(rid, "t1", "s1", 1, users["dealer"].user_id, bets)
    store.settle_round(rid, *settle_args(NATURAL, users["dealer"].user_id, bets))


def test_a_shoe_keeps_its_commitment_and_then_its_seed(store: Store) -> None:
    seed = new_seed()
    store.record_shoe_start("s1", "t1", commitment(seed))
    assert store.get_shoe("s1").seed is None
    store.record_shoe_end("s1", seed.hex())
    shoe = store.get_shoe("s1")
    assert (shoe.commitment, shoe.seed) == (commitment(seed), seed.hex())
    assert shoe.ended_at is not None


def test_a_seed_that_breaks_the_commitment_is_refused(store: Store) -> None:
    store.record_shoe_start("s1", "t1", commitment(new_seed()))
    with pytest.raises(InvalidInput) as err:
        store.record_shoe_end("s1", new_seed().hex())
    assert err.value.code == "seed_mismatch"
    assert store.get_shoe("s1").seed is None


def test_a_shoe_id_cannot_change_its_commitment(store: Store) -> None:
    store.record_shoe_start("s1", "t1", "a" * 64)
    store.record_shoe_start("s1", "t1", "a" * 64)
    with pytest.raises(Conflict):
        store.record_shoe_start("s1", "t1", "b" * 64)


def test_an_unknown_shoe_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        store.get_shoe("nope")


def test_a_round_record_holds_what_recomputes_it(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _round(store, users, "r1", settle_args)
    r = store.get_round("r1")
    assert r.cards == NATURAL and r.outcome is not None and r.outcome["winner"] == "banker"
    assert [(b.user_id, b.area, b.coins) for b in r.bets] == [
        (users["b1"].user_id, "banker", 500),
        (users["b1"].user_id, "banker_pair", 100),
        (users["b2"].user_id, "player", 300),
    ]
    # b1: +500 banker, -100 pair = +400, less 1% = 396; b2: -300; dealer: 300 - 500 = -200.
    assert r.deltas == {
        users["dealer"].user_id: -200,
        users["b1"].user_id: 396,
        users["b2"].user_id: -300,
    }
    assert r.commission == {users["b1"].user_id: 4}
    assert r.house == 104


def test_history_lists_a_users_rounds_newest_first(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    for rid in ("r1", "r2", "r3"):
        _round(store, users, rid, settle_args)
    assert [r.round_id for r in store.history("b2", limit=2)] == ["r3", "r2"]
    assert [r.round_id for r in store.history("dealer")] == ["r3", "r2", "r1"]
    assert store.history("b3") == []


def test_a_users_rounds_come_in_pages_newest_first_with_their_shoes(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    seed = new_seed()
    store.record_shoe_start("s1", "t1", commitment(seed))
    for rid in ("r1", "r2", "r3", "r4", "r5"):
        _round(store, users, rid, settle_args)
    b2 = users["b2"].user_id
    first, shoes = store.user_rounds(b2, limit=2)
    assert [r.round_id for r in first] == ["r5", "r4"]
    assert shoes["s1"].seed is None
    cursor = (first[-1].escrowed_at, first[-1].round_id)
    # A round written meanwhile does not shift the next page.
    _round(store, users, "r6", settle_args)
    second, _ = store.user_rounds(b2, limit=2, before=cursor)
    assert [r.round_id for r in second] == ["r3", "r2"]
    last, _ = store.user_rounds(b2, limit=2, before=(second[-1].escrowed_at, "r2"))
    assert [r.round_id for r in last] == ["r1"]
    store.record_shoe_end("s1", seed.hex())
    assert store.user_rounds(b2, limit=1)[1]["s1"].seed == seed.hex()
    assert store.user_rounds(users["b3"].user_id) == ([], {})
    with pytest.raises(InvalidInput):
        store.user_rounds(b2, limit=0)


def test_a_users_net_since_a_time_sums_their_settled_rounds(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    start = time.time() - 1
    _round(store, users, "r1", settle_args)
    _round(store, users, "r2", settle_args)
    store.escrow_round("r3", "t1", "s1", 3, users["dealer"].user_id, [])
    store.void_round("r3")
    assert store.user_net(users["b1"].user_id, start) == (2 * 396, 2 * 4, 2)
    assert store.user_net(users["dealer"].user_id, start) == (-400, 0, 2)
    assert store.user_net(users["b1"].user_id, time.time() + 60) == (0, 0, 0)


def test_the_audit_passes_a_sound_ledger(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _round(store, users, "r1", settle_args)
    store.escrow_round("r2", "t1", "s1", 2, users["dealer"].user_id, [])
    store.void_round("r2")
    report = store.audit()
    assert (report.ok, report.rounds, report.voided, report.problems) == (True, 2, 1, [])


NATURAL_STORED = (
    '{"player":{"cards":["5S","KH"],"points":5,"pair":false},'
    '"banker":{"cards":["5H","3C"],"points":8,"pair":false},"winner":"banker"}'
)
"""NATURAL's outcome as a database written by earlier versions holds it, byte for byte."""


def test_a_round_stored_in_the_earlier_form_reads_and_audits_the_same(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _round(store, users, "r1", settle_args)
    with store.engine.begin() as conn:
        written = conn.execute(sa.text("SELECT outcome FROM rounds WHERE id = 'r1'")).scalar()
        conn.execute(
            sa.text("UPDATE rounds SET outcome = :o WHERE id = 'r1'"), {"o": NATURAL_STORED}
        )
    # The form written today is the earlier one, and the earlier bytes read as it.
    assert (json.loads(written) if isinstance(written, str) else written) == json.loads(
        NATURAL_STORED
    )
    assert store.get_round("r1").outcome == json.loads(NATURAL_STORED)
    report = store.audit()
    assert (report.ok, report.rounds, report.problems) == (True, 1, [])
    with store.engine.begin() as conn:
        wrong = NATURAL_STORED.replace('"points":8', '"points":9')
        conn.execute(sa.text("UPDATE rounds SET outcome = :o WHERE id = 'r1'"), {"o": wrong})
    assert store.audit().problems == ["round r1: recorded banker points 9, the cards give 8"]


def test_the_audit_finds_a_settlement_that_its_cards_do_not_give(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _round(store, users, "r1", settle_args)
    with store.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE rounds SET cards = :c WHERE id = 'r1'"), {"c": '["5S","5H","4C","KH"]'}
        )
    report = store.audit()
    assert not report.ok
    assert "round r1: recorded winner 'banker', the cards give 'player'" in report.problems


def test_the_audit_finds_a_wallet_its_postings_do_not_explain(
    store: Store, users: dict[str, User]
) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE users SET coins = coins + 1 WHERE id = :id"),
            {"id": users["b3"].user_id},
        )
    report = store.audit()
    assert report.problems == [
        f"wallet user:{users['b3'].user_id} holds 10001 but its postings sum to 10000"
    ]


def test_void_unfinished_returns_every_escrowed_stake(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _round(store, users, "r1", settle_args)
    bets = [BetRecord(users["b3"].user_id, "tie", 2, 200, time.time())]
    store.escrow_round("r2", "t1", "s1", 2, users["dealer"].user_id, bets)
    store.escrow_round("r3", "t1", "s1", 3, users["dealer"].user_id, bets)
    assert not store.audit().ok
    assert store.void_unfinished() == ["r2", "r3"]
    assert store.void_unfinished() == []
    assert store.balance(users["b3"].user_id) == 10_000
    assert store.audit().ok


def test_void_unfinished_can_keep_to_some_tables(store: Store, users: dict[str, User]) -> None:
    bets = [BetRecord(users["b3"].user_id, "tie", 2, 200, time.time())]
    store.escrow_round("r1", "t1", "s1", 1, users["dealer"].user_id, bets)
    store.escrow_round("r2", "t2", "s2", 1, users["dealer"].user_id, bets)
    assert store.void_unfinished(["t2"]) == ["r2"]
    assert store.get_round("r1").status == "escrowed"
