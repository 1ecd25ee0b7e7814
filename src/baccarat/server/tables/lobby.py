"""The lobby: the rooms with their rules, a line per table, and who looks at which page.

Tables only mark themselves changed (``Hub.changed``); once a ``TICK`` the lobby rebuilds the
lines of the tables that changed, keeps the fields that differ, and sends every subscriber one
``lobby.update`` with the changes of the tables on the page it looks at. A page holds at most
``PAGE_SIZE`` tables, of one room or of all rooms, so what a subscriber receives does not grow
with the number of tables, on one node or many; a client at a table that does not show the
lobby unsubscribes and receives nothing. A table that appears or goes away moves the pages:
each subscriber then gets its page again whole (a ``lobby`` message).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baccarat.bets import CHIPS, LIMITS
from baccarat.errors import RuleViolation
from baccarat.protocol.codec import dumps
from baccarat.protocol.lobby import LineJson
from baccarat.server.config import RoomsConfig
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.frames import encode
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables.outbox import LineOutbox

log = logging.getLogger("baccarat.server")

PAGE_SIZE = 24
"""Tables on one page of the lobby."""
TICK = 1.0
"""Seconds between two updates to a subscriber (changes in between are merged)."""


def room_json(config: RoomsConfig) -> list[dict[str, Any]]:
    """Every room's rules as the lobby shows them."""
    return [
        {
            "room_id": r.room_id,
            "name": r.name,
            "names": dict(r.names),
            "min_level": r.min_level,
            "chip_unit": r.chip_unit,
            "bettor_floor": r.bettor_floor,
            "dealer_floor": r.dealer_floor,
            "dealer_round_limit": r.dealer_round_limit,
            "limits": dict(LIMITS),
            "chips": list(CHIPS),
        }
        for r in config.rooms
    ]


@dataclass(frozen=True, slots=True)
class View:
    """What one subscriber looks at: a page of one room's tables, or of every table.

    ``road`` keeps only the tables where that good road holds now (``"any"``: any good road);
    such a page is worked out again at each tick, since a result can bring a table in or out.
    """

    room: str | None = None
    page: int = 0
    road: str | None = None

    def shows(self, line: LineJson) -> bool:
        """Whether a table with this lobby line passes the view's good-road filter."""
        if self.road is None:
            return True
        found = line.get("good_roads")
        if not isinstance(found, list) or not found:
            return False
        return self.road == "any" or any(
            isinstance(g, dict) and g.get("pattern") == self.road for g in found
        )


