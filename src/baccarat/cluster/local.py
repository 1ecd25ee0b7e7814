"""The directory of a single node: the same promises as Redis, kept in this process.

Every method runs without awaiting anything before it has decided, so on one event loop
each is as atomic as a Redis script.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from baccarat.cluster.directory import LobbyChange, LobbyPage, Owner, SeatClaim, good_road_patterns
from baccarat.protocol.lobby import LineJson


@dataclass
class _Lease:
    node_id: str
    token: int
    ttl: float
    until: float


@dataclass
class _Seat:
    table_id: str
    seat: int
    node_id: str
    until: float


@dataclass
class _Line:
    node_id: str
    summary: LineJson
    until: float
    rank: int
    room: str
    roads: list[str]


class LocalDirectory:
    """``Directory`` for one process; ``clock`` is injectable (seconds, monotonic)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, expires: bool = True
    ) -> None:
        self._clock = clock
        self.expires = expires
        self._nodes: dict[str, tuple[str, float]] = {}
        self._leases: dict[str, _Lease] = {}
        self._leaving: set[str] = set()
        self._fences: dict[str, int] = {}
        self._seats: dict[int, _Seat] = {}
        self._lines: dict[str, _Line] = {}
        self._followers: set[asyncio.Queue[LobbyChange]] = set()

    @classmethod
    def alone(cls) -> LocalDirectory:
        """The directory of a server that is a system of one: nothing in it expires.

        Leases and seat claims expire so that another node can take over from one that
        stopped answering; a server alone has nobody to hand over to, so a stalled event loop
        (a long pause, a suspended process) must not cost it its own tables and seats. Its
        clock stands still.
        """
        return cls(clock=lambda: 0.0, expires=False)

    def _now(self) -> float:
        return self._clock()

    # -- nodes ------------------------------------------------------------------------

    async def register(self, node_id: str, public_url: str, ttl: float) -> bool:
        """Announce (or keep announcing) a live node; whether it was known still."""
        now = self._now()
        known = self._nodes.get(node_id, ("", now))[1] > now
        self._nodes[node_id] = (public_url, now + ttl)
        self._leaving.discard(node_id)
        return known

    async def unregister(self, node_id: str) -> None:
        """Say the node is leaving."""
        self._nodes.pop(node_id, None)

    async def nodes(self) -> dict[str, str]:
        """Every live node's id mapped to its public URL."""
        now = self._now()
        return {
            n: url
            for n, (url, until) in self._nodes.items()
            if until > now and n not in self._leaving
        }

    async def leave(self, node_id: str) -> None:
        """Count the node out of the live nodes; its address stays known."""
        self._leaving.add(node_id)

    def _url(self, node_id: str) -> str:
        found = self._nodes.get(node_id)
        return found[0] if found is not None and found[1] > self._now() else ""

    # -- table leases -----------------------------------------------------------------

    def _lease(self, table_id: str) -> _Lease | None:
        lease = self._leases.get(table_id)
        if lease is not None and lease.until <= self._now():
            del self._leases[table_id]
            return None
        return lease

    async def holders(self, table_ids: Sequence[str]) -> dict[str, str]:
        """The node that leases each of ``table_ids`` now."""
        found = {t: self._lease(t) for t in table_ids}
        return {t: lease.node_id for t, lease in found.items() if lease is not None}

    async def acquire(self, table_id: str, node_id: str, ttl: float) -> int | None:
        """Lease a table; the lease token, or None if another node holds it."""
        lease = self._lease(table_id)
        if lease is not None and lease.node_id != node_id:
            return None
        token = self._fences.get(table_id, 0) + 1
        self._fences[table_id] = token
        self._leases[table_id] = _Lease(node_id, token, ttl, self._now() + ttl)
        return token

    async def renew(self, table_id: str, node_id: str, token: int) -> bool:
        """Extend the lease if ``node_id`` holds it with ``token``."""
        lease = self._lease(table_id)
        if lease is None or lease.node_id != node_id or lease.token != token:
            return False
        lease.until = self._now() + lease.ttl
        return True

    async def release(self, table_id: str, node_id: str, token: int) -> bool:
        """Give the lease up if it is held with ``token``."""
        lease = self._lease(table_id)
        if lease is None or lease.node_id != node_id or lease.token != token:
            return False
        del self._leases[table_id]
        return True

    async def owner(self, table_id: str) -> Owner | None:
        """Who holds the table now, if anyone."""
        lease = self._lease(table_id)
        return None if lease is None else Owner(lease.node_id, self._url(lease.node_id))

    # -- seats ------------------------------------------------------------------------

    def _seat(self, user_id: int) -> _Seat | None:
        held = self._seats.get(user_id)
        if held is not None and held.until <= self._now():
            del self._seats[user_id]
            return None
        return held

    async def claim_seat(
        self, user_id: int, table_id: str, seat: int, node_id: str, ttl: float
    ) -> bool:
        """Claim the user's one seat; False if the user sits at another table."""
        held = self._seat(user_id)
        if held is not None and held.table_id != table_id:
            return False
        self._seats[user_id] = _Seat(table_id, seat, node_id, self._now() + ttl)
        return True

    async def release_seat(self, user_id: int, table_id: str) -> bool:
        """Drop the user's claim if it is at ``table_id``."""
        held = self._seat(user_id)
        if held is None or held.table_id != table_id:
            return False
        del self._seats[user_id]
        return True

    async def seat_of(self, user_id: int) -> SeatClaim | None:
        """Where the user holds a seat, if anywhere."""
        held = self._seat(user_id)
        return None if held is None else SeatClaim(held.table_id, held.seat)

    async def renew_seats(self, node_id: str, seats: Mapping[int, str], ttl: float) -> set[int]:
        """Extend this node's claims; the users whose claim was gone."""
        lost: set[int] = set()
        for user_id, table_id in seats.items():
            held = self._seat(user_id)
            if held is None or held.node_id != node_id or held.table_id != table_id:
                lost.add(user_id)
            else:
                held.until = self._now() + ttl
        return lost

    # -- lobby ------------------------------------------------------------------------

    async def publish(self, node_id: str, summary: LineJson, ttl: float, *, rank: int = 0) -> bool:
        """Show a table's lobby line everywhere, if ``node_id`` leases the table."""
        table_id = str(summary["table_id"])
        lease = self._lease(table_id)
        if lease is None or lease.node_id != node_id:
            return False
        line = {**summary, "node_id": node_id, "url": self._url(node_id)}
        room = str(summary.get("room_id", ""))
        roads = good_road_patterns(summary)
        self._lines[table_id] = _Line(node_id, line, self._now() + ttl, rank, room, roads)
        return True

    async def withdraw(self, table_id: str, node_id: str) -> bool:
        """Take a table's line out of the lobby if ``node_id`` published it."""
        line = self._lines.get(table_id)
        if line is None or line.node_id != node_id:
            return False
        del self._lines[table_id]
        self._announce(LobbyChange(table_id, None))
        return True

    async def page(self, room: str | None, road: str | None, start: int, count: int) -> LobbyPage:
        """A page of the view's lines, in lobby order (one process: sorted here)."""
        self._expire_lines()
        found = sorted(
            (line.rank, table_id)
            for table_id, line in self._lines.items()
            if (room is None or line.room == room)
            and (road is None or (line.roads and road == "any") or road in line.roads)
        )
        lines = [dict(self._lines[t].summary) for _, t in found[start : start + count]]
        return LobbyPage(len(found), lines)

    async def all_summaries(self) -> dict[str, LineJson]:
        """Every table's current lobby line."""
        self._expire_lines()
        return {t: dict(line.summary) for t, line in self._lines.items()}

    def _expire_lines(self) -> None:
        now = self._now()
        for table_id in [t for t, line in self._lines.items() if line.until <= now]:
            del self._lines[table_id]

    async def announce(self, message: LineJson) -> None:
        """Tell every follower an operator's ``message``."""
        self._announce(LobbyChange("", None, dict(message)))

    def _announce(self, change: LobbyChange) -> None:
        for queue in self._followers:
            queue.put_nowait(change)

    @asynccontextmanager
    async def lobby_changes(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        """Follow lobby changes while the ``async with`` lasts."""
        queue: asyncio.Queue[LobbyChange] = asyncio.Queue()
        self._followers.add(queue)
        try:
            yield _drain(queue)
        finally:
            self._followers.discard(queue)

    async def close(self) -> None:
        """Nothing to free."""


async def _drain(queue: asyncio.Queue[LobbyChange]) -> AsyncIterator[LobbyChange]:
    while True:
        yield await queue.get()
