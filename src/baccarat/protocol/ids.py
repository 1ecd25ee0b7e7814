"""The ids that travel between modules, as distinct types a checker can tell apart.

At run time each is its plain value (``TableId("t1") == "t1"``); the names stop a seat
number being passed where a user id is meant.
"""

from __future__ import annotations

from typing import NamedTuple, NewType

TableId = NewType("TableId", str)
"""A table's id, unique in the whole system (``standard-1``)."""
UserId = NewType("UserId", int)
"""A user's id in the store."""
RoundId = NewType("RoundId", int)
"""A dealt round's id in the store."""
MessageId = str | int
"""A client's id for one command, echoed in its answer."""


class SeatAt(NamedTuple):
    """Where a user sits: the table and the seat number (0 is the dealer's)."""

    table_id: TableId
    seat: int
