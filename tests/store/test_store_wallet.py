"""The seamless wallet's calls in the store, on SQLite and PostgreSQL: a debit the platform
took brings its coins in for the round, a landed round gives them back once (credits when it
settled, rollbacks when it was voided or never reached the ledger), a debit not taken owes
its rollback and moves nothing; the audit checks every call's coins."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from baccarat.store import BetRecord, Store
from baccarat.store.platform import Launched
from baccarat.store.wallet import CLOSED, CREDIT, DONE, FAILED, PENDING, ROLLBACK

CARDS = ["9S", "2H", "KH", "3C"]  # Player 9, Banker 5: Player wins


def _launch(store: Store, who: str) -> int:
    launched = Launched(who, who, 60, f"jti-{who}-{time.time()}", time.time() + 60)
    return store.launch(launched).user_id


def _debited(store: Store, round_id: str, user_id: int, amount: int) -> None:
    call = store.wallet_debit(round_id, user_id, amount)
    assert call.state == PENDING
    taken = store.wallet_answer(call.call_id, 200, '{"balance": 1}', ok=True)
    assert taken.state == DONE


def _escrow(store: Store, round_id: str, dealer: int, bettor: int) -> list[BetRecord]:
    store.record_shoe_start("s1", "t1", "0" * 64)
    bets = [BetRecord(bettor, "player", 10, 1_000, time.time())]
    store.escrow_round(round_id, "t1", "s1", 1, dealer, bets)
    return bets


def test_a_settled_round_credits_what_it_left_each_user_once(
    store: Store, settle_args: Callable[..., Any]
) -> None:
    bettor, dealer = _launch(store, "u1001"), _launch(store, "u1002")
    _debited(store, "r1", bettor, 1_000)
    _debited(store, "r1", dealer, 1_000)  # the cover of a Player 1,000
    assert store.balance(bettor) == store.balance(dealer) == 1_000
    bets = _escrow(store, "r1", dealer, bettor)
    args = settle_args(CARDS, dealer, bets)
    store.settle_round("r1", *args)
    deltas = args[2]
    with ThreadPoolExecutor(4) as pool:
        closed = list(pool.map(lambda _: store.wallet_close("r1"), range(4)))
    [credits] = [c for c in closed if c]
    assert sorted((c.user_id, c.kind, c.amount) for c in credits) == sorted(
        [(bettor, CREDIT, 1_000 + deltas[bettor]), (dealer, CREDIT, 1_000 + deltas[dealer])]
    )
    assert store.balance(bettor) == store.balance(dealer) == 0
    assert {c.state for c in store.wallet_calls_of("r1") if c.kind == "debit"} == {CLOSED}
    assert store.wallet_unfinished(0.0) == []
    for c in credits:
        assert store.wallet_answer(c.call_id, 200, "{}", ok=True).state == DONE
    assert store.wallet_pending() == []
    report = store.audit()
    assert report.ok, report.problems


def test_a_debit_not_taken_moves_nothing_and_owes_its_rollback(store: Store) -> None:
    bettor = _launch(store, "u1001")
    call = store.wallet_debit("r1", bettor, 1_000)
    assert store.wallet_debit("r1", bettor, 1_000) == call  # asked once a round
    failed = store.wallet_answer(call.call_id, 0, "no answer: TimeoutError", ok=False)
    assert failed.state == FAILED and store.balance(bettor) == 0
    # A late yes changes nothing: the game has given up on it.
    assert store.wallet_answer(call.call_id, 200, "{}", ok=True).state == FAILED
    [owed] = store.wallet_pending()
    assert (owed.kind, owed.refers_to, owed.amount) == (ROLLBACK, call.call_id, 1_000)
    assert store.wallet_answer(owed.call_id, 500, "down", ok=False).state == PENDING
    assert store.wallet_answer(owed.call_id, 200, "{}", ok=True).state == DONE
    assert store.balance(bettor) == 0
    report = store.audit()
    assert report.ok, report.problems


def test_a_round_voided_or_never_escrowed_rolls_every_debit_back(store: Store) -> None:
    bettor, dealer = _launch(store, "u1001"), _launch(store, "u1002")
    # r1 reached the ledger; its node stopped; the next node voided it.
    _debited(store, "r1", bettor, 1_000)
    _debited(store, "r1", dealer, 1_000)
    _escrow(store, "r1", dealer, bettor)
    assert store.void_unfinished() == ["r1"]
    # r2's node stopped between the debit and the escrow.
    _debited(store, "r2", bettor, 500)
    assert store.wallet_unfinished(older_than=3600.0) == ["r1"]  # r2 may still be escrowed
    assert store.wallet_unfinished(older_than=0.0) == ["r1", "r2"]
    for round_id in ("r1", "r2"):
        back = store.wallet_give_back(round_id)
        assert {c.kind for c in back} == {ROLLBACK}
    assert sorted(c.amount for c in store.wallet_pending()) == [500, 1_000, 1_000]
    assert store.balance(bettor) == store.balance(dealer) == 0
    assert store.wallet_unfinished(0.0) == []
    report = store.audit()
    assert report.ok, report.problems
