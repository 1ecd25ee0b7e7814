"""The long fault run: a real two-node cluster with bots, faults injected one after another.

    python bench/faults.py --faults 100 [--out figures.json]

The same cluster and checks as ``tests/cluster/test_cluster_faults.py`` (``faultkit``): a
PostgreSQL and a Redis of the run's own on free 127.0.0.1 ports, two ``baccarat serve
--redis`` nodes, three bots at each of two tables. The faults cycle through SIGKILL of a
node, SIGSTOP past its lease then SIGCONT, Redis restarting, PostgreSQL restarting and a
node cut off from Redis, each while a table is betting or mid-squeeze, alternating tables.
After each: takeover time, rounds voided per table, coins lost, everyone seated again;
after all, ``baccarat audit``. Prints a JSON summary (per fault); exit status 1 if any
check failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from faultkit import FAULTS, PHASES, TABLES, FaultRun, Outcome, summary

from services import own_postgres, own_redis


def main() -> int:
    """Run the faults and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=100, help="how many faults to inject")
    parser.add_argument("--out", type=Path, help="also write the JSON summary here")
    args = parser.parse_args()
    outcomes: list[Outcome] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, own_postgres() as pg, own_redis() as redis:
        run = FaultRun(Path(tmp), pg, redis)
        try:
            run.start()
            for i in range(args.faults):
                fault = FAULTS[i % len(FAULTS)]
                phase = PHASES[(i // len(FAULTS)) % len(PHASES)]
                table = TABLES[(i // (len(FAULTS) * len(PHASES))) % len(TABLES)]
                outcome = run.inject(fault, phase, table)
                outcomes.append(outcome)
                print(json.dumps(outcome.__dict__), flush=True)
        finally:
            run.close()
        report = run.audit()
    figures = summary(outcomes)
    figures["audit"] = report
    figures["minutes"] = round((time.monotonic() - started) / 60, 1)
    text = json.dumps(figures, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    failed = not report["ok"] or any(
        o.problems or o.coins_lost or not o.seated_again for o in outcomes
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
