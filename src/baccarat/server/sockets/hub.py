"""Who is connected, who watches which table, and which tables changed.

The hub fans messages out: a message for many clients is encoded once and the same text is
queued on every connection.
"""

from __future__ import annotations

import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from baccarat.protocol.frames import ServerMessage
from baccarat.server.sockets.connection import CLOSE_LOGGED_OUT, Connection, Joined
from baccarat.server.sockets.frames import encode

log = logging.getLogger("baccarat.server")


class Hub:
    """The registry of connections and watchers."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self.by_user: dict[int, set[Connection]] = defaultdict(set)
        self.watchers: dict[str, set[Connection]] = defaultdict(set)
        self.changed: set[str] = set()
        """Tables whose lobby line may have changed since the lobby last looked."""
        self.on_last_close: Callable[[int], None] | None = None
        self.on_unwatch: Callable[[Connection, str], None] | None = None
        """Called when a connection stops watching a table (left, watches another, closed)."""

    def add(self, conn: Connection) -> bool:
        """Register a connection; True when it is the user's first one."""
        self.connections.add(conn)
        first = not self.by_user[conn.user_id]
        self.by_user[conn.user_id].add(conn)
        return first

    def logged_out(self, token: str) -> None:
        """Close every socket of a session that ended."""
        for conn in [c for c in self.connections if c.token == token]:
            conn.drop(CLOSE_LOGGED_OUT, "logged_out")

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

    def broadcast(self, conns: Iterable[Connection], message: ServerMessage) -> int:
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
            joined: Joined = {}
            for conn in conns:
                conn.uncork(joined)

    def to_table(self, table_id: str, message: ServerMessage) -> int:
        """Send to everyone watching a table."""
        return self.broadcast(self.watchers.get(table_id, ()), message)

    def to_user_at(self, user_id: int, table_id: str, message: ServerMessage) -> int:
        """Send to the user's connections that watch ``table_id``."""
        conns = [c for c in self.by_user.get(user_id, ()) if c.watching == table_id]
        return self.broadcast(conns, message)
