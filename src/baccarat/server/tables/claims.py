"""Seat claims: a user's one seat in the whole system, held in the directory by this node.

Seating claims a user's seat before the table seats them and gives a claim back when the
table did not; the node keeps the claims of its seated users alive and gives them back when
they leave. A single server claims in its ``LocalDirectory``.
"""

from __future__ import annotations

from baccarat.cluster import Directory
from baccarat.cluster.keeper import DEFAULT_TTL


class SeatClaims:
    """This node's claims in the directory."""

    def __init__(self, directory: Directory, node_id: str, ttl: float = DEFAULT_TTL) -> None:
        self.directory = directory
        self.node_id = node_id
        self.ttl = ttl

    async def claim(self, user_id: int, table_id: str, seat: int) -> bool:
        """Claim the user's one seat in the whole system; False when it is held elsewhere."""
        return await self.directory.claim_seat(user_id, table_id, seat, self.node_id, self.ttl)

    async def release(self, user_id: int, table_id: str) -> None:
        """Give a claim back (the user left, or the table refused the sit)."""
        await self.directory.release_seat(user_id, table_id)
