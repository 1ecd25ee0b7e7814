"""The long fault run: a real two-node cluster with bots, faults injected one after another.

    python bench/faults.py --faults 100 [--restarts 5] [--out figures.json]

The same cluster and checks as ``tests/cluster/test_cluster_faults.py`` (``faultkit``): a
PostgreSQL and a Redis of the run's own on free 127.0.0.1 ports, two ``baccarat serve
--redis`` nodes, three bots at each of two tables. The faults cycle through SIGKILL of a
node, SIGSTOP past its lease then SIGCONT, Redis restarting, PostgreSQL restarting and a
node cut off from Redis, each while a table is betting or mid-squeeze, alternating tables
(a frozen node stays frozen until the bots found its table on the other node). After each:
takeover time, rounds voided per table, coins lost, everyone seated again, and for a freeze
how long the bots took to follow. Then ``--restarts`` rolling restarts (each node in turn
stopped by SIGTERM mid-squeeze and started again): rounds voided, coins lost, every seat
kept. With ``--outages`` (``outagekit``), a third table whose bots are the users of a
platform stand-in (the nodes in seamless mode) and a browser page seated at t1 join the
bots, and the shared parts blink under them: PostgreSQL stopped 20 s and 60 s, Redis killed
10 s (back empty), the platform's wallet down 30 s, and a second ``baccarat serve`` started
by mistake on the same database. With ``--failover SECONDS``, the nodes name the run's
PostgreSQL and a streaming standby of it (``pg_basebackup -R``) in one libpq URL, and last of
all the primary stops under the clients and the standby is promoted that many seconds later.
For each: seconds from the part's return until every client is back in its seat and until
the tables play, voids, answers 5xx but 503, what the page showed, tracebacks. After all,
``baccarat audit``. Prints a JSON summary (per fault); exit status 1 if any check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cluster"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from faultkit import FAULTS, PHASES, TABLES, FaultRun
from outagekit import OUTAGES, OutageRun
from outcome import Outcome, summary

from services import own_postgres, own_redis


def main() -> int:
    """Run the faults and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=100, help="how many faults to inject")
    parser.add_argument("--restarts", type=int, default=5, help="rolling restarts after them")
    parser.add_argument("--out", type=Path, help="also write the JSON summary here")
    parser.add_argument("--logs", type=Path, help="keep the run's logs in this folder")
    parser.add_argument(
        "--proxied",
        action="store_true",
        help="the bots know only one public address: the shipped HAProxy file in front",
    )
    parser.add_argument("--nodes", type=int, default=2, choices=(2, 3), help="nodes in the system")
    parser.add_argument(
        "--outages",
        action="store_true",
        help="also keep PostgreSQL, Redis and the platform's wallet down under the clients",
    )
    parser.add_argument(
        "--failover",
        type=float,
        metavar="SECONDS",
        help="last, stop PostgreSQL and promote its streaming standby this long after",
    )
    args = parser.parse_args()
    outcomes: list[Outcome] = []
    restarts: list[dict[str, Any]] = []
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.logs is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
        else:
            args.logs.mkdir(parents=True, exist_ok=True)
            tmp = str(args.logs)
        pg = stack.enter_context(own_postgres())
        redis = stack.enter_context(own_redis())
        standby = pg.standby() if args.failover is not None else None
        if standby is not None:
            stack.callback(standby.close)
        kind = OutageRun if args.outages or standby is not None else FaultRun
        run = kind(Path(tmp), pg, redis, proxied=args.proxied, nodes=args.nodes, standby=standby)
        try:
            run.start()
            for i in range(args.faults):
                fault = FAULTS[i % len(FAULTS)]
                phase = PHASES[(i // len(FAULTS)) % len(PHASES)]
                table = TABLES[(i // (len(FAULTS) * len(PHASES))) % len(TABLES)]
                outcome = run.inject(fault, phase, table)
                outcomes.append(outcome)
                print(json.dumps(outcome.__dict__), flush=True)
            if isinstance(run, OutageRun) and args.outages:
                for part, seconds in OUTAGES:
                    outcomes.append(run.outage(part, seconds))
                    print(json.dumps(outcomes[-1].__dict__), flush=True)
                outcomes.append(run.second_serve())
                print(json.dumps(outcomes[-1].__dict__), flush=True)
            for _ in range(args.restarts):
                rolled = run.rolling_restart()
                restarts.append(rolled)
                print(json.dumps({k: v for k, v in rolled.items() if k != "seats_before"}))
            if isinstance(run, OutageRun) and args.failover is not None:
                outcome = run.failover(args.failover)
                outcomes.append(outcome)
                print(json.dumps(outcome.__dict__), flush=True)
        finally:
            run.close()
        report = run.audit()
    figures = summary(outcomes)
    figures["rolling_restarts"] = {
        "restarts": len(restarts),
        "stop_s": sorted(t for r in restarts for t in r["stop_s"]),
        "rounds_voided": sum(sum(r["voided"].values()) for r in restarts),
        "coins_lost": sum(r["coins_lost"] for r in restarts),
        "seats_moved": sum(r["seats_after"] != r["seats_before"] for r in restarts),
    }
    figures["audit"] = report
    figures["minutes"] = round((time.monotonic() - started) / 60, 1)
    text = json.dumps(figures, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    failed = (
        not report["ok"]
        or any(o.problems or o.coins_lost or not o.seated_again for o in outcomes)
        or any(
            r["voided"] or r["coins_lost"] or r["seats_after"] != r["seats_before"]
            for r in restarts
        )
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
