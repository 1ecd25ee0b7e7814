"""A table's line in the lobby: a typed record, and its one JSON form.

A node builds the line of each table it runs (:func:`baccarat.server.tables.facts.lobby_line`),
sends its JSON to its own subscribers and publishes the same JSON to the other nodes, which
pass it on as they heard it. The JSON is the protocol's ``lobby`` table object
(docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import cast

from baccarat.protocol.frames import LobbyTable
from baccarat.protocol.ids import TableId, UserId
from baccarat.protocol.values import JsonObject, good_road, mark
from baccarat.roads.marks import RoundMark
from baccarat.roads.patterns import GoodRoad

LineJson = JsonObject
"""A lobby line on the wire: as built here, or as heard from another node."""


def line_table(line: Mapping[str, object]) -> LobbyTable:
    """A line, or the changed fields of one with its ``table_id``, as the lobby's messages
    carry it: JSON that :meth:`LobbyLine.json` wrote, on this node or on the table's own."""
    return cast(LobbyTable, line)


@dataclass(frozen=True, slots=True)
class SeatLine:
    """Who sits in a seat, as the lobby shows it."""

    user_id: UserId
    name: str


@dataclass(frozen=True, slots=True)
class LobbyLine:
    """One table as the lobby lists it: names, seats, phase, round of the shoe, results."""

    table_id: TableId
    room_id: str
    names: Mapping[str, str]
    """The table's name in every language the browser client speaks."""
    seats: tuple[SeatLine | None, ...]
    watchers: int
    phase: str
    shoe_round: int
    commitment: str | None
    """The running shoe's commitment, published before its first round (docs/fairness.md)."""
    beads: tuple[RoundMark, ...]
    queue: int
    good_roads: tuple[GoodRoad, ...]
    suspended: str | None = None
    """Why an operator closed the table (no round starts, nobody new sits), or None."""
    node_id: str | None = None
    url: str | None = None
    """Where the table runs, when its node has a public URL (a cluster of nodes)."""

    def placed(self, node_id: str, url: str) -> LobbyLine:
        """The line naming the node that runs the table and its public URL."""
        return replace(self, node_id=node_id, url=url)

    def json(self) -> LineJson:
        """The line's JSON form (``name`` is the English name, for one-language clients)."""
        out: LineJson = {
            "table_id": self.table_id,
            "room_id": self.room_id,
            "name": self.names.get("en", self.table_id),
            "names": dict(self.names),
            "seats": [
                None if s is None else {"user_id": s.user_id, "name": s.name} for s in self.seats
            ],
            "taken": sum(1 for s in self.seats if s is not None),
            "watchers": self.watchers,
            "phase": self.phase,
            "shoe_round": self.shoe_round,
            "commitment": self.commitment,
            "beads": [mark(m) for m in self.beads],
            "queue": self.queue,
            "good_roads": [good_road(g) for g in self.good_roads],
            "suspended": self.suspended,
        }
        if self.url is not None:
            out["node_id"] = self.node_id
            out["url"] = self.url
        return out
