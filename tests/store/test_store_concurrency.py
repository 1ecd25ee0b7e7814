"""Races between writers: two stores (two connection pools, two writer threads) at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from baccarat.errors import BaccaratError
from baccarat.store import Applied, BetRecord, Escrow, Settle, Store, schema
from baccarat.store.writer import Writer

PLAYER_WINS = ["9S", "2H", "KH", "3C"]
RACES = 4


def _race(*calls: Callable[[], Applied]) -> list[Applied | BaccaratError]:
    """Run the calls at the same moment from separate threads."""
    barrier = threading.Barrier(len(calls))
    out: list[Applied | BaccaratError | None] = [None] * len(calls)

    def go(i: int) -> None:
        barrier.wait()
        try:
            out[i] = calls[i]()
        except BaccaratError as err:
            out[i] = err

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o is not None for o in out)
    return [o for o in out if o is not None]


def test_two_settlements_racing_on_one_dealer_wallet_never_overdraw_it(
    store: Store, second: Store, settle_args: Callable[..., Any]
) -> None:
    for n in range(RACES):
        dealer = store.create_user(f"dealer{n}", "pw", coins=150)
        bettor = store.create_user(f"bettor{n}", "pw", coins=1_000)
        bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
        args = settle_args(PLAYER_WINS, dealer.user_id, bets)
        for rid in (f"a{n}", f"b{n}"):
            store.escrow_round(rid, "t1", "s1", 1, dealer.user_id, bets)
        results = _race(
            lambda n=n, args=args: store.settle_round(f"a{n}", *args),
            lambda n=n, args=args: second.settle_round(f"b{n}", *args),
        )
        codes = sorted(r.code if isinstance(r, BaccaratError) else "settled" for r in results)
        assert codes == ["insufficient_coins", "settled"]
        assert store.balance(dealer.user_id) == 50
    store.void_unfinished()
    assert store.audit().ok


def test_the_same_settlement_from_two_writers_pays_once(
    store: Store, second: Store, settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=10_000)
    bettor = store.create_user("bettor", "pw", coins=10_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    args = settle_args(PLAYER_WINS, dealer.user_id, bets)
    for n in range(RACES):
        store.escrow_round(f"r{n}", "t1", "s1", n, dealer.user_id, bets)
        results = _race(
            lambda n=n: store.settle_round(f"r{n}", *args),
            lambda n=n: second.settle_round(f"r{n}", *args),
        )
        assert sorted(isinstance(r, Applied) and r.replayed for r in results) == [False, True]
    assert store.balance(bettor.user_id) == 10_000 + RACES * 99
    assert store.house_balance() == RACES  # 1% of each bettor's 100 win
    assert store.audit().ok


def test_a_void_racing_a_settlement_leaves_exactly_one_of_them(
    store: Store, second: Store, settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=10_000)
    bettor = store.create_user("bettor", "pw", coins=10_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    args = settle_args(PLAYER_WINS, dealer.user_id, bets)
    for n in range(RACES):
        store.escrow_round(f"r{n}", "t1", "s1", n, dealer.user_id, bets)
        results = _race(
            lambda n=n: store.settle_round(f"r{n}", *args),
            lambda n=n: second.void_round(f"r{n}"),
        )
        failed = [r for r in results if isinstance(r, BaccaratError)]
        assert len(failed) == 1 and failed[0].code in ("round_settled", "round_voided")
    report = store.audit()
    assert report.ok and report.rounds == RACES


def test_many_threads_settling_at_once_each_settle_once(
    store: Store, settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=1_000_000)
    bettors = [store.create_user(f"b{i}", "pw", coins=100_000) for i in range(7)]
    rounds = 40
    for n in range(rounds):
        bets = [BetRecord(b.user_id, "player", 1, 100, time.time()) for b in bettors]
        store.escrow_round(f"r{n}", "t1", "s1", n, dealer.user_id, bets)
    args = settle_args(PLAYER_WINS, dealer.user_id, bets)
    _race(*[lambda n=n: store.settle_round(f"r{n}", *args) for n in range(rounds)])
    assert store.balance(dealer.user_id) == 1_000_000 - rounds * 700
    assert store.audit().ok


def test_settlements_queued_behind_a_busy_database_share_one_commit(
    store: Store, settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=1_000_000)
    bettor = store.create_user("bettor", "pw", coins=100_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    rounds = 20
    for n in range(rounds):
        store.escrow_round(f"r{n}", "t1", "s1", n, dealer.user_id, bets)
    args = settle_args(PLAYER_WINS, dealer.user_id, bets)
    before = store.commits
    with store.engine.begin() as blocker:
        # Another writer holds the dealer's wallet (SQLite: the whole database) meanwhile.
        blocker.execute(
            sa.select(schema.users.c.id)
            .where(schema.users.c.id == dealer.user_id)
            .with_for_update()
        )
        futures = [store.submit(Settle(f"r{n}", *args)) for n in range(rounds)]
    assert all(not f.result().replayed for f in futures)
    # The first settlement may have been taken alone before the rest queued up behind it.
    assert store.commits - before in (1, 2)
    assert store.balance(bettor.user_id) == 100_000 + rounds * 99


def test_a_cancelled_wait_still_applies_and_the_writer_goes_on(
    store: Store, settle_args: Callable[..., Any]
) -> None:
    dealer = store.create_user("dealer", "pw", coins=10_000)
    bettor = store.create_user("bettor", "pw", coins=10_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    args = settle_args(PLAYER_WINS, dealer.user_id, bets)
    for n in range(2):
        store.escrow_round(f"r{n}", "t1", "s1", n, dealer.user_id, bets)
    with store.engine.begin() as blocker:
        blocker.execute(
            sa.select(schema.users.c.id)
            .where(schema.users.c.id == dealer.user_id)
            .with_for_update()
        )
        store.submit(Settle("r0", *args)).cancel()
    # A dead writer would never answer: wait a minute at most rather than hang the suite.
    assert not store.submit(Settle("r1", *args)).result(timeout=60).replayed
    assert store.settle_round("r0", *args).replayed
    assert store.balance(bettor.user_id) == 10_000 + 2 * 99


def _escrows(store: Store, rounds: int) -> tuple[int, list[Escrow]]:
    """A bettor, and the escrows of ``rounds`` rounds with one bet of 100 of theirs each."""
    dealer = store.create_user("streamdealer", "pw", coins=1_000_000)
    bettor = store.create_user("streambettor", "pw", coins=1_000_000)
    bets = [BetRecord(bettor.user_id, "player", 1, 100, time.time())]
    ops = [Escrow(f"s{n}", "t1", "s1", n, dealer.user_id, bets) for n in range(rounds)]
    return bettor.user_id, ops


def test_a_steady_stream_of_single_writes_shares_commits_once_the_writer_is_busy(
    store: Store,
) -> None:
    # Writes arrive one by one, 5 ms apart, none waiting for the one before, as from many
    # tables each writing a few times a round; the first few at once, so that the writer
    # sees writers overlap. Without gathering, nearly one commit each.
    bettor, ops = _escrows(store, 200)
    before = store.commits
    futures = [store.submit(op) for op in ops[:3]]
    for op in ops[3:]:
        time.sleep(0.005)
        futures.append(store.submit(op))
    assert all(not f.result(timeout=60).replayed for f in futures)
    assert store.commits - before < len(ops) // 3
    assert store.balance(bettor) == 1_000_000 - len(ops) * 100


def test_a_writer_waits_for_more_writes_only_while_it_is_busy(store: Store) -> None:
    writer = Writer(store.engine, gather=0.04)
    # Quiet: a write now and then commits at once.
    for t in (0.0, 0.5, 1.0):
        assert writer._gather_plan(t) == (t, 0.0)
        writer._count(t, 1)
    # One caller writing fast, each write waited for: nobody else to wait for.
    t = 2.0
    for _ in range(50):
        assert writer._gather_plan(t) == (t, 0.0)
        writer._count(t, 1)
        t += 0.01
    # Busy, and writers that overlap: 52 writes in the last second, some together. The
    # writer waits up to 40 ms, but no longer than twice the recent gap for the next one.
    writer._count(t, 2)
    until, patience = writer._gather_plan(t)
    assert until == t + 0.04
    assert patience == pytest.approx(2 / 52)
    # Quiet again a second later: the old batches no longer count.
    assert writer._gather_plan(t + 1.5) == (t + 1.5, 0.0)
