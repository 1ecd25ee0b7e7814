"""The placement simulated: every node acting on the same leases, step after step, as the
keeper does (``tests/cluster/test_cluster_placement.py`` and ``bench/bench_placement.py``)."""

from __future__ import annotations

from baccarat.cluster.placement import Pins, balance


def settle(
    tables: list[str], nodes: list[str], holders: dict[str, str], pins: Pins | None = None
) -> dict[str, str]:
    """Every node acts on the same leases, step after step, until nothing changes (a table
    in a node's ``later`` is taken one step after it was first seen free, in its ``last``
    two steps after)."""
    holders = {t: n for t, n in holders.items() if n in nodes}
    waiting: dict[str, int] = {}
    for _ in range(50):
        decided = {n: balance(n, tables, nodes, holders, pins) for n in nodes}
        before = dict(holders)
        for d in decided.values():
            for t in d.shed:
                holders.pop(t, None)
        for n, d in decided.items():
            for t in d.take:
                holders.setdefault(t, n)
        for n, d in decided.items():
            for t in d.later:
                if waiting.get(t, 0) >= 1:
                    holders.setdefault(t, n)
        for n, d in decided.items():
            for t in d.last:
                if waiting.get(t, 0) >= 2:
                    holders.setdefault(t, n)
        waiting = {t: waiting.get(t, 0) + 1 for t in tables if t not in holders}
        if holders == before and not waiting:
            return holders
    raise AssertionError("the placement never settled")
