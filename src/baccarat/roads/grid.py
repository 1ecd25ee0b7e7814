"""Where the Big Road and the derived roads draw each cell: 6 rows and dragon tails.

A new label starts a column at row 0, right of the rightmost used row-0 cell. A repeat goes
down when the cell below exists and is empty, otherwise right (the dragon tail); a tail goes
back down as soon as the cell below it is free. Each streak's path only moves down or right
and stays above every earlier streak's path, so the cell to the right is always free.
"""

from __future__ import annotations

ROWS = 6

Cell = tuple[int, int]
"""(column, row), both from 0."""


class Grid:
    """Places one streak-coloured cell after another, by the Big Road's rules."""

    __slots__ = ("_label", "_last", "_next_col", "_taken")

    def __init__(self) -> None:
        self._taken: set[Cell] = set()
        self._last: Cell | None = None
        self._label: str | None = None
        self._next_col = 0

    def place(self, label: str) -> Cell:
        """Place the next cell of ``label``; return its (column, row)."""
        if self._last is None or label != self._label:
            cell = (self._next_col, 0)
        else:
            col, row = self._last
            below = (col, row + 1)
            cell = below if row + 1 < ROWS and below not in self._taken else (col + 1, row)
        self._taken.add(cell)
        self._last = cell
        self._label = label
        if cell[1] == 0:
            self._next_col = max(self._next_col, cell[0] + 1)
        return cell
