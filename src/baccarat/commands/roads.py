"""``baccarat roads``: draw a shoe's roads from its results, or from a whole shoe's seed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from baccarat.commands import jsonin
from baccarat.errors import InvalidInput
from baccarat.roads import (
    BEAD_COLUMNS,
    BEAD_ROWS,
    ROWS,
    AskRoad,
    BigRoadCell,
    Color,
    DerivedCell,
    Roads,
    RoundMark,
    parse_marks,
    roads,
)
from baccarat.rules import deal
from baccarat.shoe import DECKS, MIN_CARDS_TO_DEAL, ROUNDS_PER_SHOE, Shoe, parse_seed

HELP = "draw a shoe's roads (bead plate, Big Road, derived roads, ask) from its rounds or seed"

ABOUT = """\
Without --seed, the rounds come on standard input as one JSON array, oldest first, each
round an object:

    [{"winner": "banker", "points": 7},
     {"winner": "player", "points": 9, "player_pair": true, "natural": true},
     {"winner": "tie", "points": 4, "banker_pair": true}]

winner is banker, player or tie; points the winner's points, 0-9 (a tie's tied points);
banker_pair, player_pair and natural (a first two cards of 8 or 9) are true or false,
false when left out. No other field is allowed. A bad round is refused by its position
(from 0) with exit 2. The roads are drawn in the terminal (bead plate, Big Road, Big Eye
Boy, Small Road, Cockroach Pig, the counts and the ask road), or printed as JSON."""

WINNER_STYLE = {"banker": "red", "player": "blue", "tie": "green"}
# Each derived road keeps its traditional mark, so the three read apart at a glance.
DERIVED_MARKS = (
    ("big_eye_boy", "Big Eye Boy", "○"),
    ("small_road", "Small Road", "●"),
    ("cockroach_pig", "Cockroach Pig", "╱"),
)
CELL_WIDTH = 2
PANEL_FRAME = 4  # a panel's borders and padding, in columns


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Read rounds on stdin, or play a shoe from --seed; draw, or print --json."""
    parser.add_argument(
        "--json", action="store_true", help="print the roads as JSON instead of drawing them"
    )
    parser.add_argument(
        "--seed",
        metavar="HEX",
        help="play a whole shoe from this seed (64 hex digits) instead of reading rounds on stdin",
    )


def run(args: argparse.Namespace) -> int:
    """Compute the roads and print them; exit 2 on bad input."""
    try:
        if args.seed is not None:
            marks = shoe_marks(parse_seed(args.seed))
        else:
            marks = parse_marks(jsonin.read_stdin("The input"))
    except InvalidInput as exc:
        if args.json:
            print(json.dumps({"error": exc.to_dict()}))
        else:
            print(f"baccarat roads: {exc.message}", file=sys.stderr)
        return 2
    result = roads(marks)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        console = Console()
        console.print(render(result, console.width))
    return 0


def read_marks(text: str) -> list[RoundMark]:
    """Read a JSON array of rounds."""
    return parse_marks(jsonin.parse(text, "The input"))


def shoe_marks(seed: bytes, decks: int = DECKS) -> list[RoundMark]:
    """Deal a whole shoe from ``seed``: 78 rounds, or until fewer than 6 cards remain."""
    shoe = Shoe.from_seed(seed, decks)
    marks = []
    for _ in range(ROUNDS_PER_SHOE):
        if shoe.remaining < MIN_CARDS_TO_DEAL:
            break
        marks.append(RoundMark.from_outcome(deal(shoe.draw)))
    return marks


