"""``baccarat simulate``: play many rounds through shuffled 8-deck shoes and count them.

The shuffle here is NumPy's PCG64, seeded from ``--seed``: a statistics tool, not a table
(real tables use the provably fair shoe). The same seed and round count give the same
counts whatever ``--processes`` is.
"""

from __future__ import annotations

import argparse
import json
import secrets
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from baccarat.bets import AREA_NAMES, Area
from baccarat.odds import ODDS_KEYS, exact_odds
from baccarat.shoe import DECKS
from baccarat.simulate import Tally, simulate

HELP = "play N rounds through shuffled 8-deck shoes and compare the counts with the exact odds"
ABOUT = """\
The shuffle here is NumPy's PCG64 seeded from --seed: a statistics tool, not a table (the
tables use the provably fair shoe). The same seed and round count give the same counts
whatever --processes is."""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _seed(text: str) -> int:
    value = int(text, 0)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--rounds", type=_positive, required=True, help="rounds to play")
    parser.add_argument("--seed", type=_seed, help="seed of the run (default: a fresh random one)")
    parser.add_argument("--processes", type=_positive, default=1, help="worker processes")
    parser.add_argument("--json", action="store_true", help="print JSON, no progress bar")


def _render(tally: Tally, exact: dict[Area, float], seed: int, rate: float) -> Table:
    table = Table(
        title=f"{tally.rounds:,} simulated rounds, seed {seed} ({rate:,.0f} rounds/s)",
        caption="Exact: fresh-shoe enumeration, from `baccarat odds`.",
    )
    table.add_column("area")
    table.add_column("wins", justify="right")
    table.add_column("observed", justify="right")
    table.add_column("exact", justify="right")
    observed = tally.observed()
    for area in ODDS_KEYS:
        table.add_row(
            AREA_NAMES[area],
            f"{tally.counts[area]:,}",
            f"{observed[area]:.5%}",
            f"{exact[area]:.5%}",
        )
    return table


def run(args: argparse.Namespace) -> int:
    """Play the rounds and print the counts."""
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    odds = exact_odds(DECKS)
    exact = {a: float(odds.probability(a)) for a in ODDS_KEYS}
    start = time.perf_counter()
    if args.json:
        tally = simulate(args.rounds, seed, args.processes)
    else:
        columns = (
            TextColumn("simulating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task("rounds", total=args.rounds)
            tally = simulate(args.rounds, seed, args.processes, lambda n: progress.advance(task, n))
    elapsed = time.perf_counter() - start
    rate = tally.rounds / elapsed if elapsed > 0 else 0.0
    if args.json:
        out = {
            "rounds": tally.rounds,
            "seed": seed,
            "counts": {a: tally.counts[a] for a in ODDS_KEYS},
            "observed": tally.observed(),
            "exact": exact,
            "rounds_per_second": rate,
        }
        print(json.dumps(out, indent=2))
    else:
        Console().print(_render(tally, exact, seed, rate))
    return 0
