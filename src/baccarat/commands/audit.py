"""``baccarat audit``: check the ledger and recompute every settled round.

Exits 0 when everything holds, 1 when a problem is found, 2 when the store cannot be read.
"""

from __future__ import annotations

import argparse
import json

from baccarat.commands.admin import add_db_option, run_with_store
from baccarat.store import Store
from baccarat.store.audit import IN_PLAY_SECONDS

HELP = "check the ledger and recompute every settled round from its cards and bets"
ABOUT = """\
Checks the ledger (every transaction sums to zero, every wallet matches its postings) and
recomputes every round's result and settlement from its cards and bets. With --live, on a
running system, the rounds being dealt count as in play, not as left behind. Exit status
0: everything holds; 1: a problem was found (each is printed); 2: the database cannot be
read."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--db URL``, ``--json`` and ``--live``."""
    add_db_option(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--live",
        action="store_true",
        help="the servers are running: count rounds escrowed in the last "
        f"{IN_PLAY_SECONDS / 60:.0f} minutes as in play, not left behind",
    )


def run(args: argparse.Namespace) -> int:
    """Audit the store and print the report."""

    def audit(store: Store) -> int:
        report = store.audit(in_play_seconds=IN_PLAY_SECONDS if args.live else 0.0)
        if args.json:
            print(json.dumps(report.to_dict()))
        else:
            state = "ok" if report.ok else f"{len(report.problems)} problem(s)"
            why = ", ".join(f"{n} {reason}" for reason, n in sorted(report.void_reasons.items()))
            voided = f"{report.voided} voided" + (f" ({why})" if why else "")
            print(f"audit: {state}; {report.rounds} rounds ({report.in_play} in play), {voided}")
            for problem in report.problems:
                print(f"  - {problem}")
        return 0 if report.ok else 1

    return run_with_store(args, audit, as_json=args.json)
