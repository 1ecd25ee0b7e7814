"""Who is connected, who watches which table, who sits where, and which tables changed.

The hub fans messages out: a message for many clients is encoded once and the same text is
queued on every connection.
"""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from baccarat.protocol.ids import SeatAt, TableId
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.frames import encode

log = logging.getLogger("baccarat.server")


class Hub:
    """The registry of connections, watchers and seats."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self.by_user: dict[int, set[Connection]] = defaultdict(set)
        self.watchers: dict[str, set[Connection]] = defaultdict(set)
        self.changed: set[str] = set()
        """Tables whose lobby line may have changed since the lobby last looked."""
        self.seats: dict[int, SeatAt] = {}
        """Each seated user's (table id, seat), kept by the table drivers."""
        self.table_seats: dict[str, dict[int, int]] = {}
        """Each table's seated users (user id -> seat), as last recorded."""
        self.sitting: set[int] = set()
        """Users with a ``sit`` in flight, so two tables cannot seat them at once."""
        self.on_last_close: Callable[[int], None] | None = None
        self.on_unwatch: Callable[[Connection, str], None] | None = None
        """Called when a connection stops watching a table (left, watches another, closed)."""
        self.on_seat_freed: Callable[[int, str], None] | None = None
        """Called with each user who left a table's seats (the node gives their claim back)."""

    def add(self, conn: Connection) -> bool:
        """Register a connection; True when it is the user's first one."""
        self.connections.add(conn)
        first = not self.by_user[conn.user_id]
        self.by_user[conn.user_id].add(conn)
        return first

    def remove(self, conn: Connection) -> None:
        """Forget a connection; tell the user's table when it was the user's last one."""
        if conn not in self.connections:
            return
        self.connections.discard(conn)
        self.unwatch(conn)
        conns = self.by_user.get(conn.user_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.by_user[conn.user_id]
                if self.on_last_close is not None:
                    self.on_last_close(conn.user_id)

    def watch(self, conn: Connection, table_id: str) -> None:
        """Make ``conn`` watch ``table_id`` (and stop watching any other table)."""
        if conn.watching == table_id:
            return
        self.unwatch(conn)
        conn.watching = table_id
        self.watchers[table_id].add(conn)
        self.changed.add(table_id)

    def unwatch(self, conn: Connection) -> None:
        """Stop ``conn`` watching its table."""
        table_id = conn.watching
        if table_id is None:
            return
        conn.watching = None
        self.watchers[table_id].discard(conn)
        self.changed.add(table_id)
        if self.on_unwatch is not None:
            self.on_unwatch(conn, table_id)

    def online(self, user_id: int) -> bool:
        """Whether the user has at least one open connection."""
        return bool(self.by_user.get(user_id))

    def broadcast(self, conns: Iterable[Connection], message: dict[str, Any]) -> int:
        """Encode once (a finished frame) and send it on every connection; return how many."""
        frame = encode(message)
        n = 0
        for conn in list(conns):
            conn.send_frame(frame)
            n += 1
        return n

    @contextlib.contextmanager
    def corked(self, table_id: str) -> Iterator[None]:
        """Hold what the table's watchers are sent inside the block; write it to each of them
        in one go at its end."""
        conns = list(self.watchers.get(table_id, ()))
        for conn in conns:
            conn.cork()
        try:
            yield
        finally:
            for conn in conns:
                conn.uncork()

    def to_table(self, table_id: str, message: dict[str, Any]) -> int:
        """Send to everyone watching a table."""
        return self.broadcast(self.watchers.get(table_id, ()), message)

    def to_user_at(self, user_id: int, table_id: str, message: dict[str, Any]) -> int:
        """Send to the user's connections that watch ``table_id``."""
        conns = [c for c in self.by_user.get(user_id, ()) if c.watching == table_id]
        return self.broadcast(conns, message)

    def table_of(self, user_id: int) -> TableId | None:
        """The table where ``user_id`` sits on this node, if any."""
        where = self.seats.get(user_id)
        return None if where is None else where.table_id

    def set_seats(self, table_id: str, seated: dict[int, int]) -> set[int]:
        """Record who sits at ``table_id`` now (user id -> seat); return who left it.

        Called after every step of a table that made an event, so it touches only that
        table's seats, and nothing at all when they did not change. Each user who left is
        handed to ``on_seat_freed``.
        """
        before = self.table_seats.get(table_id, {})
        if before == seated:
            return set()
        left = before.keys() - seated.keys()
        for user_id in left:
            if self.table_of(user_id) == table_id:
                del self.seats[user_id]
        for user_id, seat in seated.items():
            self.seats[user_id] = SeatAt(TableId(table_id), seat)
        if seated:
            self.table_seats[table_id] = dict(seated)
        else:
            self.table_seats.pop(table_id, None)
        if self.on_seat_freed is not None:
            for user_id in left:
                self.on_seat_freed(user_id, table_id)
        return left
