"""Settled rounds per second through the store, with full durability, on both back ends.

Each round has 7 bettors: an escrow transaction when betting closes and a settlement
transaction after the deal (real cards from real shoes, settled by ``settlement.settle``).
Two ways of writing:

- one at a time: escrow, wait until durable, settle, wait (one table, no batching);
- group commit: 256 tables with a round in flight each; the store's writer thread commits
  whatever has queued up in one transaction.

SQLite runs in WAL mode with ``synchronous=FULL``; PostgreSQL with its default
``fsync=on``/``synchronous_commit=on`` in a scratch database created and dropped here. For
scale, pgbench's simple-update workload (``pgbench -N -T 10 -c 4``) runs on the same server
in its own scratch database. Usage::

    python bench/bench_store.py [--rounds 20000] [--pg postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

import psycopg
from argon2 import PasswordHasher, profiles
from sqlalchemy.engine import make_url

from baccarat.bets import AREAS
from baccarat.cards import Card
from baccarat.rules import deal
from baccarat.settlement import settle
from baccarat.shoe import Shoe
from baccarat.store import Applied, BetRecord, Escrow, Settle, Store, open_store

BETTORS = 7
IN_FLIGHT = 256


def make_rounds(n: int, dealer: int, bettors: list[int], seed: int) -> list[tuple[Escrow, Settle]]:
    """``n`` rounds ready to write: 7 bettors each, real cards, exact settlement."""
    rng = random.Random(seed)
    shoe = Shoe.fresh()
    out = []
    for i in range(n):
        if shoe.remaining < 6:
            shoe = Shoe.fresh()
        drawn: list[str] = []

        def draw(shoe: Shoe = shoe, drawn: list[str] = drawn) -> Card:
            card = shoe.draw()
            drawn.append(str(card))
            return card

        outcome = deal(draw)
        now = time.time()
        bets = []
        stakes: dict[int, dict[str, int]] = {}
        for b in bettors:
            area = rng.choice(AREAS)
            chips = rng.choice((1, 2, 3, 5, 10))
            bets.append(BetRecord(b, area, chips, chips * 100, now))
            stakes[b] = {area: chips * 100}
        result = settle(outcome, dealer, stakes)  # type: ignore[arg-type]
        rid = f"bench-{seed}-{i}"
        out.append(
            (
                Escrow(rid, "bench", "shoe", i % 78 + 1, dealer, tuple(bets)),
                Settle(
                    rid,
                    tuple(drawn),
                    outcome.to_dict(),
                    result.deltas,
                    result.commission,
                    result.house,
                ),
            )
        )
    return out


def setup(store: Store) -> tuple[int, list[int]]:
    """A dealer and 7 bettors with coins enough for any run."""
    dealer = store.create_user("dealer", "pw", coins=10**12).user_id
    bettors = [store.create_user(f"bettor{i}", "pw", coins=10**10).user_id for i in range(BETTORS)]
    return dealer, bettors


def one_at_a_time(store: Store, rounds: list[tuple[Escrow, Settle]]) -> tuple[float, float]:
    """Rounds per second when every transaction waits for its own commit, and the
    process's CPU milliseconds per round (what a server's core pays for its ledger)."""
    start, cpu = time.perf_counter(), time.process_time()
    for escrow, settlement in rounds:
        store.submit(escrow).result()
        store.submit(settlement).result()
    spent = time.process_time() - cpu
    return len(rounds) / (time.perf_counter() - start), 1000 * spent / len(rounds)


def group_commit(store: Store, rounds: list[tuple[Escrow, Settle]]) -> tuple[float, int]:
    """Rounds per second with IN_FLIGHT rounds outstanding; also the commits it took."""
    pending: deque[Future[Applied]] = deque()
    commits = store.commits
    start = time.perf_counter()
    for escrow, settlement in rounds:
        store.submit(escrow)
        pending.append(store.submit(settlement))
        if len(pending) >= IN_FLIGHT:
            pending.popleft().result()
    while pending:
        pending.popleft().result()
    return len(rounds) / (time.perf_counter() - start), store.commits - commits


def run_store(url: str, n: int, slow_n: int) -> dict[str, float]:
    """Both ways of writing on one database; the audit must pass afterwards."""
    store = open_store(url, hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
    try:
        dealer, bettors = setup(store)
        slow, cpu_ms = one_at_a_time(store, make_rounds(slow_n, dealer, bettors, 1))
        fast, commits = group_commit(store, make_rounds(n, dealer, bettors, 2))
        report = store.audit()
        assert report.ok, report.problems[:5]
        return {
            "one_at_a_time": slow,
            "cpu_ms": cpu_ms,
            "group_commit": fast,
            "rounds_per_commit": n / commits,
        }
    finally:
        store.close()


def cpu_by_sharing(url: str, shared: int, n: int) -> float:
    """The process's CPU milliseconds (user and system) per round when ``shared`` rounds'
    escrows share one transaction and their settlements the next."""
    store = open_store(url, hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
    try:
        dealer, bettors = setup(store)
        rounds = make_rounds(n, dealer, bettors, 3)
        before = os.times()
        for i in range(0, n, shared):
            chunk = rounds[i : i + shared]
            store.apply_many([escrow for escrow, _ in chunk])
            store.apply_many([settlement for _, settlement in chunk])
        after = os.times()
        assert store.audit().ok
        spent = (after.user - before.user) + (after.system - before.system)
        return 1000 * spent / n
    finally:
        store.close()


@contextmanager
def scratch_database(pg_url: str, name: str) -> Iterator[str]:
    """A database created for the run and dropped afterwards."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield make_url(pg_url).set(database=name, query={}).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def pgbench(url: str) -> float:
    """pgbench's simple-update rate (tps) with 4 clients for 10 seconds."""
    subprocess.run(["pgbench", "-i", "-q", url], check=True, capture_output=True)
    done = subprocess.run(
        ["pgbench", "-N", "-T", "10", "-c", "4", url], check=True, capture_output=True, text=True
    )
    match = re.search(r"tps = ([\d.]+)", done.stdout)
    assert match, done.stdout
    return float(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--slow-rounds", type=int, default=500)
    parser.add_argument(
        "--pg",
        default=os.environ.get("BACCARAT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    parser.add_argument(
        "--shared",
        default="",
        help="also the CPU per round on SQLite when N,N,... rounds share each transaction",
    )
    args = parser.parse_args()
    if args.shared:
        sizes = [int(k) for k in args.shared.split(",")]
        with tempfile.TemporaryDirectory() as tmp:
            cpu = [
                cpu_by_sharing(f"sqlite:///{Path(tmp) / f'shared{k}.db'}", k, 320) for k in sizes
            ]
        print("| rounds per transaction | " + " | ".join(str(k) for k in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        print(
            "| CPU per round (user + system) | " + " | ".join(f"{c:.2f} ms" for c in cpu) + " |\n"
        )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        r = run_store(f"sqlite:///{Path(tmp) / 'bench.db'}", args.rounds, args.slow_rounds)
        rows.append(("SQLite (WAL, synchronous=FULL)", r))
    with scratch_database(args.pg, f"baccarat_bench_{os.getpid()}") as url:
        r = run_store(url, args.rounds, args.slow_rounds)
        rows.append(("PostgreSQL 15 (fsync on)", r))
    with scratch_database(args.pg, f"pgbench_scratch_{os.getpid()}") as url:
        tps = pgbench(url)
    print(
        "| back end | one at a time | CPU per round, one at a time | group commit | rounds per commit |"
    )
    print("|---|---|---|---|---|")
    for name, r in rows:
        print(
            f"| {name} | {r['one_at_a_time']:,.0f} rounds/s | {r['cpu_ms']:.2f} ms "
            f"| {r['group_commit']:,.0f} rounds/s | {r['rounds_per_commit']:.0f} |"
        )
    print(f"\npgbench -N -T 10 -c 4 on the same server: {tps:,.0f} transactions/s")


if __name__ == "__main__":
    main()
