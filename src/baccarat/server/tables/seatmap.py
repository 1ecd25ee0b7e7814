"""Who sits where on this node: each seated user's table and seat, and the sits in flight.

Seating owns it and keeps the one-seat rule with it; each table's driver records its seats
after every step that made an event; the node keeps the directory's seat claims of the users
it lists, and gives a claim back when a user leaves a table's seats (``on_freed``).
"""

from __future__ import annotations

from collections.abc import Callable

from baccarat.protocol.ids import SeatAt, TableId


class SeatMap:
    """Each seated user's ``SeatAt``, each table's seated users, and the sits in flight."""

    def __init__(self) -> None:
        self.at: dict[int, SeatAt] = {}
        """Each seated user's (table id, seat)."""
        self.by_table: dict[str, dict[int, int]] = {}
        """Each table's seated users (user id -> seat), as last recorded."""
        self.sitting: set[int] = set()
        """Users with a ``sit`` in flight, so two tables cannot seat them at once."""
        self.on_freed: Callable[[int, str], None] | None = None
        """Called with each user who left a table's seats (the node gives their claim back)."""

    def __contains__(self, user_id: int) -> bool:
        return user_id in self.at

    def get(self, user_id: int) -> SeatAt | None:
        """Where the user sits on this node, if anywhere."""
        return self.at.get(user_id)

    def table_of(self, user_id: int) -> TableId | None:
        """The table where the user sits on this node, if any."""
        where = self.at.get(user_id)
        return None if where is None else where.table_id

    def record(self, table_id: str, seated: dict[int, int]) -> set[int]:
        """Record who sits at ``table_id`` now (user id -> seat); return who left it.

        Called after every step of a table that made an event, so it touches only that
        table's seats, and nothing at all when they did not change. Each user who left is
        handed to ``on_freed``.
        """
        before = self.by_table.get(table_id, {})
        if before == seated:
            return set()
        left = before.keys() - seated.keys()
        for user_id in left:
            if self.table_of(user_id) == table_id:
                del self.at[user_id]
        for user_id, seat in seated.items():
            self.at[user_id] = SeatAt(TableId(table_id), seat)
        if seated:
            self.by_table[table_id] = dict(seated)
        else:
            self.by_table.pop(table_id, None)
        if self.on_freed is not None:
            for user_id in left:
                self.on_freed(user_id, table_id)
        return left
