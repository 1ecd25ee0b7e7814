"""The directory many nodes share: who is alive, who runs which table, who sits where.

One interface, two back ends: ``LocalDirectory`` (one process, the default) and
``RedisDirectory`` (many nodes). Both keep the same promises:

- a table is leased to at most one node at a time; each grant carries a lease token
  larger than the tokens granted for that table before, so a node that slept through its
  lease's expiry can tell (its renewal is refused) and stop. The tokens live as long as the
  directory does: what keeps a stale node's writes out of the ledger is the table's epoch
  in the database (``baccarat.store.epochs``), not the token;
- a user holds at most one seat claim in the whole system;
- every node's lobby line for a table it leases can be read by every node, a page of a
  room at a time (``page``): a node reads the pages its own users look at, so what the
  lobby costs it does not grow with the number of nodes and tables.

Everything expires unless renewed (times in seconds), so a node that dies without a word
gives its tables and its users' seats back within one time-to-live.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import NamedTuple, Protocol

from baccarat.protocol.lobby import LineJson


class Owner(NamedTuple):
    """The node holding a table's lease, and where clients reach it."""

    node_id: str
    url: str
    """The node's public URL; empty when its heartbeat has lapsed (it is likely dead)."""


class SeatClaim(NamedTuple):
    """Where a user holds a seat."""

    table_id: str
    seat: int


class LobbyChange(NamedTuple):
    """A table that left the lobby (its node gave it up: ``summary`` is None), or an
    operator's word to every node (``operator``: a ban to enforce, a notice to show).
    A line's changes are not announced: nodes read the pages they need (``page``)."""

    table_id: str
    summary: LineJson | None
    operator: LineJson | None = None


class LobbyPage(NamedTuple):
    """One page of the lobby: how many tables the view holds in all, and the page's lines."""

    total: int
    lines: list[LineJson]


def good_road_patterns(line: LineJson) -> list[str]:
    """The good roads a lobby line shows now (the filters it passes besides ``"any"``)."""
    found = line.get("good_roads")
    if not isinstance(found, list):
        return []
    return sorted({str(g["pattern"]) for g in found if isinstance(g, dict) and "pattern" in g})


class Directory(Protocol):
    """What the nodes of one system share."""

    expires: bool
    """Whether leases, seat claims and lobby lines run out unless renewed. A system of one
    has nobody to hand its tables over to: nothing in its directory runs out, and a node
    need not renew what it holds."""

    # -- nodes ------------------------------------------------------------------------

    async def register(self, node_id: str, public_url: str, ttl: float) -> bool:
        """Announce (or keep announcing) a live node; call again before ``ttl`` runs out.

        Whether the directory still had the node: a node that renewed in time and is not
        known any more learns that the directory lost its data (Redis restarted empty)."""
        ...

    async def unregister(self, node_id: str) -> None:
        """Say the node is leaving (a dead node simply stops renewing)."""
        ...

    async def nodes(self) -> dict[str, str]:
        """Every live node's id mapped to its public URL."""
        ...

    async def leave(self, node_id: str) -> None:
        """Count the node out of the live nodes (it is stopping: the others place the tables
        without it) while its address still answers for the tables it is handing over."""
        ...

    # -- table leases -----------------------------------------------------------------

    async def holders(self, table_ids: Sequence[str]) -> dict[str, str]:
        """The node that leases each of ``table_ids`` now (a table nobody leases is left out)."""
        ...

    async def acquire(self, table_id: str, node_id: str, ttl: float) -> int | None:
        """Lease a table for ``ttl`` seconds; the lease token, or None if another node
        holds it.

        The node already holding the lease gets a new, larger token (a restarted node
        takes its tables straight back, and its earlier self can no longer renew)."""
        ...

    async def renew(self, table_id: str, node_id: str, token: int) -> bool:
        """Extend the lease by its ``ttl``; False (and nothing changes) unless
        ``node_id`` holds it with exactly ``token``."""
        ...

    async def release(self, table_id: str, node_id: str, token: int) -> bool:
        """Give the lease up; False (and nothing changes) unless it is held with ``token``."""
        ...

    async def owner(self, table_id: str) -> Owner | None:
        """Who holds the table now, if anyone."""
        ...

    # -- seats ------------------------------------------------------------------------

    async def claim_seat(
        self, user_id: int, table_id: str, seat: int, node_id: str, ttl: float
    ) -> bool:
        """Claim the user's one seat; False if the user holds a seat at another table.

        A claim at the table the user already holds a seat at replaces that claim (the
        table itself decides whether the user may move)."""
        ...

    async def release_seat(self, user_id: int, table_id: str) -> bool:
        """Drop the user's claim if it is at ``table_id`` (a late release from an old table
        never frees a newer seat); whether one was dropped."""
        ...

    async def seat_of(self, user_id: int) -> SeatClaim | None:
        """Where the user holds a seat, if anywhere."""
        ...

    async def renew_seats(self, node_id: str, seats: Mapping[int, str], ttl: float) -> set[int]:
        """Extend the claims (user id -> table id) this node holds; the users whose claim
        is gone or no longer this node's at that table (they were not renewed)."""
        ...

    # -- lobby ------------------------------------------------------------------------

    async def publish(self, node_id: str, summary: LineJson, ttl: float, *, rank: int = 0) -> bool:
        """Show a table's lobby line (``summary["table_id"]``) everywhere for ``ttl``
        seconds, stamped with ``node_id`` and its ``url``; False (nothing shown) unless
        ``node_id`` holds the table's lease. ``rank`` is the table's place in the lobby
        (the rooms file's order; tables of one rank go by id). Nobody is told: readers
        see the line in the next ``page`` they read."""
        ...

    async def withdraw(self, table_id: str, node_id: str) -> bool:
        """Take a table's line out of the lobby if ``node_id`` published it, and tell every
        node following the lobby (a node that may run the table takes it at once)."""
        ...

    async def page(self, room: str | None, road: str | None, start: int, count: int) -> LobbyPage:
        """At most ``count`` lines from the ``start``-th (0 first) of the tables of ``room``
        (None: every room) where the good road ``road`` holds (``"any"``: any good road;
        None: every table), in lobby order. What it costs does not depend on how many
        tables the directory holds beyond the page."""
        ...

    async def all_summaries(self) -> dict[str, LineJson]:
        """Every table's current lobby line, by table id (the whole system: for an
        operator's list, not for every tick)."""
        ...

    async def announce(self, message: LineJson) -> None:
        """Tell every node following the lobby (this one too) an operator's ``message``;
        it arrives as a ``LobbyChange`` whose ``operator`` is the message."""
        ...

    def lobby_changes(self) -> AbstractAsyncContextManager[AsyncIterator[LobbyChange]]:
        """Follow withdrawals and operators' words: ``async with d.lobby_changes() as
        changes: async for ...``.

        Nothing announced after the ``async with`` is entered is missed. A line that
        expires (its node died) is not announced: the new owner's line replaces it, and
        ``page`` and ``all_summaries`` stop showing it."""
        ...

    async def close(self) -> None:
        """Free connections (a ``LocalDirectory`` holds none)."""
        ...
