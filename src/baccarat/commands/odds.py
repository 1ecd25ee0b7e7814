"""``baccarat odds``: exact probabilities, expected values and house edge of every area."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from baccarat.bets import AREA_NAMES
from baccarat.errors import BaccaratError
from baccarat.odds import ODDS_KEYS, Odds, exact_odds

HELP = "exact probabilities, expected values and house edge by full enumeration"
ABOUT = """\
Every ordered sequence of the six cards a round can use is counted, so the figures are
exact fractions, not samples (docs/rules.md)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--decks", type=int, default=8, help="decks in the shoe (default 8)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def render(odds: Odds) -> Table:
    """The odds as a table for an operator."""
    table = Table(
        title=f"Exact odds, {odds.decks} decks ({odds.total:,} ordered 6-card sequences)",
        caption="EV: the bettor's expected result per unit staked on one area alone, after the "
        "1% commission on a winning net; the house edge is its opposite. Player and Banker "
        "push on a Tie and are booked by the dealer, so their edge is the dealer's.",
    )
    table.add_column("area", no_wrap=True)
    for name in ("pays", "sequences won", "probability", "EV", "house edge"):
        table.add_column(name, justify="right", no_wrap=True)
    pays = {"player": "1:1", "banker": "1:1", "tie": "8:1", "player_pair": "11:1"}
    for area in ODDS_KEYS:
        ev = odds.expected_value(area)
        table.add_row(
            AREA_NAMES[area],
            pays.get(area, "11:1"),
            f"{odds.counts[area]:,}",
            f"{float(odds.probability(area)):.6%}",
            f"{float(ev):+.4%}",
            f"{float(odds.house_edge(area)):+.4%}",
        )
    return table


def run(args: argparse.Namespace) -> int:
    """Compute and print the odds."""
    console = Console()
    if not console.is_terminal:
        # Piped output has no width to fit; keep every row on one line.
        console = Console(width=120)
    try:
        odds = exact_odds(args.decks)
    except BaccaratError as exc:
        if args.json:
            print(json.dumps({"error": exc.to_dict()}))
        else:
            Console(stderr=True).print(f"error: {exc.message}")
        return 2
    if args.json:
        print(json.dumps(odds.to_dict(), indent=2))
    else:
        console.print(render(odds))
    return 0
