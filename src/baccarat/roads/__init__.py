"""The roads (history) of a shoe: bead plate, Big Road, the three derived roads, ask previews.

Pure: :func:`roads` takes a shoe's results as :class:`RoundMark` values, in order, and
returns every road, recomputed from scratch in one pass (O(n) in the results). The bead
plate shows the last 78 rounds; the other roads and the counts use every result given.
"""

from baccarat.roads.board import (
    BEAD_CELLS,
    BEAD_COLUMNS,
    BEAD_ROWS,
    AskRoad,
    BeadCell,
    BigRoadCell,
    Counts,
    DerivedCell,
    Roads,
    roads,
)
from baccarat.roads.derived import DERIVED, Color, DerivedName, derived_color
from baccarat.roads.grid import ROWS
from baccarat.roads.marks import RoundMark, parse_marks

__all__ = [
    "BEAD_CELLS",
    "BEAD_COLUMNS",
    "BEAD_ROWS",
    "DERIVED",
    "ROWS",
    "AskRoad",
    "BeadCell",
    "BigRoadCell",
    "Color",
    "Counts",
    "DerivedCell",
    "DerivedName",
    "Roads",
    "RoundMark",
    "derived_color",
    "parse_marks",
    "roads",
]
