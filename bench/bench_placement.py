"""Placement simulated: 100 nodes x 1,000 tables, each node deciding as the keeper does.

Every step, each live node reads the same leases and applies ``placement.balance``: it hands
over its excess, leases the free tables it is first in line for, and, one step later, those
still free. The simulation runs to a steady state, then a node joins (or one leaves) and it
runs again. Prints the spread (tables per node) and the tables moved per join and per leave
against 1/N, the least any scheme moves. Run:
``python bench/bench_placement.py [--nodes 100] [--tables 1000] [--trials 20]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))

from placing import settle


def spread(holders: dict[str, str], nodes: list[str]) -> tuple[int, int]:
    counts = Counter(holders.values())
    per = [counts.get(n, 0) for n in nodes]
    return min(per), max(per)


def moved(a: dict[str, str], b: dict[str, str]) -> int:
    return sum(a.get(t) != b.get(t) for t in set(a) | set(b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(7)
    tables = [f"table-{i}" for i in range(args.tables)]
    nodes = [f"node-{i}" for i in range(args.nodes)]
    base = settle(tables, nodes, {})
    low, high = spread(base, nodes)
    print(f"{args.nodes} nodes x {args.tables} tables ({args.tables / args.nodes:.1f} even):")
    print(f"  tables per node: fewest {low}, most {high}")
    joins, leaves, spreads, takers = [], [], [], []
    for trial in range(args.trials):
        grown = [*nodes, f"new-{trial}"]
        joined = settle(tables, grown, base)
        joins.append(moved(base, joined))
        spreads.append(spread(joined, grown))
        gone = rng.choice(nodes)
        shrunk = [n for n in nodes if n != gone]
        left = settle(tables, shrunk, base)
        leaves.append(moved(base, left))
        spreads.append(spread(left, shrunk))
        takers.append(len({left[t] for t in tables if base[t] == gone}))
    print(
        f"  a join moves {statistics.mean(joins):.1f} tables on average, at most {max(joins)} "
        f"(1/(N+1) of them is {args.tables / (args.nodes + 1):.1f})"
    )
    print(
        f"  a leave moves {statistics.mean(leaves):.1f} tables on average, at most "
        f"{max(leaves)} (1/N is {args.tables / args.nodes:.1f}), to "
        f"{statistics.mean(takers):.1f} different nodes"
    )
    print(
        f"  after each: fewest..most per node {min(s[0] for s in spreads)}..{max(s[1] for s in spreads)}"
    )
    small = [f"t{i}" for i in range(8)]
    for n in (2, 3, 4):
        ns = [f"n{i}" for i in range(n)]
        held = settle(small, ns, {t: "n0" for t in small})
        print(
            f"  8 tables, all on one node, then {n} nodes: {sorted(Counter(held.values()).values())}"
        )


if __name__ == "__main__":
    main()
