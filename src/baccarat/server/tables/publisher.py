"""What a table's task sends: its events, numbered, and each user's own ``me``.

Public events advance the table's ``seq``; a private one goes to its one user at the seq of
the last public event. After a step that may change what a seated or queued user sees of
themselves, each such user gets a fresh ``me`` when it changed, so a client keeps its whole
view from events alone, without a snapshot. The dealer gets none after a step of chips only
(``book_kept``): the dealer's client adds each ``chip_placed`` to its book itself.
"""

from __future__ import annotations

import time

from baccarat.protocol.codec import dumps
from baccarat.protocol.events import event_wire
from baccarat.protocol.frames import Snapshot
from baccarat.protocol.messages import event, snapshot
from baccarat.protocol.view import view
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables import facts
from baccarat.table import Event, Table
from baccarat.table.events import recipient
from baccarat.table.view import (
    PERSONAL_UNCHANGED,
    Personal,
    PersonalKey,
    book_kept,
    personal,
    personal_keys,
)

TIMED = frozenset(("remaining_ms", "grace_ms", "ready_in_ms"))
"""The ``data`` keys of a time left (``protocol.events``)."""


class Publisher:
    """One table's outgoing messages, in order (used only inside the table's task)."""

    def __init__(self, table: Table, table_id: str, hub: Hub) -> None:
        self.table = table
        self.table_id = table_id
        self.hub = hub
        self.seq = 0
        """The number of the last public event sent."""
        self._personal: dict[int, Personal] = {}
        """The last ``me`` each seated user was sent."""
        self._personal_key: dict[int, PersonalKey] = {}
        """What each bettor's last ``me`` was made of (``view.personal_key``)."""

    def snapshot_for(self, conn: Connection, now: float) -> Snapshot:
        """The table's snapshot for the user of ``conn``, as of the last public event."""
        return snapshot(self.table_id, self.seq, time.time(), view(self.table, conn.user_id, now))

    def show(self, conn: Connection, now: float) -> None:
        """Make ``conn`` watch the table and send it a snapshot."""
        self.hub.watch(conn, self.table_id)
        conn.send(dumps(self.snapshot_for(conn, now)))

    def publish(self, events: list[Event], now: float) -> int:
        """Send a step's events (and the ``me`` they changed); return the deliveries made."""
        sent = 0
        wall = time.time()
        for ev in events:
            kind, data = event_wire(ev, now)
            # A time left is as of now: the server's clock tells a client how late it reads it.
            stamp = wall if TIMED.intersection(data) else None
            to = recipient(ev)
            if to is None:
                self.seq += 1
                msg = event(self.table_id, self.seq, kind, data, server_time=stamp)
                sent += self.hub.to_table(self.table_id, msg)
            else:
                msg = event(self.table_id, self.seq, kind, data, private=True, server_time=stamp)
                sent += self.hub.to_user_at(to, self.table_id, msg)
        # A step without events may still change someone's own part (自動開牌 is nobody
        # else's business, so it has no event): only the deal and the chat change nobody's.
        if not events or any(type(ev) not in PERSONAL_UNCHANGED for ev in events):
            sent += self._publish_personal(now, book_kept(events))
        return sent

    def _publish_personal(self, now: float, book_only: bool) -> int:
        sent = 0
        queued = {w.user_id for w in self.table.queue}
        users = set(self._personal) | set(facts.seated(self.table)) | queued
        dealer = self.table.dealer
        if book_only and dealer is not None:
            # The dealer's client adds the chips to its book itself. What it was last sent
            # is no longer what it shows: the next ``me`` it needs goes out whole.
            users.discard(dealer.user_id)
            self._personal.pop(dealer.user_id, None)
        keys = personal_keys(self.table, users, now)
        for user_id in users:
            # A bettor whose ``me`` is made of the same things as last time has the same.
            key = keys[user_id]
            if key is not None and key == self._personal_key.get(user_id):
                continue
            own = personal(self.table, user_id, now)
            if own == self._personal.get(user_id):
                self._remember_key(user_id, key)
                continue
            if own["me"]["seat"] is None and own["me"]["queue_position"] is None:
                self._personal.pop(user_id, None)
            else:
                self._personal[user_id] = own
            self._remember_key(user_id, key)
            msg = event(self.table_id, self.seq, "me", dict(own), private=True)
            sent += self.hub.to_user_at(user_id, self.table_id, msg)
        return sent

    def _remember_key(self, user_id: int, key: PersonalKey | None) -> None:
        # Kept only beside a ``me`` that was sent: the key stands for that ``me``.
        if key is None or user_id not in self._personal:
            self._personal_key.pop(user_id, None)
        else:
            self._personal_key[user_id] = key
