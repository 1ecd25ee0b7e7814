"""All the roads of one shoe, computed in one pass over its results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from baccarat.roads.derived import DERIVED, Color, derived_color, next_entry
from baccarat.roads.grid import Grid
from baccarat.roads.marks import RoundMark
from baccarat.rules import Hand, Winner

BEAD_ROWS = 6
BEAD_COLUMNS = 13
BEAD_CELLS = BEAD_ROWS * BEAD_COLUMNS


@dataclass(frozen=True, slots=True)
class BeadCell:
    """One round on the bead plate."""

    col: int
    row: int
    winner: Winner
    points: int
    banker_pair: bool
    player_pair: bool

    def to_dict(self) -> dict[str, object]:
        """The cell as JSON-ready data."""
        return {
            "col": self.col,
            "row": self.row,
            "winner": self.winner,
            "points": self.points,
            "banker_pair": self.banker_pair,
            "player_pair": self.player_pair,
        }


@dataclass(frozen=True, slots=True)
class BigRoadCell:
    """One Banker or Player win on the Big Road, with the ties counted on it."""

    col: int
    row: int
    winner: Hand
    ties: int

    def to_dict(self) -> dict[str, object]:
        """The cell as JSON-ready data."""
        return {"col": self.col, "row": self.row, "winner": self.winner, "ties": self.ties}


@dataclass(frozen=True, slots=True)
class DerivedCell:
    """One red or blue mark on a derived road."""

    col: int
    row: int
    color: Color

    def to_dict(self) -> dict[str, object]:
        """The cell as JSON-ready data."""
        return {"col": self.col, "row": self.row, "color": self.color}


@dataclass(frozen=True, slots=True)
class AskRoad:
    """The colour each derived road would add after one more result (None: nothing)."""

    big_eye_boy: Color | None
    small_road: Color | None
    cockroach_pig: Color | None

    def to_dict(self) -> dict[str, object]:
        """The preview as JSON-ready data."""
        return {
            "big_eye_boy": self.big_eye_boy,
            "small_road": self.small_road,
            "cockroach_pig": self.cockroach_pig,
        }


@dataclass(frozen=True, slots=True)
class Counts:
    """Running counts over the results: wins of each kind, pairs, rounds."""

    banker: int = 0
    player: int = 0
    tie: int = 0
    banker_pair: int = 0
    player_pair: int = 0
    rounds: int = 0

    def to_dict(self) -> dict[str, int]:
        """The counts as JSON-ready data."""
        return {
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "banker_pair": self.banker_pair,
            "player_pair": self.player_pair,
            "rounds": self.rounds,
        }


@dataclass(frozen=True, slots=True)
class Roads:
    """The bead plate, the Big Road, the three derived roads, ask previews and counts."""

    bead_plate: tuple[BeadCell, ...]
    big_road: tuple[BigRoadCell, ...]
    big_eye_boy: tuple[DerivedCell, ...]
    small_road: tuple[DerivedCell, ...]
    cockroach_pig: tuple[DerivedCell, ...]
    ask_banker: AskRoad
    ask_player: AskRoad
    counts: Counts

    def ask(self, side: Hand) -> AskRoad:
        """What the derived roads would add if the next result were ``side``."""
        return self.ask_banker if side == "banker" else self.ask_player

    def to_dict(self) -> dict[str, object]:
        """The roads as JSON-ready data, as the CLI and the table views send them."""
        return {
            "bead_plate": [c.to_dict() for c in self.bead_plate],
            "big_road": [c.to_dict() for c in self.big_road],
            "big_eye_boy": [c.to_dict() for c in self.big_eye_boy],
            "small_road": [c.to_dict() for c in self.small_road],
            "cockroach_pig": [c.to_dict() for c in self.cockroach_pig],
            "ask": {"banker": self.ask_banker.to_dict(), "player": self.ask_player.to_dict()},
            "counts": self.counts.to_dict(),
        }


def bead_plate(marks: Sequence[RoundMark]) -> tuple[BeadCell, ...]:
    """The last 78 rounds, top to bottom then left to right."""
    start = max(0, len(marks) - BEAD_CELLS)
    return tuple(
        BeadCell(i // BEAD_ROWS, i % BEAD_ROWS, m.winner, m.points, m.banker_pair, m.player_pair)
        for i, m in enumerate(marks[start:])
    )


def count(marks: Sequence[RoundMark]) -> Counts:
    """Wins of each kind, pairs and rounds over every result given."""
    wins = {"banker": 0, "player": 0, "tie": 0}
    for m in marks:
        wins[m.winner] += 1
    return Counts(
        banker=wins["banker"],
        player=wins["player"],
        tie=wins["tie"],
        banker_pair=sum(m.banker_pair for m in marks),
        player_pair=sum(m.player_pair for m in marks),
        rounds=len(marks),
    )


def roads(marks: Sequence[RoundMark]) -> Roads:
    """Every road of a shoe from its results in order; O(n) in the number of results."""
    grid = Grid()
    placed: list[tuple[int, int, Hand]] = []
    ties: list[int] = []
    lengths: list[int] = []  # the Big Road's logical columns: streak lengths
    entries: list[tuple[int, int]] = []  # each placed cell's logical (column, row)
    last: Hand | None = None
    early_ties = 0  # ties before the first Banker or Player win
    for m in marks:
        if m.winner == "tie":
            if ties:
                ties[-1] += 1
            else:
                early_ties += 1
            continue
        side: Hand = "banker" if m.winner == "banker" else "player"
        if side == last:
            lengths[-1] += 1
        else:
            lengths.append(1)
        last = side
        entries.append((len(lengths) - 1, lengths[-1] - 1))
        col, row = grid.place(side)
        placed.append((col, row, side))
        ties.append(early_ties)
        early_ties = 0
    big_road = tuple(BigRoadCell(c, r, w, t) for (c, r, w), t in zip(placed, ties, strict=True))

    derived: list[tuple[DerivedCell, ...]] = []
    for _, k in DERIVED:
        road_grid = Grid()
        cells = []
        for col, row in entries:
            color = derived_color(lengths, col, row, k)
            if color is not None:
                cells.append(DerivedCell(*road_grid.place(color), color))
        derived.append(tuple(cells))

    def ask(side: Hand) -> AskRoad:
        if last is None:
            return AskRoad(None, None, None)
        # The rule reads only the columns before the new entry's, which are all known.
        col, row = next_entry(lengths, last, side)
        big_eye_boy, small_road, cockroach_pig = (
            derived_color(lengths, col, row, k) for _, k in DERIVED
        )
        return AskRoad(big_eye_boy, small_road, cockroach_pig)

    return Roads(
        bead_plate=bead_plate(marks),
        big_road=big_road,
        big_eye_boy=derived[0],
        small_road=derived[1],
        cockroach_pig=derived[2],
        ask_banker=ask("banker"),
        ask_player=ask("player"),
        counts=count(marks),
    )
