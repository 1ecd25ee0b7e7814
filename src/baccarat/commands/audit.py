"""``baccarat audit``: check the ledger and recompute every settled round.

Exits 0 when everything holds, 1 when a problem is found, 2 when the store cannot be read.
"""

from __future__ import annotations

import argparse
import json

from baccarat.commands.admin import add_db_option, run_with_store
from baccarat.store import Store

HELP = "check the ledger and recompute every settled round from its cards and bets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--db URL`` and ``--json``."""
    add_db_option(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Audit the store and print the report."""

    def audit(store: Store) -> int:
        report = store.audit()
        if args.json:
            print(json.dumps(report.to_dict()))
        else:
            state = "ok" if report.ok else f"{len(report.problems)} problem(s)"
            why = ", ".join(f"{n} {reason}" for reason, n in sorted(report.void_reasons.items()))
            voided = f"{report.voided} voided" + (f" ({why})" if why else "")
            print(f"audit: {state}; {report.rounds} rounds, {voided}")
            for problem in report.problems:
                print(f"  - {problem}")
        return 0 if report.ok else 1

    return run_with_store(args, audit, as_json=args.json)
