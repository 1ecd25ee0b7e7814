"""What a client asks the server itself to do, beside the table's own commands.

A frame that is a table command (a chip, a peel, a chat line) parses straight into the
table's command dataclass (:mod:`baccarat.table.commands`). The commands here need the
server first: a seat or a place in the dealer queue needs the user's record from the store;
watching, the lobby and the clock are the server's.
"""

from __future__ import annotations

from dataclasses import dataclass

from baccarat.protocol.ids import TableId


@dataclass(frozen=True, slots=True)
class Ping:
    """Ask the server's clock."""


@dataclass(frozen=True, slots=True)
class LobbySubscribe:
    """Show a page of the lobby now and its changes after (``road``: a good-road filter)."""

    room: str | None = None
    page: int = 0
    road: str | None = None


@dataclass(frozen=True, slots=True)
class LobbyUnsubscribe:
    """Stop the lobby's changes."""


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch a table: a snapshot, then its events."""

    table_id: TableId


@dataclass(frozen=True, slots=True)
class Leave:
    """Stop watching the table."""


@dataclass(frozen=True, slots=True)
class Resync:
    """A fresh snapshot of the watched table."""


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """Sit at ``seat`` of a table (the store's record of the user makes the table's ``Sit``)."""

    table_id: TableId
    seat: int


@dataclass(frozen=True, slots=True)
class QueueUp:
    """Line up for the dealer seat (the store's record makes the table's ``JoinQueue``)."""


Request = Ping | LobbySubscribe | LobbyUnsubscribe | Watch | Leave | Resync | TakeSeat | QueueUp
"""A command the server carries out before (or instead of) any table."""