class Lobby:
    """Every table's line, the pages they fall on, and the subscribers of each page."""

    def __init__(
        self,
        config: RoomsConfig,
        hub: Hub,
        local_line: Callable[[str], LineJson | None],
        outbox: LineOutbox,
    ) -> None:
        self.config = config
        self.hub = hub
        self.rooms = room_json(config)
        self.local_line = local_line
        """The current line of a table this server runs, or None."""
        self.outbox = outbox
        """Where each new line of a table this server runs goes (the node publishes it)."""
        self.lines: dict[str, LineJson] = {}
        self.heard: dict[str, LineJson] = {}
        """Lines of tables other nodes run, as last heard."""
        self.views: dict[Connection, View] = {}
        self._by_view: dict[View, set[Connection]] = {}
        self._pending: dict[str, LineJson] = {}
        self._epoch = 0
        """Counts the changes of which tables exist (each one moves the pages)."""
        self._seen: dict[Connection, int] = {}
        """The epoch of the page each subscriber was last sent whole."""
        self._filtered: dict[View, list[str]] = {}
        """The tables last sent to the subscribers of each filtered view."""
        self._order: list[str] = []
        self._where: dict[str, tuple[int, str, int]] = {}
        self._task: asyncio.Task[None] | None = None

    # -- lines ------------------------------------------------------------------------

    def put(self, table_id: str, line: LineJson | None) -> None:
        """A line heard from another node (None: that node gave the table up)."""
        if line is None:
            self.heard.pop(table_id, None)
        else:
            self.heard[table_id] = line
        self.hub.changed.add(table_id)

    def refresh(self) -> None:
        """Rebuild the lines of the tables that changed; keep what changed for the next tick."""
        changed, self.hub.changed = self.hub.changed, set()
        moved = False
        for table_id in changed:
            local = self.local_line(table_id)
            line = local if local is not None else self.heard.get(table_id)
            old = self.lines.get(table_id)
            if line is None:
                if old is not None:
                    del self.lines[table_id]
                    self._pending.pop(table_id, None)
                    moved = True
                continue
            if old is None:
                # A new table moves the pages: every subscriber gets its page whole.
                moved = True
            else:
                delta = {k: v for k, v in line.items() if old.get(k) != v}
                if not delta:
                    continue
                self._pending.setdefault(table_id, {"table_id": table_id}).update(delta)
            self.lines[table_id] = line
            if local is not None:
                self.outbox.put(line)
        if moved:
            self._epoch += 1
            self._reorder()

    def _reorder(self) -> None:
        listed = [t for t in self.config.table_room() if t in self.lines]
        known = set(listed)
        self._order = listed + sorted(t for t in self.lines if t not in known)
        counts: dict[str, int] = {}
        self._where = {}
        for i, table_id in enumerate(self._order):
            room = str(self.lines[table_id].get("room_id", ""))
            self._where[table_id] = (i, room, counts.get(room, 0))
            counts[room] = counts.get(room, 0) + 1

    # -- pages ------------------------------------------------------------------------

    def check(self, view: View) -> View:
        """The view if it names a room that exists, else a ``RuleViolation``."""
        if view.room is not None and view.room not in {r["room_id"] for r in self.rooms}:
            raise RuleViolation("unknown_room", f"There is no room {view.room!r}.")
        return view

    def message(self, view: View | None = None) -> dict[str, Any]:
        """The ``lobby`` message of a page (None: every table, as ``GET /api/lobby``)."""
        self.refresh()
        if view is None:
            tables = [self.lines[t] for t in self._order]
            return {"type": "lobby", "rooms": self.rooms, "tables": tables}
        ids = self._ids(view)
        start = view.page * PAGE_SIZE
        return {
            "type": "lobby",
            "rooms": self.rooms,
            "room": view.room,
            "road": view.road,
            "page": view.page,
            "pages": max(1, -(-len(ids) // PAGE_SIZE)),
            "page_size": PAGE_SIZE,
            "total": len(ids),
            "tables": [self.lines[t] for t in ids[start : start + PAGE_SIZE]],
        }

    def _ids(self, view: View) -> list[str]:
        # Every table of the view's room that passes its filter, in lobby order.
        return [
            t
            for t in self._order
            if (view.room is None or self._where[t][1] == view.room) and view.shows(self.lines[t])
        ]

    def _page_ids(self, view: View) -> list[str]:
        start = view.page * PAGE_SIZE
        return self._ids(view)[start : start + PAGE_SIZE]

    def subscribe(self, conn: Connection, view: View) -> None:
        """Send ``conn`` its page now and the page's changes every tick after."""
        self.unsubscribe(conn)
        self.views[conn] = view
        self._by_view.setdefault(view, set()).add(conn)
        conn.send(dumps(self.message(view)))
        self._seen[conn] = self._epoch
        if view.road is not None:
            # Kept if others look at this page: when it differs from what they were sent, the
            # next tick sends the page whole to all of them.
            self._filtered.setdefault(view, self._page_ids(view))

    def unsubscribe(self, conn: Connection) -> None:
        """No more lobby messages for ``conn``."""
        view = self.views.pop(conn, None)
        self._seen.pop(conn, None)
        if view is not None:
            subs = self._by_view.get(view)
            if subs is not None:
                subs.discard(conn)
                if not subs:
                    del self._by_view[view]
                    self._filtered.pop(view, None)

    # -- the tick ---------------------------------------------------------------------

    def tick(self) -> int:
        """Send each subscriber the changes on its page since the last tick; return frames sent."""
        self.refresh()
        pending, self._pending = self._pending, {}
        resent = self._resend_pages()
        sent = len(resent)
        by_page: dict[View, list[LineJson]] = {}
        for table_id, delta in pending.items():
            where = self._where.get(table_id)
            if where is None:
                continue
            index, room, in_room = where
            # Filtered views are sent in ``_tick_filtered``.
            by_page.setdefault(View(None, index // PAGE_SIZE), []).append(delta)
            by_page.setdefault(View(room, in_room // PAGE_SIZE), []).append(delta)
        for view, deltas in by_page.items():
            sent += self._send_update(view, deltas, resent)
        for view in list(self._filtered):
            sent += self._tick_filtered(view, pending, resent)
        return sent

    def _send_update(self, view: View, deltas: list[LineJson], skip: set[Connection]) -> int:
        subs = self._by_view.get(view)
        if not subs or not deltas:
            return 0
        frame = encode({"type": "lobby.update", "tables": deltas})
        sent = 0
        for conn in subs:
            if conn not in skip:
                conn.send_frame(frame)
                sent += 1
        return sent

    def _tick_filtered(
        self, view: View, pending: dict[str, LineJson], resent: set[Connection]
    ) -> int:
        # A filtered page: the same tables get their deltas; when a table came in or left,
        # the page goes again whole.
        ids = self._page_ids(view)
        if ids == self._filtered[view]:
            return self._send_update(view, [pending[t] for t in ids if t in pending], resent)
        self._filtered[view] = ids
        text = dumps(self.message(view))
        sent = 0
        for conn in self._by_view.get(view, ()):
            if conn not in resent:
                conn.send(text)
                sent += 1
        return sent

    def _resend_pages(self) -> set[Connection]:
        # Tables came or went since these subscribers got their page: send it again whole.
        resent: set[Connection] = set()
        for conn, epoch in list(self._seen.items()):
            if epoch != self._epoch:
                conn.send(dumps(self.message(self.views[conn])))
                self._seen[conn] = self._epoch
                resent.add(conn)
        return resent

    def start(self) -> None:
        """Start the ticking task."""
        self._task = asyncio.create_task(self._run(), name="lobby")

    async def stop(self) -> None:
        """Stop the ticking task."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            try:
                self.tick()
            except Exception:
                # The lobby must outlive a bad line; the tables do not depend on it.
                log.exception("lobby tick failed")
