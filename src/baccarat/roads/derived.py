"""The derived roads' colour rule: Big Eye Boy, Small Road and Cockroach Pig.

They read the Big Road's logical columns (streak lengths; tails do not matter). Road ``k``
(1, 2, 3) marks every Big Road entry from column ``k`` row 1 on (or from column ``k + 1``
row 0 when column ``k`` holds one entry). Red means the pattern repeats, blue that it breaks:

- at row 0 of column ``c``: red when columns ``c - 1`` and ``c - 1 - k`` are as long;
- at row ``r > 0``: blue exactly when column ``c - k`` is ``r`` long (it ended just above
  row ``r``); red when it reaches row ``r``, and red when it ended earlier still.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from baccarat.rules import Hand

Color = Literal["red", "blue"]
DerivedName = Literal["big_eye_boy", "small_road", "cockroach_pig"]

DERIVED: tuple[tuple[DerivedName, int], ...] = (
    ("big_eye_boy", 1),
    ("small_road", 2),
    ("cockroach_pig", 3),
)
"""Each derived road and its ``k``: how many columns back it compares."""


def derived_color(lengths: Sequence[int], col: int, row: int, k: int) -> Color | None:
    """The colour the Big Road entry at logical ``(col, row)`` adds to road ``k``, or None.

    ``lengths`` are the Big Road's streak lengths; only the columns before ``col`` are read,
    so the lengths of the whole shoe may be passed.
    """
    if col < k or (col == k and row == 0):
        return None
    if row == 0:
        return "red" if lengths[col - 1] == lengths[col - 1 - k] else "blue"
    return "blue" if row == lengths[col - k] else "red"


def next_entry(lengths: Sequence[int], last: Hand | None, side: Hand) -> tuple[int, int]:
    """The logical (column, row) a next ``side`` result would take in the Big Road."""
    if last is None:
        return (0, 0)
    if side == last:
        return (len(lengths) - 1, lengths[-1])
    return (len(lengths), 0)
