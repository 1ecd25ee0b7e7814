"""Rounds per second of `baccarat simulate`, at 1 and 2 processes.

python bench/bench_simulate.py [--rounds 20000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from baccarat.simulate import simulate, window_table


def main() -> None:
    """Run the benchmark and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    window_table()  # built once per process; the single-process runs reuse it
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {args.rounds:,} rounds")
    print()
    print("| processes | best time | rounds/s |")
    print("|---|---|---|")
    results = {}
    for processes in (1, 2):
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            tally = simulate(args.rounds, seed=1, processes=processes)
            best = min(best, time.perf_counter() - start)
        results[processes] = tally
        print(f"| {processes} | {best:.2f} s | {args.rounds / best:,.0f} |")
    assert results[1] == results[2], "the counts must not depend on the processes"


if __name__ == "__main__":
    main()
