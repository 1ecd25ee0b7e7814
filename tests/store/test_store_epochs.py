"""Table epochs: only the holder of a table's current epoch moves that table's coins."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat.errors import BaccaratError, Conflict
from baccarat.store import BetRecord, Store, User, epochs

PLAYER_WINS = ["9S", "2H", "KH", "3C"]


def _bets(users: dict[str, User]) -> list[BetRecord]:
    return [
        BetRecord(users["b1"].user_id, "banker", 5, 500, time.time()),
        BetRecord(users["b2"].user_id, "tie", 1, 100, time.time()),
    ]


def _wallets(store: Store, users: dict[str, User]) -> dict[str, int]:
    return {name: store.balance(u.user_id) for name, u in users.items()}


def test_a_table_never_taken_is_at_epoch_zero_and_each_takeover_raises_it(store: Store) -> None:
    assert store.epoch_of("t1") == 0
    assert store.take_table("t1", "node-a").epoch == 1
    assert store.take_table("t1", "node-b").epoch == 2
    assert store.epoch_of("t1") == 2
    assert store.epoch_of("t2") == 0


def test_an_escrow_of_a_stale_epoch_is_refused_and_moves_nothing(
    store: Store, users: dict[str, User]
) -> None:
    old = store.take_table("t1", "node-a").epoch
    store.take_table("t1", "node-b")
    before = _wallets(store, users)
    with pytest.raises(Conflict) as err:
        store.escrow_round("r1", "t1", "s1", 1, users["dealer"].user_id, _bets(users), epoch=old)
    assert err.value.code == "stale_epoch"
    assert err.value.details == {"table_id": "t1", "epoch": old + 1}
    assert _wallets(store, users) == before
    with pytest.raises(BaccaratError):
        store.get_round("r1")
    assert store.total_coins()["escrow"] == 0


def test_the_current_epoch_escrows_and_settles(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    epoch = store.take_table("t1", "node-a").epoch
    bets = _bets(users)
    store.escrow_round("r1", "t1", "s1", 1, users["dealer"].user_id, bets, epoch=epoch)
    args = settle_args(PLAYER_WINS, users["dealer"].user_id, bets)
    store.settle_round("r1", *args, epoch=epoch)
    assert store.get_round("r1").status == "settled"
    assert store.audit().ok


def test_takeover_voids_the_tables_unfinished_rounds_and_the_old_epoch_can_neither_settle_nor_void(
    store: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    before = _wallets(store, users)
    old = store.take_table("t1", "node-a").epoch
    other = store.take_table("t2", "node-a").epoch
    bets = _bets(users)
    dealer = users["dealer"].user_id
    store.escrow_round("r1", "t1", "s1", 1, dealer, bets, epoch=old)
    store.escrow_round("r2", "t2", "s2", 1, dealer, bets, epoch=other)

    taken = store.take_table("t1", "node-b")
    assert (taken.epoch, taken.voided) == (old + 1, ["r1"])
    assert store.get_round("r1").status == "voided"
    assert store.get_round("r2").status == "escrowed"  # another table's round is not touched

    with pytest.raises(Conflict) as settled:
        store.settle_round("r1", *settle_args(PLAYER_WINS, dealer, bets), epoch=old)
    assert settled.value.code == "stale_epoch"
    # The old node, woken, voids the round the new owner voided: it is told it lost the
    # table, not that its void was replayed (it did not void it, and must not report it).
    with pytest.raises(Conflict) as late:
        store.void_round("r1", epoch=old)
    assert late.value.code == "stale_epoch"
    # The new owner's own retry of a void is a replay.
    assert store.void_round("r1", epoch=taken.epoch).replayed
    store.escrow_round("r3", "t1", "s1", 2, dealer, bets, epoch=taken.epoch)
    after_escrow = _wallets(store, users)
    for stale in (
        lambda: store.settle_round("r3", *settle_args(PLAYER_WINS, dealer, bets), epoch=old),
        lambda: store.void_round("r3", epoch=old),
    ):
        with pytest.raises(Conflict) as err:
            stale()
        assert err.value.code == "stale_epoch"
        assert _wallets(store, users) == after_escrow
        assert store.get_round("r3").status == "escrowed"
    store.void_round("r3", epoch=taken.epoch)
    store.void_round("r2", epoch=other)
    assert _wallets(store, users) == before
    assert store.audit().ok


def test_renewing_an_epoch_works_only_while_nobody_took_the_table(store: Store) -> None:
    epoch = store.take_table("t1", "node-a").epoch
    assert store.renew_epoch("t1", "node-a", epoch) == epoch + 1
    assert store.renew_epoch("t1", "node-a", epoch) is None  # a second time: epoch moved on
    taken = store.take_table("t1", "node-b").epoch
    assert store.renew_epoch("t1", "node-a", epoch + 1) is None
    assert store.epoch_of("t1") == taken


def test_renewing_an_epoch_voids_nothing(store: Store, users: dict[str, User]) -> None:
    epoch = store.take_table("t1", "node-a").epoch
    store.escrow_round("r1", "t1", "s1", 1, users["dealer"].user_id, _bets(users), epoch=epoch)
    renewed = store.renew_epoch("t1", "node-a", epoch)
    assert renewed is not None
    assert store.get_round("r1").status == "escrowed"
    store.void_round("r1", epoch=renewed)
    assert store.audit().ok


def test_the_seats_written_under_an_epoch_come_back_with_the_next_takeover(store: Store) -> None:
    epoch = store.take_table("t1", "node-a").epoch
    assert store.take_table("t1", "node-a").seats == {}
    epoch += 1
    assert store.save_seats("t1", epoch, {0: 7, 3: 9})
    assert not store.save_seats("t1", epoch - 1, {1: 5})  # a stale writer changes nothing
    assert store.take_table("t1", "node-b").seats == {0: 7, 3: 9}


def _race(settle: Callable[[], Any], take: Callable[[], list[str]]) -> tuple[str, list[str]]:
    """Settle and take over at the same moment; (the settlement's outcome, rounds voided)."""
    barrier = threading.Barrier(2)
    outcome: dict[str, Any] = {}

    def settling() -> None:
        barrier.wait()
        try:
            settle()
            outcome["settle"] = "settled"
        except BaccaratError as err:
            outcome["settle"] = err.code

    def taking() -> None:
        barrier.wait()
        outcome["voided"] = take()

    threads = [threading.Thread(target=settling), threading.Thread(target=taking)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcome["settle"], outcome["voided"]


def test_a_stale_settlement_racing_a_takeover_either_settles_or_is_voided_never_both(
    store: Store, second: Store, users: dict[str, User], settle_args: Callable[..., Any]
) -> None:
    dealer = users["dealer"].user_id
    bets = _bets(users)
    args = settle_args(PLAYER_WINS, dealer, bets)
    for n in range(6):
        epoch = store.take_table("t1", "node-a").epoch
        rid = f"r{n}"
        store.escrow_round(rid, "t1", "s1", n, dealer, bets, epoch=epoch)
        settled, voided = _race(
            lambda rid=rid, epoch=epoch: store.settle_round(rid, *args, epoch=epoch),
            lambda: second.take_table("t1", "node-b").voided,
        )
        status = store.get_round(rid).status
        if settled == "settled":
            assert (status, voided) == ("settled", [])
        else:
            assert (settled, status, voided) == ("stale_epoch", "voided", [rid])
    report = store.audit()
    assert report.ok, report.problems
    assert store.total_coins()["total"] == 0


def test_a_writer_frozen_inside_its_transaction_does_not_block_a_takeover_for_ever(
    store: Store, second: Store
) -> None:
    if store.backend != "postgresql":
        pytest.skip("SQLite has one writer at a time; a frozen one holds the whole file")
    epoch = store.take_table("t1", "node-a").epoch
    frozen = store.engine.connect()
    tx = frozen.begin()
    # As a node's writer does first: lock the table's epoch for its batch. Then it freezes.
    assert epochs.current(frozen, ["t1"], lock=True) == {"t1": epoch}
    taken = second.take_table("t1", "node-b")  # waits until the server ends the idle session
    assert taken.epoch == epoch + 1
    with pytest.raises(sa.exc.DBAPIError):
        tx.commit()
    frozen.close()