def render(result: Roads, width: int) -> RenderableType:
    """Every road drawn for a terminal ``width`` columns wide."""
    columns = max(1, (width - PANEL_FRAME) // CELL_WIDTH)
    parts: list[RenderableType] = [
        Panel.fit(bead_plate_text(result, width), title="Bead Plate"),
        Panel.fit(
            big_road_text(result, columns), title=_title("Big Road", result.big_road, columns)
        ),
    ]
    for name, title, symbol in DERIVED_MARKS:
        cells: tuple[DerivedCell, ...] = getattr(result, name)
        parts.append(
            Panel.fit(derived_text(cells, symbol, columns), title=_title(title, cells, columns))
        )
    parts.append(counts_text(result))
    parts.append(ask_text(result))
    return Group(*parts)


def bead_plate_text(result: Roads, width: int) -> Text:
    """The 6x13 bead plate: the points in the winner's colour, a dot on each side for pairs."""
    cells = {(c.col, c.row): c for c in result.bead_plate}
    # Padded digits read better; a narrow terminal gets the bare digit rather than wrapping.
    pad = " " if width >= BEAD_COLUMNS * 5 + PANEL_FRAME else ""
    text = Text(no_wrap=True, overflow="crop")
    for row in range(BEAD_ROWS):
        for col in range(BEAD_COLUMNS):
            cell = cells.get((col, row))
            if cell is None:
                text.append(f" {pad}·{pad} ", style="dim")
                continue
            text.append("•" if cell.banker_pair else " ", style="red")
            style = f"bold white on {WINNER_STYLE[cell.winner]}"
            text.append(f"{pad}{cell.points}{pad}", style=style)
            text.append("•" if cell.player_pair else " ", style="blue")
        if row < BEAD_ROWS - 1:
            text.append("\n")
    return text


def big_road_text(result: Roads, columns: int) -> Text:
    """The Big Road's hollow circles, each with its tie count in green; the last columns."""
    grid = {(c.col, c.row): c for c in result.big_road}
    text = Text(no_wrap=True, overflow="crop")
    for row in range(ROWS):
        for col in _shown(grid, columns):
            cell = grid.get((col, row))
            if cell is None:
                text.append("· ", style="dim")
                continue
            text.append("○", style=f"bold {WINNER_STYLE[cell.winner]}")
            ties = "" if cell.ties == 0 else str(cell.ties) if cell.ties < 10 else "+"
            text.append(ties or " ", style="bold green")
        if row < ROWS - 1:
            text.append("\n")
    return text


def derived_text(cells: Sequence[DerivedCell], symbol: str, columns: int) -> Text:
    """A derived road's marks in red and blue; the last columns that fit."""
    grid = {(c.col, c.row): c.color for c in cells}
    text = Text(no_wrap=True, overflow="crop")
    for row in range(ROWS):
        for col in _shown(grid, columns):
            color = grid.get((col, row))
            text.append(f"{symbol} " if color else "· ", style=color or "dim")
        if row < ROWS - 1:
            text.append("\n")
    return text


def counts_text(result: Roads) -> Text:
    """One line: wins of each kind, pairs and rounds."""
    c = result.counts
    return Text.assemble(
        ("Banker ", "red"),
        (str(c.banker), "bold red"),
        ("   Player ", "blue"),
        (str(c.player), "bold blue"),
        ("   Tie ", "green"),
        (str(c.tie), "bold green"),
        ("   Banker pair ", "red"),
        (str(c.banker_pair), "bold red"),
        ("   Player pair ", "blue"),
        (str(c.player_pair), "bold blue"),
        ("   Rounds ", ""),
        (str(c.rounds), "bold"),
    )


def ask_text(result: Roads) -> Text:
    """One line: what each derived road would add after a Banker, or a Player, result."""
    text = Text()
    asks: tuple[tuple[str, AskRoad, str], ...] = (
        ("Banker", result.ask_banker, "red"),
        ("Player", result.ask_player, "blue"),
    )
    for label, ask, style in asks:
        text.append(f"Ask {label}: ", style=f"bold {style}")
        for name, _, symbol in DERIVED_MARKS:
            color: Color | None = getattr(ask, name)
            text.append(f"{symbol} " if color else "- ", style=color or "dim")
        text.append("  ")
    text.rstrip()
    return text


def _title(title: str, cells: Sequence[BigRoadCell | DerivedCell], columns: int) -> str:
    used = max((c.col for c in cells), default=0) + 1
    return title if used <= columns else f"{title} (last {columns} of {used} columns)"


def _shown(grid: Mapping[tuple[int, int], object], columns: int) -> range:
    # The newest columns matter most; an empty road still draws one column of six rows.
    used = max((col for col, _ in grid), default=0) + 1
    return range(max(0, used - columns), used)
