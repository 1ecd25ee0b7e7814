"""The lobby: the rooms with their rules, a line per table, and who looks at which page.

Tables only mark themselves changed (``Hub.changed``); once a ``TICK`` the lobby rebuilds the
lines of this node's tables that changed and puts them in the outbox (the node publishes them
to the directory). Then it reads from the directory each page its subscribers look at, and
sends each page's subscribers one ``lobby.update`` with the fields that changed since the
last tick, or the page whole (a ``lobby`` message) when its tables or their number changed.
A page holds at most ``PAGE_SIZE`` tables, of one room or of all rooms, so what the lobby
costs a node (and what a subscriber receives) follows the pages its own users look at, not
the number of tables or nodes of the system; a client at a table that does not show the
lobby unsubscribes and receives nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from baccarat.bets import CHIPS, LIMITS
from baccarat.cluster import Directory
from baccarat.cluster.outage import Outage
from baccarat.errors import RuleViolation
from baccarat.protocol.codec import dumps
from baccarat.protocol.frames import Lobby as LobbyMessage
from baccarat.protocol.frames import LobbyTable, Room
from baccarat.protocol.lobby import LineJson, line_table
from baccarat.protocol.messages import lobby, lobby_update
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


def room_json(config: RoomsConfig) -> list[Room]:
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
            "limits": {area: limit for area, limit in LIMITS.items()},
            "chips": list(CHIPS),
        }
        for r in config.rooms
    ]


@dataclass(frozen=True, slots=True)
class View:
    """What one subscriber looks at: a page of one room's tables, or of every table.

    ``road`` keeps only the tables where that good road holds now (``"any"``: any good road);
    a result can bring a table in or out.
    """

    room: str | None = None
    page: int = 0
    road: str | None = None


class Lobby:
    """This node's tables' lines, the pages its subscribers look at, and what each was sent."""

    def __init__(
        self,
        config: RoomsConfig,
        hub: Hub,
        local_line: Callable[[str], LineJson | None],
        outbox: LineOutbox,
        directory: Directory,
        node_id: str = "local",
    ) -> None:
        self.config = config
        self.node_id = node_id
        self.hub = hub
        self.rooms = room_json(config)
        self.local_line = local_line
        """The current line of a table this server runs, or None."""
        self.outbox = outbox
        """Where each new line of a table this server runs goes (the node publishes it)."""
        self.directory = directory
        """Where every node's lines are read, a page at a time."""
        self.local: dict[str, LineJson] = {}
        """The line of each table this server runs, as last built."""
        self.views: dict[Connection, View] = {}
        self._by_view: dict[View, set[Connection]] = {}
        self._sent: dict[View, LobbyMessage] = {}
        """The ``lobby`` message each looked-at page's subscribers were last sent (or brought
        up to by updates)."""
        self._ranks = {t: i for i, t in enumerate(config.table_room())}
        self._task: asyncio.Task[None] | None = None

    def rank(self, table_id: str) -> int:
        """The table's place in the lobby: the rooms file's order (others after, by id)."""
        return self._ranks.get(table_id, len(self._ranks))

    # -- lines ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the lines of this server's tables that changed; publish those that differ."""
        changed, self.hub.changed = self.hub.changed, set()
        for table_id in changed:
            line = self.local_line(table_id)
            if line is None:
                self.local.pop(table_id, None)
            elif self.local.get(table_id) != line:
                self.local[table_id] = line
                self.outbox.put(line)

    def _fresh(self, line: LineJson) -> LineJson:
        # A table of this server: its line as it is now, not as last published.
        local = self.local.get(str(line.get("table_id")))
        return line if local is None else local

    async def all_lines(self) -> dict[str, LineJson]:
        """Every table's line, in lobby order: the whole system (``GET /api/lobby``, an
        operator's list), not something to read at every tick."""
        self.refresh()
        lines = await self.directory.all_summaries()
        lines.update(self.local)
        return {t: self._fresh(lines[t]) for t in sorted(lines, key=lambda t: (self.rank(t), t))}

    async def elsewhere(self, table_id: str) -> str | None:
        """The public URL of the node running a table that is not run here, if any (not
        while this node is still starting a table it has just taken)."""
        if table_id in self.local:
            return None
        owner = await self.directory.owner(table_id)
        if owner is None or owner.node_id == self.node_id:
            return None
        return owner.url or None

    def listed(self, table_id: str) -> bool:
        """Whether this node's rooms list the table (so some node will run it)."""
        return table_id in self._ranks

    # -- pages ------------------------------------------------------------------------

    def check(self, view: View) -> View:
        """The view if it names a room that exists, else a ``RuleViolation``."""
        if view.room is not None and view.room not in {r["room_id"] for r in self.rooms}:
            raise RuleViolation("unknown_room", f"There is no room {view.room!r}.")
        return view

    async def message(self, view: View | None = None) -> Mapping[str, object]:
        """The ``lobby`` message of a page (None: every table, as ``GET /api/lobby``)."""
        if view is None:
            lines = await self.all_lines()
            return {"type": "lobby", "rooms": self.rooms, "tables": list(lines.values())}
        return await self.page(view)

    async def page(self, view: View) -> LobbyMessage:
        """The ``lobby`` message of the page ``view`` looks at."""
        self.refresh()
        found = await self.directory.page(view.room, view.road, view.page * PAGE_SIZE, PAGE_SIZE)
        return lobby(
            self.rooms,
            [line_table(self._fresh(line)) for line in found.lines],
            room=view.room,
            road=view.road,
            page=view.page,
            pages=max(1, -(-found.total // PAGE_SIZE)),
            page_size=PAGE_SIZE,
            total=found.total,
        )

    async def subscribe(self, conn: Connection, view: View) -> None:
        """Send ``conn`` its page now and the page's changes every tick after."""
        self.unsubscribe(conn)
        self.views[conn] = view
        self._by_view.setdefault(view, set()).add(conn)
        if view not in self._sent:
            page = await self.page(view)
            self._sent.setdefault(view, page)
        # What the page's other subscribers have, so that the next updates fit it too (unless
        # the client changed its page meanwhile).
        sent = self._sent.get(view)
        if sent is not None and self.views.get(conn) == view:
            conn.send(dumps(sent))

    def unsubscribe(self, conn: Connection) -> None:
        """No more lobby messages for ``conn``."""
        view = self.views.pop(conn, None)
        if view is not None:
            subs = self._by_view.get(view)
            if subs is not None:
                subs.discard(conn)
                if not subs:
                    del self._by_view[view]
                    self._sent.pop(view, None)

    # -- the tick ---------------------------------------------------------------------

    async def tick(self) -> int:
        """Send each subscriber its page's changes since the last tick; return frames sent."""
        self.refresh()
        views = list(self._by_view)
        pages = await asyncio.gather(*(self.page(v) for v in views))
        sent = 0
        for view, page in zip(views, pages, strict=True):
            subs = self._by_view.get(view)
            if not subs:
                continue
            old = self._sent.get(view)
            self._sent[view] = page
            sent += _send_changes(subs, old, page)
        return sent

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
        # The lobby must outlive a bad line or a directory that does not answer; the tables
        # do not depend on it.
        outage = Outage("the lobby tick", log)
        while True:
            await asyncio.sleep(TICK)
            try:
                await self.tick()
                outage.passed()
            except Exception as exc:
                outage.failed(exc)


def _send_changes(subs: set[Connection], old: LobbyMessage | None, page: LobbyMessage) -> int:
    """Send ``subs`` what changed since ``old``: the whole page if it holds other tables, else
    each changed table's delta (or nothing). Return the frames sent."""
    if old is None or _tables_of(old) != _tables_of(page):
        text = dumps(page)
        for conn in subs:
            conn.send(text)
        return len(subs)
    deltas = [_delta(a, b) for a, b in zip(old["tables"], page["tables"], strict=True)]
    changes = [d for d in deltas if d is not None]
    if not changes:
        return 0
    frame = encode(lobby_update(changes))
    for conn in subs:
        conn.send_frame(frame)
    return len(subs)


def _tables_of(page: LobbyMessage) -> tuple[int, list[object]]:
    # What makes a page the same page: the same tables, in the same places, of as many.
    return page["total"], [line.get("table_id") for line in page["tables"]]


def _delta(old: LobbyTable, new: LobbyTable) -> LobbyTable | None:
    # The fields of a table's line that changed, with its id; None when none did.
    if old is new:
        return None
    delta = {k: v for k, v in new.items() if old.get(k) != v}
    return line_table({"table_id": new["table_id"], **delta}) if delta else None
