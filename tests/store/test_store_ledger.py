"""The double-entry ledger: escrow at betting close, settlement, voids, idempotency."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat.errors import Conflict, InvalidInput, NotFound, RuleViolation
from baccarat.store import BetRecord, Settle, Store, User
from baccarat.store.audit import IN_PLAY_SECONDS

WORKED = ["9S", "2H", "KH", "3C"]  # Player 9 against Banker 5: the Player hand wins


def _bets(users: dict[str, User]) -> list[BetRecord]:
    now = time.time()
    return [
        BetRecord(users["b1"].user_id, "banker", 2, 200, now),
        BetRecord(users["b2"].user_id, "player", 1, 100, now + 0.5),
    ]


def _escrow(store: Store, users: dict[str, User], rid: str = "r1", bets: Any = None) -> None:
    store.record_shoe_start("s1", "t1", "0" * 64)
    store.escrow_round(
        rid, "t1", "s1", 1, users["dealer"].user_id, _bets(users) if bets is None else bets
    )


def test_escrow_moves_every_stake_into_the_round(store: Store, users: dict[str, User]) -> None:
    _escrow(store, users)
    assert store.balance(users["b1"].user_id) == 9_800
    assert store.balance(users["b2"].user_id) == 9_900
    assert store.total_coins()["escrow"] == 300
    assert store.total_coins()["total"] == 0


def test_escrow_with_a_short_wallet_moves_nothing(store: Store, users: dict[str, User]) -> None:
    bets = [*_bets(users), BetRecord(users["b3"].user_id, "tie", 10, 10_001, time.time())]
    with pytest.raises(RuleViolation) as err:
        _escrow(store, users, bets=bets)
    assert err.value.code == "insufficient_coins"
    assert [store.balance(users[k].user_id) for k in ("b1", "b2", "b3")] == [10_000] * 3
    with pytest.raises(NotFound):
        store.get_round("r1")


def test_the_dealer_cannot_bet(store: Store, users: dict[str, User]) -> None:
    bets = [BetRecord(users["dealer"].user_id, "player", 1, 100, time.time())]
    with pytest.raises(RuleViolation) as err:
        _escrow(store, users, bets=bets)
    assert err.value.code == "dealer_cannot_bet"


def test_settlement_pays_the_worked_example(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _escrow(store, users)
    applied = store.settle_round("r1", *settle_args(WORKED, users["dealer"].user_id, _bets(users)))
    assert applied.balances == {
        users["dealer"].user_id: 100_099,
        users["b1"].user_id: 9_800,
        users["b2"].user_id: 10_099,
    }
    assert store.house_balance() == 2
    assert store.total_coins() == {
        "users": 129_998,
        "house": 2,
        "mint": -130_000,
        "platform": 0,
        "escrow": 0,
        "total": 0,
    }
    assert store.get_round("r1").status == "settled"


def test_a_retried_settlement_pays_nothing_twice(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _escrow(store, users)
    args = settle_args(WORKED, users["dealer"].user_id, _bets(users))
    first = store.settle_round("r1", *args)
    again = store.settle_round("r1", *args)
    assert again.replayed and not first.replayed
    assert again.balances == first.balances
    assert store.house_balance() == 2
    assert store.audit().ok


def test_void_returns_every_stake_exactly_once(store: Store, users: dict[str, User]) -> None:
    _escrow(store, users)
    store.void_round("r1")
    assert store.void_round("r1").replayed
    assert [store.balance(users[k].user_id) for k in ("b1", "b2")] == [10_000, 10_000]
    assert store.total_coins()["escrow"] == 0
    assert store.get_round("r1").status == "voided"


def test_a_settled_round_cannot_be_voided(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _escrow(store, users)
    store.settle_round("r1", *settle_args(WORKED, users["dealer"].user_id, _bets(users)))
    with pytest.raises(Conflict) as err:
        store.void_round("r1")
    assert err.value.code == "round_settled"
    assert store.balance(users["b2"].user_id) == 10_099


def test_a_voided_round_cannot_be_settled(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _escrow(store, users)
    store.void_round("r1")
    with pytest.raises(Conflict) as err:
        store.settle_round("r1", *settle_args(WORKED, users["dealer"].user_id, _bets(users)))
    assert err.value.code == "round_voided"
    assert store.balance(users["dealer"].user_id) == 100_000
    assert store.house_balance() == 0


def test_an_unbalanced_settlement_is_refused(store: Store, users: dict[str, User]) -> None:
    _escrow(store, users)
    with pytest.raises(InvalidInput) as err:
        store.settle_round("r1", WORKED, {}, {users["b2"].user_id: 100}, {}, 0)
    assert err.value.code == "unbalanced_settlement"
    assert store.get_round("r1").status == "escrowed"


def test_a_dealer_who_cannot_pay_is_refused_and_nothing_moves(
    store: Store, users: dict[str, User]
) -> None:
    poor = store.create_user("poor", "pw", coins=50)
    bets = [BetRecord(users["b1"].user_id, "player", 1, 100, time.time())]
    store.record_shoe_start("s1", "t1", "0" * 64)
    store.escrow_round("r1", "t1", "s1", 1, poor.user_id, bets)
    with pytest.raises(RuleViolation) as err:
        store.settle_round("r1", WORKED, {}, {poor.user_id: -100, users["b1"].user_id: 99}, {}, 1)
    assert err.value.code == "insufficient_coins"
    assert store.balance(poor.user_id) == 50
    assert store.total_coins()["escrow"] == 100


def test_a_round_without_bets_is_recorded(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    _escrow(store, users, bets=[])
    store.settle_round("r1", *settle_args(WORKED, users["dealer"].user_id, []))
    record = store.get_round("r1")
    assert record.status == "settled" and record.cards == WORKED and record.bets == []
    assert store.audit().ok


def test_settling_an_unknown_round_is_refused(store: Store, users: dict[str, User]) -> None:
    with pytest.raises(NotFound) as err:
        store.settle_round("nope", WORKED, {}, {}, {}, 0)
    assert err.value.code == "unknown_round"


def test_a_batch_applies_each_round_once_and_rejects_only_the_bad_one(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    dealer = users["dealer"].user_id
    for rid in ("r1", "r2"):
        _escrow(store, users, rid=rid)
    good = Settle("r1", *settle_args(WORKED, dealer, _bets(users)))
    bad = Settle("r2", WORKED, {}, {users["b1"].user_id: 5}, {}, 0)
    again = Settle("r1", *settle_args(WORKED, dealer, _bets(users)))
    outcomes = store.settle_many([good, bad, again])
    assert not isinstance(outcomes[0], Exception) and not outcomes[0].replayed
    assert isinstance(outcomes[1], InvalidInput)
    assert not isinstance(outcomes[2], Exception) and outcomes[2].replayed
    assert store.get_round("r2").status == "escrowed"
    assert store.house_balance() == 2


def test_the_ledger_refuses_updates_and_deletes(store: Store, users: dict[str, User]) -> None:
    _escrow(store, users)
    for sql in ("UPDATE postings SET amount = amount + 1", "DELETE FROM ledger_tx"):
        with pytest.raises(sa.exc.DBAPIError), store.engine.begin() as conn:
            conn.execute(sa.text(sql))
    assert store.audit().problems == ["round r1 is still escrowed: neither settled nor voided"]


def test_a_live_audit_counts_a_fresh_escrow_as_in_play(
    store: Store, users: dict[str, User]
) -> None:
    _escrow(store, users)
    report = store.audit(in_play_seconds=IN_PLAY_SECONDS)
    assert (report.ok, report.in_play, report.problems) == (True, 1, [])
    # The same round escrowed longer ago than any round lasts was left behind.
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE rounds SET escrowed_at = escrowed_at - 601"))
    report = store.audit(in_play_seconds=IN_PLAY_SECONDS)
    assert (report.ok, report.in_play) == (False, 0)
    assert report.problems == ["round r1 is still escrowed: neither settled nor voided"]


def test_the_database_refuses_a_negative_wallet(store: Store, users: dict[str, User]) -> None:
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE users SET coins = -1 WHERE id = :id"), {"id": users["b1"].user_id}
        )
    assert store.balance(users["b1"].user_id) == 10_000


def test_a_retried_escrow_takes_no_stake_twice(store: Store, users: dict[str, User]) -> None:
    _escrow(store, users)
    again = store.escrow_round("r1", "t1", "s1", 1, users["dealer"].user_id, _bets(users))
    assert again.replayed
    assert store.balance(users["b1"].user_id) == 9_800
    assert store.total_coins()["escrow"] == 300


def test_the_audit_finds_a_transaction_that_does_not_sum_to_zero(
    store: Store, users: dict[str, User]
) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO ledger_tx (key, kind, memo, created_at) VALUES ('x', 'grant', '', 0)"
            )
        )
        conn.execute(
            sa.text("INSERT INTO postings (tx_key, wallet, amount) VALUES ('x', 'house', 5)")
        )
    problems = store.audit().problems
    assert problems[:2] == ["ledger transaction x sums to 5, not 0", "the ledger sums to 5, not 0"]
    assert "wallet house holds 0 but its postings sum to 5" in problems
